import FoundationEssentials
import JSONTree
import WidgetCore
import Widgets

/// Turns a validated config into dashboard panels with live widget instances.
@MainActor
enum DashboardBuilder {
    /// The panels of `config` with their widgets' providers made: what the widgets' factories
    /// do (take a session lease, subscribe to a push stream, watch a file) happens here — in
    /// the program's `.buildPanels` effect, never in `update`.
    ///
    /// A widget whose provider cannot be made (an option the system refuses, such as an
    /// unknown time zone file) becomes a panel that shows the reason instead of failing the
    /// whole dashboard. Panels in `reusing` whose config is unchanged are kept as they are —
    /// their instances, entries and schedules — so saving the config file does not flash every
    /// panel back to its placeholder or restart its reloads: no provider is made for them.
    static func prepare(_ config: DashboardConfig, widgets: BoundWidgets, reusing previous: [DashboardPanel]) -> [PreparedPanel] {
        var reusable = previous.filter { $0.config != nil && $0.setupError == nil }.compactMap(\.config)
        return config.panels.map { panelConfig in
            if let index = reusable.firstIndex(of: panelConfig) {
                reusable.remove(at: index)
                return PreparedPanel(config: panelConfig, fresh: nil)
            }
            var fresh = PreparedPanel.Fresh(title: title(of: panelConfig, widgets: widgets))
            for memberConfig in panelConfig.members {
                guard let widget = widgets.widget(kind: memberConfig.kind) else {
                    fresh.setupError = "unknown widget kind '\(memberConfig.kind)'"
                    continue
                }
                do {
                    let options = memberConfig.options
                    let provider = try widget.makeProvider(options)
                    fresh.members.append(.init(widget: widget, title: title(of: memberConfig, widgets: widgets), options: options,
                                               provider: provider))
                } catch {
                    fresh.setupError = "\(widget.kind): \(error)"
                }
            }
            return PreparedPanel(config: panelConfig, fresh: fresh)
        }
    }

    /// The dashboard's panels for `prepared`: one instance in `timelines` per new widget (in
    /// `update`, `.panelsBuilt`); a kept panel is taken from `previous` as it is now.
    static func install(_ prepared: [PreparedPanel], into timelines: inout TimelineState, now: Date,
                        reusing previous: [DashboardPanel]) -> [DashboardPanel] {
        var reusable = previous.filter { $0.config != nil && $0.setupError == nil }
        return prepared.map { plan in
            guard let fresh = plan.fresh else {
                if let index = reusable.firstIndex(where: { $0.config == plan.config }) { return reusable.remove(at: index) }
                // Kept when prepared, gone since: only another config's panels could have
                // replaced them, and panels change only here.
                return DashboardPanel(title: plan.config.title ?? plan.config.kind, family: plan.config.family, members: [],
                                      setupError: "this panel changed while it was built: reload the config (SIGHUP)",
                                      config: plan.config)
            }
            let family = plan.config.family
            var panel = DashboardPanel(title: fresh.title, family: family, members: [], setupError: fresh.setupError,
                                       config: plan.config)
            for member in fresh.members {
                let widget = member.widget
                let id = timelines.add(kind: widget.kind, family: family, size: .zero, provider: member.provider,
                                       pausable: widget.manifest.isPausable,
                                       info: WidgetCenter.WidgetInfo(kind: widget.kind, family: family, title: member.title,
                                                                     options: member.options),
                                       onLoop: widget.manifest.runsOnLoop, now: now)
                panel.members.append(.init(id: id, widget: widget, title: member.title, options: member.options))
            }
            return panel
        }
    }

    static func title(of panel: PanelConfig, widgets: BoundWidgets) -> String {
        if let title = panel.title { return title }
        if panel.members != [panel] { return StackDefinition.title(ofMembers: panel.members.map { title(of: $0, widgets: widgets) }) }
        guard let manifest = widgets.widget(kind: panel.kind)?.manifest else { return panel.kind }
        return title(of: panel, manifest: manifest)
    }

    /// A single panel's title: its `title`, else its kind's `titleOption` value, else the
    /// kind's display name (also `preview`'s and `extension run`'s frame title).
    nonisolated static func title(of panel: PanelConfig, manifest: WidgetManifest) -> String {
        if let title = panel.title { return title }
        if let option = manifest.titleOption, let value = panel.options.string(option), value != "local" {
            return value
        }
        return manifest.displayName
    }

    nonisolated static let defaultLeaderboardURL = "http://127.0.0.1:8787/leaderboard"

    /// The dashboard shown when no config file exists (DESIGN.md §4): the leaderboard (all six
    /// heroes, live from the server's event stream), Spouty, a clock, and the system.
    ///
    /// Written as a config file would be, with only what differs from the manifests' defaults,
    /// and read through the catalogue's validator like any config, so its options get their
    /// defaults from one place (`DefaultDashboardTests` asserts it is valid, without warnings).
    nonisolated static func defaultConfigJSON(leaderboardURL: String, kinds: Set<String>? = nil) -> String {
        // The bundled server's event stream sits next to its board.
        let push = leaderboardURL.hasSuffix("/leaderboard") ? String(leaderboardURL.dropLast("/leaderboard".count)) + "/events" : nil
        let pushOption = push.map { #", "push": \#(JSONValue.quoted($0, limit: nil))"# } ?? ""
        let panels: [(kind: String, json: String)] = [
            ("leaderboard", #"{"kind": "leaderboard", "family": "large", "title": "Ranger Leaderboard", "#
                + #""options": {"url": \#(JSONValue.quoted(leaderboardURL, limit: nil))\#(pushOption)}}"#),
            ("hero", #"{"kind": "hero", "family": "small", "title": "Spouty", "options": {"name": "Spouty"}}"#),
            ("clock", #"{"kind": "clock", "family": "small", "title": "Clock"}"#),
            ("system", #"{"kind": "system", "family": "medium", "title": "System"}"#),
        ]
        let shown = panels.filter { kinds?.contains($0.kind) ?? true }.map { "  " + $0.json }
        return "{\"panels\": [\n" + shown.joined(separator: ",\n") + "\n]}\n"
    }

    /// The default dashboard for `catalog` (see `defaultConfigJSON`), with the panels of the
    /// kinds it offers.
    nonisolated static func defaultConfig(leaderboardURL: String, catalog: Catalog = .builtin()) -> DashboardConfig {
        let json = defaultConfigJSON(leaderboardURL: leaderboardURL, kinds: Set(catalog.manifests.map(\.kind)))
        let report = try? ConfigLoader(validator: catalog.validator()).load(bytes: Array(json.utf8), path: "the default dashboard")
        // `DefaultDashboardTests` keeps it valid; should it ever not be, an empty dashboard
        // (which says so) beats a crash.
        return report?.config ?? DashboardConfig(panels: [])
    }
}
