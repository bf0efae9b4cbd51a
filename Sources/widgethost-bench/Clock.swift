#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds (CLOCK_MONOTONIC).
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Seconds since `start` (monotonic nanoseconds).
func seconds(since start: UInt64) -> Double { Double(monotonicNanos() &- start) / 1e9 }

func fflushStdout() { fflush(nil) }

/// Writes `text` to standard error.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func sleepMilliseconds(_ ms: Int) { usleep(useconds_t(ms * 1000)) }

/// The value at quantile `q` (0…1) of `values`, nearest rank; NaN when empty.
func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// Keeps the optimiser from removing work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
