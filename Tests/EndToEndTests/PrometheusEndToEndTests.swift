#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// `Examples/prometheus.json` with the real binaries: `widgethost` in tmux reading the real
/// Prometheus that scrapes the real node exporter, both started by the test on loopback ports
/// (the example's `url`s pointed at them), then `widgethost snapshot` from the dashboard's
/// state directory.
@Suite("prometheus, end to end", .serialized, .onOwnThreads)
struct PrometheusEndToEndTests {
    @Test("Examples/prometheus.json: check-config passes, widgets lists the kind, every panel shows this machine's data; a snapshot from the state directory shows it again")
    func example() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let stack = try ScriptServer.prometheus(directory: home.path)
        defer { stack.stop() }
        let exporter = try #require(stack.extras.first)
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/EndToEndTests/PrometheusEndToEndTests.swift
        let example = try #require(FileManager.default.contents(atPath: parts.joined(separator: "/") + "/Examples/prometheus.json")
            .map { String(decoding: $0, as: UTF8.self) })
        #expect(example.contains("\"url\": \"http://127.0.0.1:9090\""))
        let config = try home.write("config.json", example.replacingOccurrences(of: "http://127.0.0.1:9090", with: stack.url))
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path)

        let check = try Subprocess.run([widgethost, "check-config", config], environment: environment, timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(check.status == 0 && check.standardOutput.hasSuffix(": ok\n"), "\(check.standardOutput)\(check.standardError)")
        let widgets = try Subprocess.run([widgethost, "widgets"], environment: environment, timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(widgets.standardOutput.contains("prometheus: Prometheus."), "\(widgets.standardOutput)")

        let state = home.path + "/state"
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost, "--config", config, "--state-dir", state], size: (100, 30), environment: environment)
        let live = tmux.waitFor(timeout: .seconds(40), description: "every panel with data") { screen in
            !anyRow(screen, containsAll: "fetching") && text(screen).ranges(of: "updated").count == 7
        }
        #expect(ScreenGrid(live).boxes().boxes.count == 7 && ScreenGrid(live).boxes().problems.isEmpty, "\(text(live))")
        #expect(anyRow(live, containsAll: "cpu 0", "%") && anyRow(live, containsAll: "node_load1")
                && anyRow(live, containsAll: "node " + exporter, "1") && anyRow(live, containsAll: "available"), "\(text(live))")
        #expect(!anyRow(live, containsAll: "⚠"), "\(text(live))")
        for title in ["CPU by core", "Load", "Disk I/O per second", "Network per second", "Targets", "Memory free", "Disk free"] {
            #expect(live.contains { $0.contains("┌ " + title) }, "\(title)\n\(text(live))")
        }
        try tmux.sendText("q")
        tmux.waitForExit()

        // The answers the dashboard kept are what a snapshot from its state directory shows.
        let snapshot = try Subprocess.run([widgethost, "snapshot", "--config", config, "--state-dir", state, "--size", "100x30", "--wait", "20"],
                                          environment: environment, timeout: TestTimeScale.scaled(.seconds(60)))
        #expect(snapshot.status == 0, "\(snapshot.standardError)")
        let frame = snapshot.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(anyRow(frame, containsAll: "cpu 0", "%") && anyRow(frame, containsAll: "node " + exporter, "1")
                && anyRow(frame, containsAll: "node_load1") && anyRow(frame, containsAll: "available"), "\(snapshot.standardOutput)")
        #expect(!anyRow(frame, containsAll: "⚠"), "\(snapshot.standardOutput)")
    }
}
