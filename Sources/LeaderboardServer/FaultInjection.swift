/// Misbehaviour the server adds to routed requests, for testing clients.
///
/// Each routed request gets a number (0, 1, 2, … in the order the server reads them) and its
/// fault is a pure function of `seed` and that number, so a run is repeatable under a seed.
/// Rates are probabilities in 0…1 taken from one draw per request, in the order below; their
/// sum should not exceed 1.
public struct FaultInjection: Sendable, Equatable {
    /// How a 429 answer states its `Retry-After`.
    public enum RetryAfterForm: Sendable, Equatable {
        /// `Retry-After: N` (delta seconds).
        case seconds(Int)
        /// `Retry-After: <IMF-fixdate>` N seconds after the moment of the answer.
        case date(secondsAhead: Int)
    }

    public var seed: UInt64 = 0
    /// Answer `500 Internal Server Error` instead of the handler's response.
    public var failureRate: Double = 0
    /// Answer `429 Too Many Requests` with `retryAfter`.
    public var tooManyRequestsRate: Double = 0
    public var retryAfter: RetryAfterForm = .seconds(1)
    /// Send the headers with the full `Content-Length`, half the body, then close.
    public var truncateRate: Double = 0
    /// Replace the body with seeded random bytes of the same length.
    public var garbageRate: Double = 0
    /// Close the connection with a TCP reset (SO_LINGER 0) without answering.
    public var resetRate: Double = 0
    /// Delay before every routed answer (cut short by `stop()`).
    public var delay: Duration = .zero

    public init() {}

    /// The fault for the request numbered `n`.
    public func fault(forRequest n: UInt64) -> Fault {
        let draw = Double(Self.mix(seed ^ (n &* 0x9E37_79B9_7F4A_7C15)) >> 11) / Double(1 << 53)
        var edge = failureRate
        if draw < edge { return .serverError }
        edge += tooManyRequestsRate
        if draw < edge { return .tooManyRequests }
        edge += truncateRate
        if draw < edge { return .truncatedBody }
        edge += garbageRate
        if draw < edge { return .garbageBody }
        edge += resetRate
        if draw < edge { return .connectionReset }
        return .none
    }

    /// Seeded bytes for a garbage body of request `n`.
    func garbage(count: Int, forRequest n: UInt64) -> [UInt8] {
        var state = seed ^ (n &* 0xD1B5_4A32_D192_ED03) ^ 0x5555
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var word = Self.mix(state)
            for _ in 0..<8 where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The misbehaviour chosen for one request.
public enum Fault: String, Sendable, Equatable {
    case none, serverError, tooManyRequests, truncatedBody, garbageBody, connectionReset
}
