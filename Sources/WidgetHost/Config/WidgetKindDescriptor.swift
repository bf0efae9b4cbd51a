import JSONTree
import WidgetCore

/// What the config layer needs to know about a widget kind: its name, families and options.
///
/// The host registers one descriptor per widget kind it can build and passes the list to
/// `ConfigValidator`; panels of other kinds are errors. `stack` is built in and must not be
/// registered. `problems` lists what is wrong with a descriptor itself (a default that does
/// not fit its type, say) so the host's tests can assert that it is empty.
///
/// ```swift
/// let clock = WidgetKindDescriptor(
///     kind: "clock", displayName: "Clock", summary: "The time, anywhere.",
///     supportedFamilies: [.small, .medium], defaultFamily: .small,
///     options: [OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"),
///                          help: "IANA zone name")])
/// ```
public struct WidgetKindDescriptor: Sendable, Equatable {
    public var kind: String
    public var displayName: String
    public var summary: String
    public var supportedFamilies: [WidgetFamily]
    public var defaultFamily: WidgetFamily
    public var options: [OptionSpec]
    /// The option whose value names a panel that has no `title` (a hero's `name`, a clock's
    /// `timeZone`); nil: the display name.
    public var titleOption: String?

    public init(kind: String, displayName: String, summary: String,
                supportedFamilies: [WidgetFamily], defaultFamily: WidgetFamily,
                options: [OptionSpec], titleOption: String? = nil) {
        self.kind = kind
        self.displayName = displayName
        self.summary = summary
        self.supportedFamilies = supportedFamilies
        self.defaultFamily = defaultFamily
        self.options = options
        self.titleOption = titleOption
    }

    /// The option named `name`, if the kind has one.
    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// Mistakes in the descriptor itself; empty for a well-formed one.
    public var problems: [String] {
        var found: [String] = []
        if kind.isEmpty { found.append("the kind name is empty") }
        if kind == ConfigValidator.stackKind { found.append("'stack' is built in and cannot be registered") }
        if supportedFamilies.isEmpty { found.append("\(kind): supports no family") }
        if !supportedFamilies.contains(defaultFamily) {
            found.append("\(kind): default family \(defaultFamily) is not a supported family")
        }
        var names: Set<String> = []
        for option in options {
            if !names.insert(option.name).inserted { found.append("\(kind): option '\(option.name)' is listed twice") }
            if let value = option.defaultValue,
               let problem = option.type.problem(with: value, isKnownTimeZone: { _ in true }) {
                found.append("\(kind): default of '\(option.name)': \(problem)")
            }
            if option.required, option.defaultValue != nil {
                found.append("\(kind): option '\(option.name)' is required and has a default")
            }
        }
        return found
    }
}
