@testable import BackgroundSessions
import Testing
import WidgetTestSupport

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

    @Test("a jitter source outside 0...1 or NaN keeps the wait within its bounds")
    func wildJitter() {
        for value in [Double.nan, .infinity, -.infinity, 7, -3] {
            let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(500), jitter: { value })
            let delay = policy.delay(afterAttempt: 1)
            #expect(delay >= .milliseconds(50) && delay <= .milliseconds(100), "jitter \(value) gave \(delay)")
        }
    }

    @Test("Retry-After is read as seconds or as an HTTP date relative to now")
    func retryAfter() {
        let now = 784111777.0  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:39 GMT", now: now) == .seconds(2))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:39 GMT", now: now + 0.5) == .milliseconds(1500))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("Thu, 01 Jan 1970 00:00:00 GMT", now: 0) == .zero)
        #expect(RetryAfter.parse("Mon, 07 Nov 1994 08:49:37 GMT", now: now) == .seconds(86_400))
        #expect(RetryAfter.parse("Wed, 29 Feb 2028 00:00:00 GMT", now: 1_835_395_200 - 60) == .seconds(60))
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("Sun, 32 Nov 1994 08:49:39 GMT", now: now) == nil)
    }

    @Test("a huge Retry-After reads as the longest wait, never a trap (issue 10, item 1)")
    func hugeRetryAfter() {
        let now = 1_796_000_000.0
        // Delta seconds past what milliseconds (or even Int64) can hold.
        #expect(RetryAfter.parse("9223372036854775807", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("10000000000000000", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("99999999999999999999999999999", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("86400000", now: now) == .seconds(86_400_000))
        // HTTP dates whose year overflowed `Int32(year - 1900)` or the wait's Int64.
        #expect(RetryAfter.parse("Sun, 06 Nov 99999999999 08:49:37 GMT", now: now) == nil)
        #expect(RetryAfter.parse("Sun, 06 Nov 2000000000 08:49:37 GMT", now: now) == nil)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.longest)
        #expect(RetryAfter.parse("Fri, 31 Dec 2100 23:59:59 GMT", now: now) == .seconds(4_133_980_799 - 1_796_000_000))
        // A wall clock that is not a number gives no wait rather than a trap.
        #expect(RetryAfter.parse("Fri, 31 Dec 2100 23:59:59 GMT", now: .nan) == nil)
        #expect(RetryAfter.parse("Fri, 31 Dec 2100 23:59:59 GMT", now: -.infinity) == nil)
    }

    @Test("the transport's millisecond and text forms of a wait saturate instead of trapping")
    func transportFormsSaturate() {
        #expect(NetworkLoop.milliseconds(.seconds(Int64.max)) == Int.max)
        #expect(NetworkLoop.milliseconds(.seconds(10_000_000_000_000_000)) == Int.max)
        #expect(NetworkLoop.milliseconds(.seconds(9_223_372_036_854_775)) == 9_223_372_036_854_775_000)
        #expect(NetworkLoop.milliseconds(.seconds(9_223_372_036_854_775) + .milliseconds(807)) == Int.max)
        #expect(NetworkLoop.milliseconds(.milliseconds(1.5)) == 2)
        #expect(NetworkLoop.milliseconds(.seconds(-5)) == 0)
        #expect(NetworkLoop.seconds(.seconds(Int64.max)).hasSuffix(" s"))
        #expect(NetworkLoop.seconds(RetryAfter.longest) == "3153600000 s")
    }

    /// Seed of the Retry-After fuzz test; printed with any failure so it can be replayed.
    static let fuzzSeed: UInt64 = 0x5EED_A17E_0010

    @Test("fuzz: any Retry-After value gives nil or a wait in 0...longest, and formats without trapping")
    func fuzzRetryAfter() {
        var random = FuzzRandom(seed: Self.fuzzSeed)
        let days = ["Mon,", "Tue,", "Sun,", "Xyz,", "", "Mon"]
        let months = ["Jan", "Feb", "Nov", "Dec", "Foo", ""]
        var failures: [String] = []
        for iteration in 0..<20_000 {
            let value: String
            switch random.below(5) {
            case 0:  // delta seconds of any length
                value = random.digits(count: random.below(40))
            case 1:  // a well-shaped date with fields of any size
                value = "\(random.pick(days)) \(random.digits(count: 1 + random.below(4))) \(random.pick(months)) "
                    + "\(random.digits(count: 1 + random.below(14))) \(random.digits(count: 2)):\(random.digits(count: 2)):"
                    + "\(random.digits(count: 2)) GMT"
            case 2:  // a valid date, then one character changed
                var scalars = Array("Sun, 06 Nov 1994 08:49:37 GMT".unicodeScalars)
                scalars[random.below(scalars.count)] = random.scalar()
                value = String(String.UnicodeScalarView(scalars))
            case 3:  // noise
                value = String(String.UnicodeScalarView((0..<random.below(40)).map { _ in random.scalar() }))
            default:  // signs, spaces, exponents around numbers
                value = random.pick(["", " ", "+", "-", "\t"]) + random.digits(count: 1 + random.below(25))
                    + random.pick(["", " ", "e9", ".5", "\t", "s"])
            }
            let now = random.below(4) == 0 ? random.pick([0, -1e18, 1e18, 4e9, .greatestFiniteMagnitude])
                                           : 1_700_000_000 + Double(random.below(1_000_000_000))
            let wait = RetryAfter.parse(value, now: now)
            if let wait, wait < .zero || wait > RetryAfter.longest {
                failures.append("#\(iteration) \(value.debugDescription) at \(now) gave \(wait)")
            }
            if let wait { _ = NetworkLoop.seconds(wait) }
        }
        #expect(failures.isEmpty, "fuzz seed \(Self.fuzzSeed): \(failures.prefix(5))")
    }
}

extension FuzzRandom {
    mutating func scalar() -> Unicode.Scalar {
        switch below(6) {
        case 0: return Unicode.Scalar(UInt8(below(32)))
        case 1: return Unicode.Scalar(UInt32(0xA0 + below(0xD000))) ?? "?"
        default: return Unicode.Scalar(UInt8(32 + below(95)))
        }
    }
}
