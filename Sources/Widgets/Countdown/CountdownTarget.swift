import DateTime
import FoundationEssentials

/// When a countdown ends, as its `to` option writes it: ISO 8601 with an offset
/// (`2026-12-31T23:59:00+01:00`, `…Z`), or a local date and time (`2026-12-31T23:59`,
/// `2026-12-31`) read in the host's zone.
///
/// The one parser of `to`: the config checker (`OptionType.dateTime`) and the provider both use
/// it, so a value the config accepts is one the widget can count down to.
public enum CountdownTarget: Sendable, Equatable {
    /// A moment: the text had `Z` or an offset.
    case absolute(Date)
    /// A wall-clock time in the local zone, resolved when the provider is made.
    case local(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)

    /// Years a target may have.
    public static let years = ISO8601DateTime.Syntax.countdown.years

    /// The target `text` names, or nil when it is not one of the accepted forms or not a real
    /// date (`2026-02-30`, `24:00`).
    ///
    /// Forms: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS`, seconds optionally with
    /// a fraction (dropped), then optionally `Z`, `±HH:MM` or `±HHMM`.
    public static func parse(_ text: String) -> CountdownTarget? {
        guard let parsed = ISO8601DateTime.parse(text, .countdown) else { return nil }
        guard let offset = parsed.offset else {
            return .local(year: parsed.year, month: parsed.month, day: parsed.day,
                          hour: parsed.hour, minute: parsed.minute, second: parsed.second)
        }
        // A countdown counts whole seconds: the fraction is dropped.
        return .absolute(Date(timeIntervalSince1970: TimeInterval(parsed.wallSeconds - Int64(offset))))
    }

    /// The moment the target stands for, a local one read in `zone` (a wall time skipped by a
    /// DST change counts with the offset before it).
    public func date(in zone: ZoneInfo) -> Date {
        switch self {
        case .absolute(let date):
            return date
        case let .local(year, month, day, hour, minute, second):
            let wall = CivilTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
            let guess = wall - Int64(zone.offset(at: Date(timeIntervalSince1970: TimeInterval(wall))).seconds)
            let offset = zone.offset(at: Date(timeIntervalSince1970: TimeInterval(guess))).seconds
            return Date(timeIntervalSince1970: TimeInterval(wall - Int64(offset)))
        }
    }
}
