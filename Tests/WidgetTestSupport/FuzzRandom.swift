import WidgetCore

/// The fuzz tests' generator: WidgetCore's `SplitMix64` with a fixed seed, so a failing run
/// can be repeated from the seed it prints.
public struct FuzzRandom: RandomNumberGenerator {
    private var base: SplitMix64

    public init(seed: UInt64) { base = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { base.next() }

    /// A number in 0..<n (0 when n ≤ 0).
    public mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

    /// One of `items` (not empty).
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// `count` decimal digits.
    public mutating func digits(count: Int) -> String { String((0..<count).map { _ in Character(String(below(10))) }) }
}
