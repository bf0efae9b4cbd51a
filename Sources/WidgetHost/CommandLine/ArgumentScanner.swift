import Widgets

/// Walks one subcommand's arguments: options (`--name value`, `--name=value`), flags and
/// positionals, rejecting unknown and repeated options.
///
/// Internal to `CommandLineParser`.
struct ArgumentScanner {
    /// One argument, classified.
    enum Token: Equatable {
        case option(String)
        case positional(String)
    }

    private var arguments: [String]
    private var index = 0
    private var pendingValue: String?
    private var afterTerminator = false
    private var seen: Set<String> = []
    let subcommand: Subcommand?
    let valueOptions: Set<String>
    let flags: Set<String>
    /// Options that may be given more than once (`--option`).
    let repeatable: Set<String>

    init(_ arguments: [String], subcommand: Subcommand?, valueOptions: Set<String>, flags: Set<String>,
         repeatable: Set<String> = []) {
        self.arguments = arguments
        self.subcommand = subcommand
        self.valueOptions = valueOptions
        self.flags = flags
        self.repeatable = repeatable
    }

    /// The next argument, or nil at the end.
    mutating func next() throws(UsageError) -> Token? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        if afterTerminator || !argument.hasPrefix("-") || argument == "-" { return .positional(argument) }
        if argument == "--" {
            afterTerminator = true
            return try next()
        }
        var name = argument
        var inline: String?
        if let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        }
        if flags.contains(name) {
            if inline != nil { throw fail("\(name) takes no value") }
        } else if valueOptions.contains(name) {
            if let inline {
                pendingValue = inline
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw fail("\(name) needs a value")
                }
                pendingValue = arguments[index]
                index += 1
            }
        } else {
            let known = (flags.union(valueOptions)).sorted()
            let hint = EditDistance.suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
            throw fail("unknown option '\(String(name.prefix(64)))'" + hint)
        }
        if !repeatable.contains(name), !seen.insert(name).inserted {
            throw fail("\(name) is given more than once" + (valueOptions.contains(name) && name.hasSuffix("-dir") ? " (it takes one directory)" : ""))
        }
        return .option(name)
    }

    /// The value of the option just returned by `next()`.
    mutating func value() -> String {
        defer { pendingValue = nil }
        return pendingValue ?? ""
    }

    func fail(_ message: String) -> UsageError {
        UsageError(message, subcommand: subcommand)
    }
}
