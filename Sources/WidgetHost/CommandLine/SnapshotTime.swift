import DateTime
import FoundationEssentials

/// The moment `snapshot --at` renders: a fixed date or an offset from now.
public enum SnapshotTime: Sendable, Equatable {
    /// An absolute moment (`2026-11-30T05:00:00Z`, `2026-11-30T06:00:00+01:00`).
    case absolute(Date)
    /// Seconds after the moment the snapshot starts (`+90s`, `+5m`, `+2h`).
    case relative(seconds: Int)

    /// Furthest relative offset accepted: 366 days.
    public static let maximumOffset = 366 * 86_400

    /// The date this stands for, given the current one.
    public func date(now: Date) -> Date {
        switch self {
        case .absolute(let date): date
        case .relative(let seconds): now.addingTimeInterval(TimeInterval(seconds))
        }
    }

    /// Parses `--at`'s argument; nil when it is neither form.
    ///
    /// Absolute: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or an offset `±HH:MM`
    /// (a time without a zone is rejected: it would depend on the machine). Relative: `+`,
    /// digits, then `s`, `m` or `h`, at most `maximumOffset`.
    public init?(parsing text: String) {
        if text.hasPrefix("+") {
            guard let seconds = Self.parseRelative(text.dropFirst()) else { return nil }
            self = .relative(seconds: seconds)
        } else {
            guard let date = ISO8601DateTime.parse(text, .commandLine)?.date else { return nil }
            self = .absolute(date)
        }
    }

    static func parseRelative(_ text: Substring) -> Int? {
        guard let unit = text.last, text.count >= 2, text.count <= 12 else { return nil }
        let digits = text.dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let amount = Int(digits) else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        default: return nil
        }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: scale)
        guard !overflow, seconds <= maximumOffset else { return nil }
        return seconds
    }
}
