/// SplitMix64: a small seeded generator, so a game under `--seed` is repeatable.
struct GameRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform value in `range` (lower ≤ x < upper).
    mutating func uniform(_ range: Range<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// A uniform integer in 0..<n (n > 0), by rejection so every value is equally likely.
    mutating func below(_ n: Int) -> Int {
        let bound = UInt64(n)
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let x = next()
            if x < limit { return Int(x % bound) }
        }
    }
}
