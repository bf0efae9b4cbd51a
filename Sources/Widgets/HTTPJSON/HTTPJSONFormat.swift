import FoundationEssentials
import JSONTree
import WidgetCore

/// How an `http-json` field shows its value (the `format` of a field).
///
/// Every value comes from the network, so nothing here traps or trusts a number: non-finite
/// or huge values fall back to their JSON text, durations and ages saturate
/// (`DurationText`), and text is cut to `maximumLength` (the terminal's sanitiser makes any
/// control character inert when it is drawn).
public enum HTTPJSONFormat: String, Sendable, CaseIterable, Codable {
    /// The value as it is: strings without quotes, other values as JSON.
    case text
    /// A number with thousands separators and at most two decimals: `12,345.68`.
    case number
    /// A ratio as a percentage: `0.425` → `42.5%`.
    case percent
    /// A count of bytes in binary units: `1536` → `1.5 KiB`.
    case bytes
    /// Seconds as a duration: `8100` → `2h 15m`.
    case duration
    /// A moment (ISO 8601 text, or seconds since 1970) as an age or a wait: `5m ago`, `in 2h`.
    case relativeTime = "relative-time"

    /// The longest text a row shows (the rest is cut off before layout).
    public static let maximumLength = 200

    /// `value` formatted for a panel at `now`. A value the format cannot read (text where a
    /// number is expected) is shown as text.
    public func format(_ value: JSONValue, now: Date) -> String {
        let text: String
        switch (self, value) {
        case (.number, _): text = Self.number(value).map { DecimalText.grouped($0, decimals: 2) } ?? Self.text(value)
        case (.percent, _): text = Self.number(value).map { DecimalText.grouped($0 * 100, decimals: 1) + "%" } ?? Self.text(value)
        case (.bytes, _): text = Self.number(value).map(ByteCountText.readable) ?? Self.text(value)
        case (.duration, _):
            guard let seconds = Self.number(value) else { text = Self.text(value); break }
            text = seconds < 0 ? "-" + DurationText.duration(-seconds) : DurationText.duration(seconds)
        case (.relativeTime, _):
            guard let date = Self.date(value) else { text = Self.text(value); break }
            let seconds = date.timeIntervalSince(now)
            text = seconds >= 60 ? "in " + DurationText.duration(seconds) : DurationText.age(from: date, to: now) + " ago"
        case (.text, _): text = Self.text(value)
        }
        return text.count > Self.maximumLength ? String(text.prefix(Self.maximumLength - 1)) + "…" : text
    }

    /// A value a preview shows for a field of this format (`snapshot` with `isPreview`): the
    /// examples of the formats' docs above, a moment five minutes before `now`.
    public func sample(now: Date) -> JSONValue {
        switch self {
        case .text: .string("sample")
        case .number: .number(12345.68)
        case .percent: .number(0.425)
        case .bytes: .integer(1536)
        case .duration: .integer(8100)
        case .relativeTime: .number(now.timeIntervalSince1970 - 300)
        }
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): return String(string.prefix(maximumLength + 1))
        case .integer(let integer): return String(integer)
        case .number(let number):
            // 2.0 reads "2": a feed's number is not a config the reader must correct.
            if number.isFinite, abs(number) < 1e15, let integer = Int64(exactly: number) { return String(integer) }
            return JSONValue.render(number)
        default:
            let json = value.jsonText
            return json.count > maximumLength ? String(json.prefix(maximumLength + 1)) : json
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number) where number.isFinite: return number
        default: return nil
        }
    }

    /// A moment: seconds since 1970 (years 1…9999 only), or ISO 8601 text
    /// (`2026-11-30T05:00:00Z`, with fractional seconds or an offset).
    static func date(_ value: JSONValue) -> Date? {
        let seconds: Double?
        switch value {
        case .integer(let integer): seconds = Double(integer)
        case .number(let number): seconds = number
        case .string(let text):
            guard text.utf8.count <= 64 else { return nil }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
