import FoundationEssentials
import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// The gallery's keys, its previews and its frame (`GalleryState`).
extension Dashboard {
    static let galleryKeys = "type to filter  ↑↓ kind  ←→ family  Enter add  Esc back "

    /// `a` in edit mode (`n`: for a new page): the gallery, every kind listed, the first previewed.
    mutating func openGallery(newPage: Bool = false) {
        let kinds = panelFactory?.widgets.widgets.map(\.kind) ?? []
        edit?.gallery = GalleryState(kinds: kinds, onNewPage: newPage)
        requestPreview()
    }

    /// A key while the gallery is open.
    mutating func handleGallery(_ key: Key) {
        guard var gallery = edit?.gallery else { return }
        switch key {
        case .escape:
            edit?.gallery = nil
            return
        case .enter:
            addFromGallery()
            return
        case .up: gallery.selection = max(0, gallery.selection - 1); gallery.family = nil
        case .down: gallery.selection = min(max(0, gallery.matches.count - 1), gallery.selection + 1); gallery.family = nil
        case .left, .right:
            guard let kind = gallery.chosen, let manifest = manifest(of: kind) else { return }
            let families = manifest.supportedFamilies
            let current = families.firstIndex(of: gallery.family ?? manifest.defaultFamily) ?? 0
            let next = current + (key == .left ? -1 : 1)
            guard families.indices.contains(next) else { return }
            gallery.family = families[next]
        case .backspace:
            guard !gallery.filter.isEmpty else { return }
            gallery.filter.removeLast()
            gallery.selection = 0
            gallery.family = nil
        case .character(let character) where !character.isWhitespace && gallery.filter.count < 40:
            gallery.filter.append(character)
            gallery.selection = 0
            gallery.family = nil
        case .resize:
            relayout()
        default:
            return
        }
        edit?.gallery = gallery
        requestPreview()
    }

    /// The host's answer to `.previewGallery`: kept when it is still the one wanted.
    mutating func galleryPreviewed(_ preview: GalleryPreview) {
        guard let gallery = edit?.gallery, let wanted = galleryChoice(gallery), wanted.kind == preview.kind,
              wanted.family == preview.family else { return }
        edit?.gallery?.preview = preview
        emit(.present)
    }

    /// The chosen kind and family, with their manifest.
    private func galleryChoice(_ gallery: GalleryState) -> (kind: String, family: WidgetFamily, manifest: WidgetManifest)? {
        guard let kind = gallery.chosen, let manifest = manifest(of: kind) else { return nil }
        return (kind, gallery.family ?? manifest.defaultFamily, manifest)
    }

    private func manifest(of kind: String) -> WidgetManifest? { panelFactory?.widgets.widget(kind: kind)?.manifest }

    private func editValidator() -> ConfigValidator {
        ConfigValidator(manifests: panelFactory?.widgets.widgets.map(\.manifest) ?? [])
    }

    /// Asks the host for the chosen kind's snapshot at its family (the sample panel checked
    /// first: a kind whose examples do not validate says why instead).
    private mutating func requestPreview() {
        guard let gallery = edit?.gallery, let choice = galleryChoice(gallery) else {
            edit?.gallery?.preview = nil
            return
        }
        if let shown = gallery.preview, shown.kind == choice.kind, shown.family == choice.family { return }
        edit?.gallery?.preview = nil
        let sample = GalleryState.sampleOptions(of: choice.manifest).map { ($0.name, $0.value) }
        let checked = editValidator().previewPanel(kind: choice.kind, family: choice.family, options: sample)
        guard let panel = checked.panel else {
            edit?.gallery?.preview = GalleryPreview(kind: choice.kind, family: choice.family, entry: nil,
                                                    failure: checked.errors.first.map { "\($0)" } ?? "no sample")
            return
        }
        let box = GalleryState.panelSize(choice.family, within: CellSize(columns: galleryPreviewArea.width, rows: galleryPreviewArea.height))
        emit(.previewGallery(GalleryRequest(panel: panel, size: CellSize(columns: max(0, box.columns - 2), rows: max(0, box.rows - 2)))))
    }

