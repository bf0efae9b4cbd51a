import Synchronization
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private let t0 = ContinuousClock.now

private func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

private func entry(_ target: String) -> AccessLogEntry {
    AccessLogEntry(remoteAddress: "127.0.0.1", method: "GET", target: target, status: 200, bytesSent: 2,
                   duration: .zero, fault: .none)
}

@Suite("access log limiter")
struct AccessLogLimiterTests {
    @Test("the first N requests of a second are written, the rest counted in one summary when it is over")
    func limitsAndSummarises() {
        var limiter = AccessLogLimiter(linesPerSecond: 3)
        let burst = (0..<10).map { limiter.admit(at: at($0)) }
        #expect(burst.map(\.write) == [true, true, true] + Array(repeating: false, count: 7))
        #expect(burst.allSatisfy { $0.summary == nil })
        #expect(limiter.admit(at: at(999)).write == false)
        let next = limiter.admit(at: at(1000))
        #expect(next == .init(summary: "… 8 more requests not logged", write: true))
    }

    @Test("a flush before the second is over says nothing; after it, the summary once")
    func flush() {
        var limiter = AccessLogLimiter(linesPerSecond: 1)
        _ = limiter.admit(at: at(0))
        _ = limiter.admit(at: at(1))
        _ = limiter.admit(at: at(2))
        #expect(limiter.flush(at: at(500)) == nil)
        #expect(limiter.flush(at: at(1500)) == "… 2 more requests not logged")
        #expect(limiter.flush(at: at(5000)) == nil)
        #expect(limiter.admit(at: at(5001)) == .init(summary: nil, write: true))
    }

    @Test("no summary when nothing was dropped; a quiet stream is logged whole")
    func quiet() {
        var limiter = AccessLogLimiter(linesPerSecond: 2)
        let decisions = stride(from: 0, to: 10_000, by: 600).map { limiter.admit(at: at($0)) }
        #expect(decisions.allSatisfy { $0 == .init(summary: nil, write: true) })
        #expect(limiter.finish() == nil)
    }

    @Test("20,000 requests in 1.8 s at 20 lines a second: 40 lines and two summaries")
    func flood() {
        let written = Mutex<[String]>([])
        let log = LimitedAccessLog(linesPerSecond: 20) { line in written.withLock { $0.append(line) } }
        for i in 0..<20_000 { log.log(entry("/healthz"), at: at(i * 9 / 100)) }   // 0 … 1799 ms
        log.finish()
        let lines = written.withLock { $0 }
        #expect(lines.count == 42)
        #expect(lines.filter { $0.hasPrefix("127.0.0.1 \"GET /healthz\"") }.count == 40)
        #expect(lines.filter { $0.hasPrefix("… ") }.count == 2)
        let counted = lines.compactMap { line -> Int? in
            line.hasPrefix("… ") ? Int(line.dropFirst(2).prefix { $0 != " " }) : nil
        }
        #expect(counted.reduce(0, +) == 20_000 - 40)
    }

    @Test("a service with a limit logs a pipelined flood in bounded lines, every request accounted for")
    func service() throws {
        var config = LeaderboardServiceConfiguration(port: 0)
        config.seed = 1
        config.accessLogLinesPerSecond = 5
        let lines = Mutex<[String]>([])
        let service = LeaderboardService(configuration: config, log: { line in lines.withLock { $0.append(line) } })
        let port = try service.start()
        let started = ContinuousClock.now
        let client = try RawClient(port: port)
        client.send(String(repeating: get("/healthz"), count: 199) + get("/healthz", "Connection: close\r\n"))
        for _ in 0..<200 { _ = try client.readResponse() }
        #expect(try client.readToEnd().isEmpty)
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        service.stop()
        let logged = lines.withLock { $0 }
        let requests = logged.filter { !$0.hasPrefix("… ") }
        #expect(Double(requests.count) <= 5 * (seconds.rounded(.up) + 1))
        let counted = logged.compactMap { line -> Int? in
            line.hasPrefix("… ") ? Int(line.dropFirst(2).prefix { $0 != " " }) : nil
        }
        #expect(requests.count + counted.reduce(0, +) == 200)
    }
}
