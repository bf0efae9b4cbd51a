import FoundationEssentials
import LeaderboardServer
import TerminalUI
import Testing
import WidgetTestSupport
@testable import WidgetHost

/// The sizes DESIGN.md §9 and issue 24 name.
private let sizes = [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 100, rows: 30),
                     TerminalSize(columns: 160, rows: 48), TerminalSize(columns: 200, rows: 60)]

/// 2026-11-30T10:00:00Z: a fixed moment, so the clock's and countdown's texts are the same every run.
private let start = Date(timeIntervalSince1970: 1_796_032_800)

/// `Examples/NAME` in this repository.
private func example(_ name: String) throws -> String {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/WidgetHostTests/PanelHolesTests.swift
    let path = parts.joined(separator: "/") + "/Examples/" + name
    return try #require(FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) })
}

@Suite("No holes inside panels (DESIGN.md §9): views fill the size they get", .serialized)
@MainActor
struct PanelHolesTests {
    /// Opens `configPath` (nil: the default dashboard) headless, lets half a minute pass (the
    /// system panel has readings to draw, the leaderboard its board), and checks each size.
    private func check(configPath: String?, panels: Int, except: Set<String> = [],
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let home = TemporaryDirectory()
        defer { home.remove() }
        let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: home.path)
        let dashboard = try HeadlessDashboard.open(catalog: .builtin(), configPath: configPath, size: sizes[0], now: start,
                                                   environment: environment).get()
        defer { dashboard.close() }
        #expect(await dashboard.settle(within: 30), sourceLocation: sourceLocation)
        #expect(await dashboard.run(for: 30, settleWithin: 30), sourceLocation: sourceLocation)
        for size in sizes {
            dashboard.resize(to: size)
            #expect(await dashboard.settle(within: 30), sourceLocation: sourceLocation)
            let frame = dashboard.render()
            let areas = PanelBlankAreas(frame)
            let text = TextBackend.lines(frame).joined(separator: "\n")
            #expect(areas.panels.count == panels, "\(size.columns)x\(size.rows): \(areas.panels)\n\(text)",
                    sourceLocation: sourceLocation)
            let holes = areas.holes(except: except)
            #expect(holes.isEmpty, "\(size.columns)x\(size.rows): \(holes.map(\.description).joined(separator: "; "))\n\(text)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("the default dashboard (its bundled leaderboard server) at 80x24, 100x30, 160x48 and 200x60")
    func defaultDashboard() async throws {
        try await check(configPath: nil, panels: 4)
    }

    @Test("Examples/leaderboard.json and every-widget.json against a leaderboard server on 127.0.0.1, at the four sizes",
          arguments: ["leaderboard.json", "every-widget.json"])
    func examples(name: String) async throws {
        // Examples/prometheus.json is left out: every panel needs a Prometheus server on
        // 127.0.0.1:9090 (its end-to-end test runs one, PrometheusEndToEndTests).
        var configuration = LeaderboardServiceConfiguration(host: "127.0.0.1", port: 0)
        configuration.seed = 7
        let server = LeaderboardService(configuration: configuration, log: nil)
        let port = try server.start()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(name, try example(name).replacing("127.0.0.1:8787", with: "127.0.0.1:\(port)"))
        if name == "every-widget.json" {
            // The command's one line of `df` and the note's sentence are texts shorter than
            // their panels (§9's exception).
            try await check(configPath: config, panels: 8, except: ["Disk", "Note"])
        } else {
            try await check(configPath: config, panels: 3)
        }
    }
}
