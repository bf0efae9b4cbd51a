#if canImport(Glibc)
import Glibc
#endif
import LeaderboardServer
import Synchronization
import TerminalUI
import Testing
@testable import WidgetHost

@Suite("bundled server's access log")
struct BundledServerLogTests {
    @Test("the default dashboard's bundled server logs a request flood in bounded lines")
    func boundedAccessLog() throws {
        var setup = DashboardSetup(config: DashboardBuilder.defaultConfig(leaderboardURL: DashboardBuilder.defaultLeaderboardURL),
                                   configPath: nil, theme: Theme.default)
        let lines = LockedLines()
        guard case .success(let started) = setup.startBundledServer(log: { lines.append($0) }, catalog: .builtin()),
              let service = started, let port = service.port else {
            Issue.record("the bundled server did not start")
            return
        }
        defer { service.stop() }
        #expect(service.configuration.accessLogLinesPerSecond == 20)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let floodStart = ContinuousClock.now
        let request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        let flood = Array((String(repeating: request, count: 1999) + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8)
        _ = flood.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
        let seconds = (ContinuousClock.now - floodStart) / .seconds(1)
        let requests = lines.all.filter { !$0.hasPrefix("… ") }
        #expect(Double(requests.count) <= 20 * (seconds.rounded(.up) + 1), "\(requests.count) lines in \(seconds) s")
    }
}

private final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
