import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost

@Suite("The default dashboard's config")
struct DefaultDashboardTests {
    @Test("it is a config like any other: valid for the built-in catalogue, without warnings, options defaulted from the manifests")
    func validThroughTheValidator() throws {
        let json = DashboardBuilder.defaultConfigJSON(leaderboardURL: "http://127.0.0.1:9999/leaderboard")
        let report = try ConfigLoader(validator: Catalog.builtin().validator()).load(bytes: Array(json.utf8), path: "default")
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
        let config = DashboardBuilder.defaultConfig(leaderboardURL: "http://127.0.0.1:9999/leaderboard")
        #expect(config.panels.map(\.kind) == ["leaderboard", "hero", "clock", "system"])
        #expect(config.panels.map(\.family) == [.large, .small, .small, .medium])
        let board = config.panels[0].options
        #expect(board.string("url") == "http://127.0.0.1:9999/leaderboard")
        #expect(board.string("push") == "http://127.0.0.1:9999/events")
        // Everything else comes from the manifests' defaults, not a copy here.
        let catalog = Catalog.builtin()
        for panel in config.panels {
            let manifest = try #require(catalog.manifest(kind: panel.kind))
            for option in manifest.options where option.defaultValue != nil && !["url", "push", "name"].contains(option.name) {
                #expect(panel.options[option.name] == option.defaultValue, "\(panel.kind).\(option.name)")
            }
        }
    }

    @Test("a catalogue without some kinds keeps the panels it has")
    func partialCatalogue() {
        let catalog = Catalog(Catalog.builtin().definitions.filter { $0.manifest.kind != "system" })
        let config = DashboardBuilder.defaultConfig(leaderboardURL: DashboardBuilder.defaultLeaderboardURL, catalog: catalog)
        #expect(config.panels.map(\.kind) == ["leaderboard", "hero", "clock"])
    }
}