    /// `Enter`: the chosen kind, with its sample options, after the focused panel; then its form
    /// when it has options without a default.
    private mutating func addFromGallery() {
        guard var session = edit, let gallery = session.gallery, let choice = galleryChoice(gallery) else { return }
        let sample = GalleryState.sampleOptions(of: choice.manifest)
        let value = ConfigEditCommand.panelValue(kind: choice.kind, family: gallery.family == nil ? nil : choice.family,
                                                 options: sample, validator: editValidator())
        var document = session.document
        var place = document.location(ofPanel: focus) ?? (page: 0, offset: -1)
        let title = "Page \(document.pages.count + 1)"
        if gallery.onNewPage { place = (document.addPage(title: title), -1) }
        let index = document.insert(value, page: place.page, offset: place.offset + 1)
        session.gallery = nil
        edit = session
        guard applyEdit(document) else { return }
        if gallery.onNewPage { show(page: place.page) }
        focus = index
        let examples = sample.map(\.name).joined(separator: ", ")
        flash = "added \(choice.kind)" + (gallery.onNewPage ? " on \(title)" : "")
            + (examples.isEmpty ? "" : " (\(examples): the manifest's example)")
        // Options it cannot do without are set in its form at once (Esc keeps the examples).
        if !sample.isEmpty { openForm() }
    }

    // MARK: Drawing

    /// Where the gallery is drawn: the panels' area.
    var galleryPreviewArea: Rect {
        let area = panelArea
        return Rect(x: area.x + Self.galleryListWidth + 1, y: area.y + 1, width: max(0, area.width - Self.galleryListWidth - 2),
                    height: max(0, area.height - 3))
    }

    static let galleryListWidth = 24

    /// The gallery over the panels: the kinds (the chosen one marked), the filter, and the
    /// chosen kind's snapshot in a panel of its family, its description under it.
    func drawGallery(_ gallery: GalleryState, into buffer: inout CellBuffer) {
        let area = panelArea
        guard area.width >= Self.galleryListWidth + 10, area.height >= 6 else { return }
        buffer.fill(area, with: .blank(CellStyle(.foreground)))
        let list = Rect(x: area.x, y: area.y, width: Self.galleryListWidth, height: area.height)
        Box(title: gallery.onNewPage ? "A new page's widget" : "Add a widget", focused: true, glyphs: glyphs).draw(into: &buffer, in: list)
        let inner = Box.inner(of: list).inset(left: 1, right: 1)
        buffer.write("filter: " + gallery.filter + "▏", x: inner.x, y: inner.y, style: CellStyle(.accent), clip: inner)
        let matches = gallery.matches
        let rows = max(0, inner.height - 2)
        let first = max(0, min(gallery.selection - rows + 1, matches.count - rows))
        for (row, kind) in matches.dropFirst(first).prefix(rows).enumerated() {
            let chosen = first + row == gallery.selection
            buffer.write(DisplayWidth.truncate(kind, toWidth: inner.width, ellipsis: glyphs.ellipsis), x: inner.x, y: inner.y + 2 + row,
                         style: chosen ? CellStyle(.accent, [.bold, .reverse]) : CellStyle(.foreground), clip: inner)
        }
        if matches.isEmpty { buffer.write("no kind matches", x: inner.x, y: inner.y + 2, style: CellStyle(.muted), clip: inner) }
        guard let choice = galleryChoice(gallery) else { return }
        let previewArea = galleryPreviewArea
        let size = GalleryState.panelSize(choice.family, within: CellSize(columns: previewArea.width, rows: previewArea.height))
        let frame = Rect(x: previewArea.x, y: previewArea.y, width: size.columns, height: size.rows)
        Box(title: choice.manifest.displayName, focused: false, glyphs: glyphs).draw(into: &buffer, in: frame)
        let content = Box.inner(of: frame)
        if let preview = gallery.preview, let entry = preview.entry, let widget = panelFactory?.widgets.widget(kind: choice.kind) {
            widget.view(entry, WidgetViewContext(family: choice.family, size: CellSize(columns: content.width, rows: content.height),
                                                 renderingMode: WidgetRenderingMode(renderingMode)))
                .draw(into: &buffer, in: content, glyphs: glyphs, at: now)
        } else {
            let said = gallery.preview?.failure ?? "…"
            PanelView.centeredLines([(said, CellStyle(.muted))]).draw(into: &buffer, in: content, glyphs: glyphs)
        }
        let families = choice.manifest.supportedFamilies.map { $0 == choice.family ? "[\($0.rawValue)]" : $0.rawValue }
        let below = Rect(x: previewArea.x, y: frame.maxY, width: previewArea.width, height: max(0, area.maxY - frame.maxY))
        buffer.write("← " + families.joined(separator: " ") + " →", x: below.x, y: below.y, style: CellStyle(.accent), clip: below)
        buffer.write(choice.manifest.description, x: below.x, y: below.y + 1, style: CellStyle(.muted), clip: below)
    }
}
