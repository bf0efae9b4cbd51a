import FoundationEssentials
import JSONTree
import WidgetCore
import Widgets

/// Turns a validated config into dashboard panels with live widget instances.
@MainActor
enum DashboardBuilder {
    /// Builds the panels of `config`, adding one driver instance per widget.
    ///
    /// A widget whose provider cannot be made (an option the system refuses, such as an
    /// unknown time zone file) becomes a panel that shows the reason instead of failing the
    /// whole dashboard.
    ///
    /// Panels in `reusing` whose config is unchanged are kept as they are — their instances,
    /// entries and schedules — so saving the config file does not flash every panel back to
    /// its placeholder or restart its reloads.
    static func panels(for config: DashboardConfig, widgets: BoundWidgets, driver: TimelineDriver,
                       reusing previous: [DashboardPanel] = []) -> [DashboardPanel] {
        var reusable = previous.filter { $0.config != nil && $0.setupError == nil }
        return config.panels.map { panelConfig in
            if let index = reusable.firstIndex(where: { $0.config == panelConfig }) {
                return reusable.remove(at: index)
            }
            let memberConfigs = panelConfig.members
            var panel = DashboardPanel(title: title(of: panelConfig, widgets: widgets), family: panelConfig.family, members: [],
                                       config: panelConfig)
            for memberConfig in memberConfigs {
                guard let widget = widgets.widget(kind: memberConfig.kind) else {
                    panel.setupError = "unknown widget kind '\(memberConfig.kind)'"
                    continue
                }
                do {
                    let options = memberConfig.options
                    let provider = try widget.makeProvider(options)
                    let memberTitle = title(of: memberConfig, widgets: widgets)
                    let id = driver.add(kind: widget.kind, family: panelConfig.family, size: .zero, provider: provider,
                                        pausable: widget.manifest.isPausable,
                                        info: WidgetCenter.WidgetInfo(kind: widget.kind, family: panelConfig.family,
                                                                      title: memberTitle, options: options),
                                        onLoop: widget.manifest.runsOnLoop)
                    panel.members.append(.init(id: id, widget: widget, title: memberTitle, options: options))
                } catch {
                    panel.setupError = "\(widget.kind): \(error)"
                }
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
