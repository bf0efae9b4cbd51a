import WidgetCore

/// A Swift type an option's validated value reads as, and writes back as for a manifest's
/// default: `String` (string, url, timeZone, dateTime, jsonPointer), `Int` (integer,
/// seconds), `Double` (number), `Bool`, `[String]` (stringList), `[String: String]`
/// (stringMap), an `OptionChoice` enum (oneOf), and any of these optional (an option without
/// a default: nil when the panel does not give it).
public protocol OptionValue: Sendable {
    /// The typed value, or nil when `value` is not of this type.
    init?(optionValue value: WidgetOptions.Value)
    /// The value as a manifest writes it; nil for an absent optional.
    var optionValue: WidgetOptions.Value? { get }
}

/// An enumeration option (`.oneOf`): its raw values are the choices, in declaration order.
public protocol OptionChoice: OptionValue, RawRepresentable, CaseIterable where RawValue == String {}

extension OptionChoice {
    public init?(optionValue value: WidgetOptions.Value) {
        guard case .string(let text) = value else { return nil }
        self.init(rawValue: text)
    }

    public var optionValue: WidgetOptions.Value? { .string(rawValue) }
}

extension String: OptionValue {
    public init?(optionValue value: WidgetOptions.Value) {
        guard case .string(let text) = value else { return nil }
        self = text
    }

    public var optionValue: WidgetOptions.Value? { .string(self) }
}

extension Int: OptionValue {
    /// An integer, or a whole number (`WidgetOptions.integer`'s rule).
    public init?(optionValue value: WidgetOptions.Value) {
        guard let integer = WidgetOptions(["v": value]).integer("v") else { return nil }
        self = integer
    }

    public var optionValue: WidgetOptions.Value? { .integer(self) }
}

extension Double: OptionValue {
    public init?(optionValue value: WidgetOptions.Value) {
        guard let number = WidgetOptions(["v": value]).number("v") else { return nil }
        self = number
    }

    public var optionValue: WidgetOptions.Value? { .number(self) }
}

extension Bool: OptionValue {
    public init?(optionValue value: WidgetOptions.Value) {
        guard case .bool(let flag) = value else { return nil }
        self = flag
    }

    public var optionValue: WidgetOptions.Value? { .bool(self) }
}

extension Array: OptionValue where Element == String {
    public init?(optionValue value: WidgetOptions.Value) {
        guard case .list(let items) = value else { return nil }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { return nil }
            strings.append(text)
        }
        self = strings
    }

    public var optionValue: WidgetOptions.Value? { .list(map(WidgetOptions.Value.string)) }
}

extension Dictionary: OptionValue where Key == String, Value == String {
    public init?(optionValue value: WidgetOptions.Value) {
        guard case .object(let members) = value else { return nil }
        var strings: [String: String] = [:]
        for (key, member) in members {
            guard case .string(let text) = member else { return nil }
            strings[key] = text
        }
        self = strings
    }

    public var optionValue: WidgetOptions.Value? { .object(mapValues(WidgetOptions.Value.string)) }
}

extension Optional: OptionValue where Wrapped: OptionValue {
    public init?(optionValue value: WidgetOptions.Value) {
        guard let wrapped = Wrapped(optionValue: value) else { return nil }
        self = .some(wrapped)
    }

    public var optionValue: WidgetOptions.Value? { self?.optionValue }
}
