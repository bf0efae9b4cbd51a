import BackgroundSessions
import WidgetCore
import JSONTree

/// How values of the option types widgets declare in their manifests (`WidgetCore.OptionType`)
/// are checked and read: the one implementation, used by the host's config validator and by
/// the extension manifest reader (for defaults). The checks that need a widget's own parser
/// (zone names, countdown dates, JSON Pointers) call it here, next to it.
extension OptionType {
    /// Most strings in a `stringList`, entries in a `stringMap`, objects in an `objectList`.
    public static let maximumListCount = 256
    /// Longest key of a `stringMap`, in Unicode scalars.
    public static let maximumKeyLength = 256

    /// What a valid value looks like, for messages and `widgethost widgets`:
    /// `an integer ≥ 1`, `one of 'metric', 'imperial'`.
    public var expectation: String {
        switch self {
        case .string: return "a string"
        case .integer(let range): return "an integer" + OptionType.describe(range)
        case .number(let range):
            let low = range.lowerBound.isFinite ? Optional(range.lowerBound) : nil
            let high = range.upperBound.isFinite ? Optional(range.upperBound) : nil
            switch (low, high) {
            case let (low?, high?): return "a number in \(OptionType.format(low))…\(OptionType.format(high))"
            case let (low?, nil): return "a number ≥ \(OptionType.format(low))"
            case let (nil, high?): return "a number ≤ \(OptionType.format(high))"
            case (nil, nil): return "a number"
            }
        case .bool: return "true or false"
        case .oneOf(let choices): return "one of " + choices.map { "'\($0)'" }.joined(separator: ", ")
        case .url(let schemes): return "a URL (" + schemes.joined(separator: " or ") + ")"
        case .timeZone: return "a time zone name like 'Europe/Paris', 'UTC' or 'local'"
        case .dateTime: return "an ISO 8601 date and time like '2026-12-31T23:59' or '2026-12-31T23:59:00+01:00'"
        case .jsonPointer: return "a JSON Pointer like '/data/0/price' (~1 for '/', ~0 for '~')"
        case .seconds(let range, _): return "an integer" + OptionType.describe(range)
        case .stringList: return "a list of strings"
        case .stringMap: return "an object of strings"
        case .objectList(let fields):
            return "a list of objects with " + fields.map { $0.required ? $0.name : $0.name + "?" }.joined(separator: ", ")
        }
    }

    /// The zones a `.timeZone` option may name: `local`, and those the clock can load from
    /// the tz database at `zoneinfo` (`ZoneInfo.exists`).
    public static func knownTimeZones(zoneinfo: String = ZoneInfo.defaultDirectory) -> @Sendable (String) -> Bool {
        { $0 == "local" || ZoneInfo.exists($0, directory: zoneinfo) }
    }

    /// Checks a scalar `value`; returns nil when it fits, else the message `expected …, got …`.
    /// Lists, maps and objects are checked element by element by `OptionDecoder`, which names
    /// each element's path; here they only have to have the right shape.
    ///
    /// - Parameters:
    ///   - isKnownTimeZone: decides whether a well-formed zone name exists.
    ///   - contents: false checks only the kind of value, bounds, choices and a URL's scheme,
    ///     not what a string says (its length, a URL's form, zones, dates, pointers) nor how
    ///     many elements a list has: the extension manifest reader's first look at a default,
    ///     which the host checks in full when it registers the kind (`WidgetManifest.problems`).
    public func problem(with value: JSONValue, isKnownTimeZone: (String) -> Bool, contents: Bool = true) -> String? {
        let mismatch = "expected \(expectation), got \(value.shortDescription)"
        if !contents {
            switch (self, value) {
            case (.url(let schemes), .string(let text)):
                guard let colon = text.firstIndex(of: ":"), schemes.contains(String(text[..<colon]).lowercased()) else {
                    return "expected \(expectation), got \(JSONValue.string(URLRedaction.redacted(text)).shortDescription)"
                }
                return nil
            case (.string, .string), (.timeZone, .string), (.dateTime, .string), (.jsonPointer, .string),
                 (.stringList, .array), (.objectList, .array), (.stringMap, .object):
                return nil
            default:
                break
            }
        }
        switch (self, value) {
        case (.string, .string(let text)):
            if text.unicodeScalars.count > 4096 { return "expected a string of at most 4096 characters, got \(text.unicodeScalars.count)" }
            if text.unicodeScalars.contains("\u{0}") { return "expected a string without NUL characters" }
            return nil
        case (.integer(let range), .integer(let integer)), (.seconds(let range, _), .integer(let integer)):
            return range.contains(integer) ? nil : mismatch
        case (.number(let range), .integer(let integer)):
            return range.contains(Double(integer)) ? nil : mismatch
        case (.number(let range), .number(let number)):
            return range.contains(number) ? nil : mismatch
        case (.bool, .bool):
            return nil
        case (.oneOf(let choices), .string(let text)):
            return choices.contains(text) ? nil : mismatch + EditDistance.hint(for: text, among: choices)
        case (.url(let schemes), .string(let text)):
            // A URL may carry credentials (user:password@): never echo them.
            return OptionType.isURL(text, schemes: schemes) ? nil
                : "expected \(expectation), got \(JSONValue.string(URLRedaction.redacted(text)).shortDescription)"
        case (.timeZone, .string(let text)):
            return (text == "local" || ZoneInfo.isWellFormedName(text)) && isKnownTimeZone(text) ? nil : mismatch
        case (.dateTime, .string(let text)):
            return CountdownTarget.parse(text) != nil ? nil : mismatch
        case (.jsonPointer, .string(let text)):
            do {
                _ = try JSONPointer(text)
                return nil
            } catch {
                return mismatch + ": \(error)"
            }
        case (.stringList, .array(let items)), (.objectList, .array(let items)):
            return items.count <= Self.maximumListCount ? nil
                : "expected at most \(Self.maximumListCount) elements, got \(items.count)"
        case (.stringMap, .object(let object)):
            return object.count <= Self.maximumListCount ? nil
                : "expected at most \(Self.maximumListCount) entries, got \(object.count)"
        default:
            return mismatch
        }
    }

