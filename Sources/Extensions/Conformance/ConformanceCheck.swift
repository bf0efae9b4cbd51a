/// One check of `widgethost extension test`: what was tried, whether the extension passed,
/// what it did, and — for a failure — the rule of docs/extensions.md it broke.
public struct ConformanceCheck: Sendable, Equatable {
    /// `timeline status small 22x7`.
    public var name: String
    public var passed: Bool
    /// What happened: `10 entries, policy after …`, or the problems with their paths.
    public var detail: String
    /// The rule (`ConformanceRule`) a failure broke; also kept for a pass, for the report.
    public var rule: String

    public init(name: String, passed: Bool, detail: String, rule: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
        self.rule = rule
    }

    /// `PASS  name: detail`, or `FAIL  name: detail` and the rule on a line of its own.
    public var report: String {
        passed ? "PASS  \(name): \(detail)\n"
               : "FAIL  \(name): \(detail)\n      breaks docs/extensions.md, \(rule)\n"
    }
}

/// The rules of docs/extensions.md the checks hold an extension to, by section and the words
/// of the rule, so a failure says where to read.
public enum ConformanceRule {
    public static let manifest = "\"The manifest\": it is read strictly; an extension with any error is skipped"
    public static let launch = "\"The manifest\": exec (the program and its arguments, run from the manifest's folder)"
    public static let initialize = "\"Host → extension\": initialize — answer {\"protocol\": 1}"
    public static let channel = "\"The channel\": one JSON-RPC 2.0 message per line; anything else is a protocol error"
    public static let crash = "\"The process\": a crash (the process exits or closes stdout unasked)"
    public static let requestSeconds = "\"Limits\": requestSeconds — a request unanswered by then fails"
    public static let timeline = "\"Host → extension\": timeline — the result is {entries: [{date, view, …}], policy}"
    public static let pastPolicy = "\"Timelines\": a policy date already past (or \"atEnd\" after a past last entry) is asked for every 5 s: avoid it"
    public static let snapshot = "\"Host → extension\": snapshot — the result is {entry: {date, view}}, or -32601 (method not found)"
    public static let placeholder = "\"The manifest\": placeholder — give it the shape of the real view"
    public static let action = "\"Host → extension\": action — do the work, answer {}"
    public static let options = "\"Host → extension\": options — the result is {items: [{value, title, subtitle?}]}, value a non-empty printable string"
    public static let unknownMethod = "\"Host → extension\": snapshot — answer -32601 (method not found), as for any method you do not know"
    public static let shutdown = "\"Host → extension\": shutdown — answer {} and exit; exit when stdin reaches EOF"
}
