import BackgroundSessions
import Glibc
import LeaderboardServer
import Synchronization
import Testing
import WidgetCore

/// A wall clock stopped at a chosen second; the monotonic clock runs (curl's waits are real).
private struct StoppedWallClock: TransportClock {
    var wallNow: Double
    var now: ContinuousClock.Instant { .now }
}

/// A transport for these tests: no proxy, short waits, the jitter left to the seed.
private func transport(seed: UInt64, clock: any TransportClock = SystemTransportClock(),
                       maxAttempts: Int = 3) throws -> CurlTransport {
    var config = CurlTransportConfiguration()
    config.noProxy = "127.0.0.1,localhost"
    config.retry = RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(40))
    return try CurlTransport(configuration: config, clock: clock, randomSeed: seed)
}

private func retryDelays(_ outcome: Outcome) -> [Duration] {
    outcome.retries.compactMap { event in
        if case .retrying(_, let delay, _) = event { return delay }
        return nil
    }
}

@Suite("Curl transport: clock and seeded jitter", .serialized)
struct TransportClockTests {
    @Test("a Retry-After date is read against the transport's clock, not the system's")
    func retryAfterDateUsesInjectedClock() async throws {
        let (server, base) = try loopbackServer {
            $0.route("/busy") { _ in
                var r = HTTPResponse.text("busy", status: 503)
                r.headers.set("Retry-After", "Sat, 01 Jan 2000 00:00:01 GMT")
                return r
            }
        }
        defer { server.stop() }
        // 2000-01-01T00:00:00Z: the server's date is one second ahead of this clock (and 26
        // years behind the system's, which would read it as "retry now").
        let clock = StoppedWallClock(wallNow: 946_684_800)
        let dir = ScratchDirectory()
        let outcome = await run(try transport(seed: 1, clock: clock, maxAttempts: 2),
                                TransferRequest(url: base + "/busy", directory: dir.path, fileName: "f"))
        #expect(retryDelays(outcome) == [.seconds(1)])
        #expect(outcome.result.failure?.attempts == 2)
    }

    @Test("retry jitter comes from the seed: the same seed gives the same waits, another seed others")
    func jitterIsSeeded() async throws {
        let (server, base) = try loopbackServer { $0.route("/down") { _ in .text("boom", status: 500) } }
        defer { server.stop() }
        let dir = ScratchDirectory()
        func delays(seed: UInt64) async throws -> [Duration] {
            retryDelays(await run(try transport(seed: seed), TransferRequest(url: base + "/down", directory: dir.path, fileName: "f")))
        }
        let first = try await delays(seed: 42)
        let again = try await delays(seed: 42)
        let other = try await delays(seed: 43)
        // What the policy gives for the seed's first two draws.
        var random = SplitMix64(seed: 42)
        let policy = RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(40))
        let expected = (1...2).map { policy.delay(afterAttempt: $0, jitter: random.nextUnit()) }
        #expect(first == expected)
        #expect(again == expected, "a new transport with the same seed repeats the waits")
        #expect(other.count == 2 && other != expected)
    }
}