    /// Turns a command-line `--option K=V` value into the JSON value it stands for.
    ///
    /// Returns nil when the text cannot be one (`ten` for an integer); the result still has
    /// to pass `OptionDecoder`. Lists, maps and objects are written as JSON
    /// (`--option 'argv=["ls", "-l"]'`).
    /// What `--option NAME=…` shows for an option without an `example`: a placeholder by type
    /// (`URL`, `SECONDS`, `true|false`), written as `value(fromCommandLine:)` reads it — plain
    /// text for strings, JSON only for lists and objects.
    public var commandLinePlaceholder: String {
        switch self {
        case .string: "TEXT"
        case .integer: "INTEGER"
        case .number: "NUMBER"
        case .bool: "true|false"
        case .oneOf(let choices): choices.count <= 4 ? choices.joined(separator: "|") : "CHOICE"
        case .url: "URL"
        case .timeZone: "ZONE"
        case .dateTime: "DATETIME"
        case .jsonPointer: "POINTER"
        case .seconds: "SECONDS"
        case .stringList: "JSON-LIST"
        case .stringMap: "JSON-OBJECT"
        case .objectList: "JSON-LIST"
        }
    }

    public func value(fromCommandLine text: String) -> JSONValue? {
        switch self {
        case .string, .oneOf, .url, .timeZone, .dateTime, .jsonPointer: return .string(text)
        case .integer, .seconds: return Int(text).map(JSONValue.integer)
        case .stringList, .stringMap, .objectList:
            return try? JSONParser(maximumBytes: 64 << 10, maximumDepth: 8).parse(text)
        case .number:
            if let integer = Int(text) { return .integer(integer) }
            guard let number = Double(text), number.isFinite,
                  text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }) else { return nil }
            return .number(number)
        case .bool:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        }
    }

    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound == Int.min, range.upperBound == Int.max) {
        case (true, true): return ""
        case (false, true): return " ≥ \(range.lowerBound)"
        case (true, false): return " ≤ \(range.upperBound)"
        case (false, false): return " in \(range.lowerBound)…\(range.upperBound)"
        }
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// `scheme://authority[/path…]` with a listed scheme, a non-empty host, no spaces or
    /// control characters, at most 2048 characters.
    public static func isURL(_ text: String, schemes: [String]) -> Bool {
        guard text.utf8.count <= 2048,
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let separator = text.firstRange(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard schemes.contains(where: { $0.lowercased() == scheme }) else { return false }
        let rest = text[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let host: Substring
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return false }
            host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let afterHost = hostAndPort[hostAndPort.index(after: close)...]
            guard afterHost.isEmpty || isPort(afterHost.dropFirst()) && afterHost.first == ":" else { return false }
        } else {
            let parts = hostAndPort.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2, !isPort(parts[1]) { return false }
        }
        return !host.isEmpty
    }

    static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber)
            && (Int(text) ?? 70000) <= 65535
    }
}
