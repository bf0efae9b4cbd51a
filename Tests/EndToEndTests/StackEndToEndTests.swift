#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// The Smart Stack with real relevance: two hero cards (relevance = how much health a hero
/// lacks) in a stack next to the leaderboard that fetches their board, from a
/// `leaderboard-server` on 127.0.0.1 whose heal pushes an event.
@Suite("stack, end to end", .serialized, .onOwnThreads)
struct StackEndToEndTests {
    @Test("healing the hero shown to full health drops its relevance to 0: the stack turns to the other, even after a flip by hand")
    func rotatesByRelevance() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let server = try LeaderboardProcess.start(arguments: ["--tick", "3600", "--quiet"], logDirectory: home.path)
        defer { server.stop() }
        let events = String(server.url.dropLast("/leaderboard".count)) + "/events"
        let config = try home.write("config.json", """
            { "minimumReloadSeconds": 1,
              "panels": [
                { "kind": "leaderboard", "family": "large", "title": "Board",
                  "options": { "url": "\(server.url)", "refreshSeconds": 600, "push": "\(events)" } },
                { "kind": "stack", "family": "medium",
                  "panels": [ { "kind": "hero", "title": "Spouty", "options": { "name": "Spouty" } },
                              { "kind": "hero", "title": "Cake", "options": { "name": "Cake" } } ] } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (100, 30), environment: TmuxHarness.isolatedEnvironment(home: home.path))
        // Both cards loaded (each shows its level); which one a tie shows depends on which came first.
        let loaded = tmux.waitFor(description: "the stack with a hero card") { screen in
            anyRow(screen, containsAll: "┌ Spouty · Cake ") && anyRow(screen, containsAll: "level") && anyRow(screen, containsAll: "live")
        }
        if anyRow(loaded, containsAll: "┌ Spouty · Cake 2/2") {
            // Cake is shown: flip by hand to Spouty (Tab focuses the stack).
            try tmux.sendKeys("Tab")
            try tmux.sendText("[")
        }
        tmux.waitFor(description: "Spouty shown") { anyRow($0, containsAll: "┌ Spouty · Cake 1/2") }
        // Spouty (0.99) healed by 0.25 is at full health: relevance 0, so Cake (0.67) is the most relevant.
        #expect(try Self.post(port: server.port, path: "/heroes/Spouty/heal") == 202)
        let rotated = tmux.waitFor(timeout: .seconds(30), description: "the stack turned to Cake") { screen in
            anyRow(screen, containsAll: "┌ Spouty · Cake 2/2")
        }
        #expect(ScreenGrid(rotated).boxes().problems.isEmpty, "\(text(rotated))")
        try tmux.sendText("q")
        tmux.waitForExit()
    }

    /// Sends `POST path` with an empty body to 127.0.0.1:`port`; returns the status code.
    static func post(port: Int, path: String) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HarnessError("connect to port \(port): \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw HarnessError("send: \(errno)") }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 12 else { throw HarnessError("no answer to POST \(path)") }
        // "HTTP/1.1 202 Accepted"
        return Int(String(decoding: buffer[9..<12], as: UTF8.self)) ?? 0
    }
}
