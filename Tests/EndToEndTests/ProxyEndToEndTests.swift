import Testing
import WidgetTestSupport

/// Proxy variables in the user's environment, with the dashboard's own loopback server.
@Suite("widgethost behind a proxy, end to end", .serialized, .onOwnThreads)
struct ProxyEndToEndTests {
    @Test("with http_proxy pointing nowhere, the default dashboard still reaches its bundled server (issue 10, item 8)")
    func bogusProxyLeavesLoopbackAlone() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        // Port 9 (discard) has no listener here: anything sent through this proxy fails.
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: [
            "http_proxy": "http://127.0.0.1:9", "ALL_PROXY": "http://127.0.0.1:9",
        ])
        let result = try Subprocess.run([try BuiltProducts.executable("widgethost"), "snapshot",
                                         "--size", "100x30", "--wait", "20"],
                                        environment: environment, timeout: TestTimeScale.scaled(.seconds(60)))
        #expect(result.status == 0, "snapshot failed: \(result.standardError)")
        let screen = result.standardOutput
        for hero in ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"] {
            #expect(screen.contains(hero), "\(hero) missing from the board:\n\(screen)")
        }
        #expect(!screen.contains("no board"), "\(screen)")
    }
}
