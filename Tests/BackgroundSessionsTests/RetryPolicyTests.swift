import BackgroundSessions
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("waits double per attempt, are scaled by the jitter and capped")
    func backoff() {
        let low = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(500), jitter: { 0 })
        let high = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(500), jitter: { 1 })
        #expect(low.delay(afterAttempt: 1) == .milliseconds(50))
        #expect(high.delay(afterAttempt: 1) == .milliseconds(100))
        #expect(high.delay(afterAttempt: 2) == .milliseconds(200))
        #expect(high.delay(afterAttempt: 3) == .milliseconds(400))
        #expect(high.delay(afterAttempt: 4) == .milliseconds(500))
        #expect(high.delay(afterAttempt: 40) == .milliseconds(500))
    }

    @Test("Retry-After is read as seconds or as an HTTP date relative to now")
    func retryAfter() {
        let now = 784111777.0  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:39 GMT", now: now) == .seconds(2))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:39 GMT", now: now + 0.5) == .milliseconds(1500))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("Sun, 32 Nov 1994 08:49:39 GMT", now: now) == nil)
    }
}
