/// The one place a `Duration` becomes seconds or milliseconds: any value, extremes included,
/// without trapping and without dropping fractions.
extension Duration {
    /// The duration in seconds with its fraction (attoseconds included), as a Double.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded up so that a wait is never shortened: 0 for a duration of
    /// zero or less, `Int64.max` for one too long to count in milliseconds.
    public var wholeMillisecondsRoundedUp: Int64 {
        if self <= .zero { return 0 }
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int64.max }
        // attoseconds is below 10^18, so the rounded-up part is at most 1000.
        let (total, overflowAdding) = milliseconds.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return overflowAdding ? Int64.max : total
    }
}
