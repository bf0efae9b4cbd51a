import JSONTree
import Widgets

/// The config's top-level `notify` (DESIGN.md §11): how a panel's new or risen alert reaches
/// the user besides its border — at most once per panel per `cooldownSeconds`.
///
/// ```json
/// "notify": { "bell": true, "desktop": true, "command": ["notify-send", "{title}", "{text}"], "cooldownSeconds": 300 }
/// ```
public struct NotifyConfig: Sendable, Equatable {
    /// Ring the terminal's bell.
    public var bell = false
    /// A desktop notification through the terminal (OSC 9; wrapped for tmux when `$TMUX` is set).
    public var desktop = false
    /// A program and its arguments, run without a shell; `{title}`, `{text}`, `{level}` and
    /// `{panel}` in an argument are replaced.
    public var command: [String]?
    public var cooldownSeconds = 300

    public init(bell: Bool = false, desktop: Bool = false, command: [String]? = nil, cooldownSeconds: Int = 300) {
        (self.bell, self.desktop, self.command, self.cooldownSeconds) = (bell, desktop, command, cooldownSeconds)
    }

    /// Nothing to do but the border and the event.
    public var isQuiet: Bool { !bell && !desktop && command == nil }
}

extension ConfigValidator {
    /// The `notify` object at `path`; the defaults (and errors in `report`) when it is wrong.
    func notifyConfig(_ value: JSONValue?, at path: ConfigPath, into report: inout ConfigReport) -> NotifyConfig {
        var notify = NotifyConfig()
        guard let value, value != .null else { return notify }
        guard case .object(let object) = value else {
            report.errors.append(ConfigDiagnostic(path: path, message: "expected an object with bell, desktop, command, cooldownSeconds, got \(value.shortDescription)"))
            return notify
        }
        reportUnknownKeys(in: object, at: path, allowed: ["bell", "desktop", "command", "cooldownSeconds"], what: "key", into: &report)
        for (key, flag) in [("bell", \NotifyConfig.bell), ("desktop", \NotifyConfig.desktop)] {
            guard let given = object[key] else { continue }
            if case .bool(let on) = given { notify[keyPath: flag] = on } else {
                report.errors.append(ConfigDiagnostic(path: path.appending(key: key), message: "expected true or false, got \(given.shortDescription)"))
            }
        }
        if let given = object["command"], given != .null {
            let words: [String]? = if case .array(let items) = given {
                items.compactMap { if case .string(let word) = $0, word.utf8.count <= 4096, !word.utf8.contains(0) { word } else { nil } }
            } else { nil }
            if let words, case .array(let items) = given, words.count == items.count, (1...64).contains(words.count), !words[0].isEmpty {
                notify.command = words
            } else {
                report.errors.append(ConfigDiagnostic(path: path.appending(key: "command"),
                    message: "expected a program and its arguments, 1 to 64 strings (run without a shell), like [\"notify-send\", \"{title}\", \"{text}\"]"))
            }
        }
        if let given = object["cooldownSeconds"] {
            if case .integer(let seconds) = given, (0...86_400).contains(seconds) { notify.cooldownSeconds = seconds } else {
                report.errors.append(ConfigDiagnostic(path: path.appending(key: "cooldownSeconds"),
                    message: "expected an integer from 0 to 86400, got \(given.shortDescription)"))
            }
        }
        return notify
    }
}
