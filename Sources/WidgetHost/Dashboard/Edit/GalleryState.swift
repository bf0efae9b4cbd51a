import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// The gallery of edit mode (`a`, DESIGN.md §10): every kind the host can build, filtered by
/// what is typed, one chosen, shown from its provider's `snapshot` (sample data, `isPreview`)
/// at a family `←` `→` step through; `Enter` adds it after the focused panel (or, opened by `n`,
/// as the first panel of a new page).
struct GalleryState: Equatable, Sendable {
    /// Every kind, in the catalogue's order.
    var kinds: [String]
    /// What was typed; kinds containing it (ignoring case) are listed.
    var filter = ""
    /// The chosen kind's place among `matches`.
    var selection = 0
    /// The family shown; nil: the kind's default.
    var family: WidgetFamily?
    /// The snapshot shown, once its provider answered.
    var preview: GalleryPreview?
    /// Opened by `n`: the kind added is the first panel of a new page.
    var onNewPage = false

    /// The kinds listed.
    var matches: [String] {
        guard !filter.isEmpty else { return kinds }
        return kinds.filter { $0.lowercased().contains(filter.lowercased()) }
    }

    /// The chosen kind, if any matches.
    var chosen: String? { matches.indices.contains(selection) ? matches[selection] : matches.first }

    /// The options a sample panel of `manifest` gets: each required option (and the first of
    /// each "exactly one of" group) at its manifest's example; the rest at their defaults.
    static func sampleOptions(of manifest: WidgetManifest) -> [OptionAssignment] {
        var names = manifest.options.filter(\.required).map(\.name)
        for group in manifest.exactlyOneOf where !group.contains(where: names.contains) {
            if let first = group.first { names.append(first) }
        }
        return names.compactMap { name in
            manifest.option(named: name).map { OptionAssignment(name: name, value: $0.example ?? "") }
        }
    }

    /// The size a preview's panel takes at `family`, within `area` (its border included).
    @MainActor static func panelSize(_ family: WidgetFamily, within area: CellSize) -> CellSize {
        let wanted = PreviewCommand.panelSize(family)
        return CellSize(columns: min(wanted.columns, area.columns), rows: min(wanted.rows, area.rows))
    }
}

/// What the gallery asks the host to preview: a sample panel, validated, at a content size.
package struct GalleryRequest: Equatable, Sendable {
    var panel: PanelConfig
    /// The preview box's inside.
    var size: CellSize
}

/// A gallery preview: the snapshot of a kind at a family, or why there is none.
package struct GalleryPreview: Sendable, Equatable {
    var kind: String
    var family: WidgetFamily
    var entry: (any TimelineEntry)?
    var failure: String?

    package static func == (a: Self, b: Self) -> Bool {
        a.kind == b.kind && a.family == b.family && a.entry?.date == b.entry?.date && a.failure == b.failure
    }
}
