import TerminalUI
import WidgetCore
import Widgets

/// Turns `widgethost`'s arguments into a `HostCommand`, per DESIGN.md §4.
///
/// Options take their value as the next argument or after `=` (`--size=80x24`); `--`
/// ends options. `--help`/`-h` anywhere before `--` asks for the help of the command it
/// follows, whatever else is wrong. Errors are `UsageError`s meaning exit status 2.
///
/// ```swift
/// let command = try CommandLineParser.parse(["snapshot", "--size", "80x24", "--at", "+90s"])
/// ```
public enum CommandLineParser {
    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> HostCommand {
        guard let first = arguments.first else { return .dashboard(DashboardOptions()) }
        if first == "--version" {
            guard arguments.count == 1 else { throw UsageError("--version takes no other arguments", subcommand: nil) }
            return .version
        }
        if first.hasPrefix("-") { return try parseDashboard(arguments) }
        guard let subcommand = Subcommand(rawValue: first) else {
            let names = Subcommand.allCases.map(\.rawValue)
            let hint = EditDistance.suggestion(for: first, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(String(first.prefix(64)))'" + hint, subcommand: nil)
        }
        let rest = Array(arguments.dropFirst())
        if wantsHelp(rest) {
            guard subcommand != .help else { return .help(nil) }
            let context = helpContext(subcommand == .extensionRun && rest.first == "run" ? Array(rest.dropFirst()) : rest,
                                      subcommand: subcommand)
            return .help(subcommand, extensionsDirectory: context.directory,
                         kind: subcommand == .preview || subcommand == .extensionRun ? context.kind : nil)
        }
        switch subcommand {
        case .snapshot: return try parseSnapshot(rest)
        case .preview: return try parsePreview(rest)
        case .extensionRun: return try parseExtension(rest)
        case .checkConfig: return try parseCheckConfig(rest)
        case .themes: return try parseBare(rest, .themes, as: .themes)
        case .widgets: return try parseWidgets(rest)
        case .sessions: return try parseSessions(rest)
        case .reload: return try parseReload(rest)
        case .config: return try parseConfig(rest)
        case .activity: return try parseActivity(rest)
        case .events: return try parseEvents(rest)
        case .help: return try parseHelp(rest)
        }
    }

    /// What `--help` can use of the rest of a command line, however wrong the rest is: the
    /// `--extensions-dir` (so its kinds are listed) and the first positional (a KIND). The
    /// subcommand's flags (`CommandOption.options(of:)`) take no value.
    static func helpContext(_ arguments: [String], subcommand: Subcommand?) -> (directory: String?, kind: String?) {
        let flags = Set(CommandOption.options(of: subcommand).filter { $0.argument == nil }.map(\.name) + ["--help", "-h"])
        var directory: String?
        var kind: String?
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            index += 1
            if !argument.hasPrefix("-") || argument == "-" {
                if kind == nil, !argument.isEmpty { kind = argument }
            } else if argument.hasPrefix("--extensions-dir=") {
                directory = directory ?? String(argument.dropFirst("--extensions-dir=".count))
            } else if !flags.contains(argument), !argument.contains("="), index < arguments.count {
                if argument == "--extensions-dir" { directory = directory ?? arguments[index] }
                index += 1  // the option's value
            }
        }
        return (directory.flatMap { $0.isEmpty ? nil : $0 }, kind)
    }

    static func wantsHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }

    static func parseDashboard(_ arguments: [String]) throws(UsageError) -> HostCommand {
        if wantsHelp(arguments) { return .help(nil) }
        var options = DashboardOptions()
        var scanner = ArgumentScanner(arguments, subcommand: nil)
        while let token = try scanner.next() {
            switch token {
            case .option("--config"): options.configPath = try path(scanner.value(), for: "--config", scanner)
            case .option("--theme"): options.theme = try path(scanner.value(), for: "--theme", scanner)
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option("--debug"): options.debug = true
            case .option("--record-messages"):
                options.recordMessages = try path(scanner.value(), for: "--record-messages", scanner)
            case .option("--private"): options.isPrivate = true
            case .option("--rendering-mode"): options.renderingMode = try renderingMode(scanner.value(), scanner)
            case .option(let name): throw scanner.fail("\(name) is not an option of the dashboard")
            case .positional(let argument):
                throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        return .dashboard(options)
    }

    static func parseSnapshot(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var options = SnapshotOptions()
        var scanner = ArgumentScanner(arguments, subcommand: .snapshot)
        while let token = try scanner.next() {
            switch token {
            case .option("--config"): options.configPath = try path(scanner.value(), for: "--config", scanner)
            case .option("--theme"): options.theme = try path(scanner.value(), for: "--theme", scanner)
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option("--size"):
                let text = scanner.value()
                guard let size = TerminalSize(parsing: text) else {
                    throw scanner.fail("--size expects COLSxROWS with each in \(TerminalSize.bounds.lowerBound)…\(TerminalSize.bounds.upperBound), like 100x30; got '\(String(text.prefix(64)))'")
                }
                options.size = size
            case .option("--at"):
                let text = scanner.value()
                guard let time = SnapshotTime(parsing: text) else {
                    throw scanner.fail("--at expects an ISO 8601 time with Z or an offset (2026-11-30T05:00:00Z) or +N followed by s, m or h (+90s); got '\(String(text.prefix(64)))'")
                }
                options.at = time
            case .option("--wait"):
                let text = scanner.value()
                guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(text),
                      seconds >= 0, seconds <= SnapshotOptions.maximumWait else {
                    throw scanner.fail("--wait expects seconds from 0 to \(Int(SnapshotOptions.maximumWait)); got '\(String(text.prefix(64)))'")
                }
                options.waitSeconds = seconds
            case .option("--record"): options.recordPath = try path(scanner.value(), for: "--record", scanner)
            case .option("--duration"):
                let text = scanner.value()
                guard let seconds = parseDurationSeconds(text), seconds <= SnapshotOptions.maximumRecordDuration else {
                    throw scanner.fail("--duration expects a time up to a day, like 60s, 5m or 2h; got '\(String(text.prefix(64)))'")
                }
                options.recordDuration = seconds
            case .option("--step"):
                let text = scanner.value()
                guard let seconds = parseDurationSeconds(text), seconds >= 0.1, seconds <= 3600 else {
                    throw scanner.fail("--step expects a time from 0.1s to 1h, like 1s or 30s; got '\(String(text.prefix(64)))'")
                }
                options.recordStep = seconds
            case .option("--color"): options.format = .ansi
            case .option("--private"): options.isPrivate = true
            case .option("--rendering-mode"): options.renderingMode = try renderingMode(scanner.value(), scanner)
            case .option("--format"):
                let text = scanner.value()
                guard let format = SnapshotFormat(rawValue: text) else {
                    let names = SnapshotFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    throw scanner.fail("--format expects one of \(names); got '\(String(text.prefix(64)))'")
                }
                options.format = format
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option("--replay"): options.replayPath = try path(scanner.value(), for: "--replay", scanner)
            case .option("--describe"): options.describe = true
            case .option(let name): throw scanner.fail("\(name) is not an option of snapshot")
            case .positional(let argument):
                throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        try checkReplay(options, arguments, scanner)
        if options.recordPath != nil || options.recordDuration != nil || options.recordStep != nil {
            guard options.recordPath != nil, let duration = options.recordDuration else {
                throw scanner.fail(options.recordPath == nil ? "--duration and --step go with --record FILE"
                                                             : "--record needs --duration, like --duration 60s")
            }
            guard options.format == .text || options.format == .ansi else {
                throw scanner.fail("--record writes an asciicast (text with colours); it takes no --format \(options.format.rawValue)")
            }
            let frames = duration / (options.recordStep ?? 1)
            guard frames <= Double(SnapshotOptions.maximumRecordFrames) else {
                throw scanner.fail("--duration over --step makes \(Int(frames)) frames; at most \(SnapshotOptions.maximumRecordFrames): take a longer --step")
            }
        }
        return .snapshot(options)
    }

    /// `--rendering-mode MODE`'s value.
    private static func renderingMode(_ text: String, _ scanner: ArgumentScanner) throws(UsageError) -> RenderingMode {
        guard let mode = RenderingMode(rawValue: text) else {
            let names = RenderingMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw scanner.fail("--rendering-mode expects one of \(names); got '\(String(text.prefix(64)))'")
        }
        return mode
    }

    /// `--replay FILE` takes the config, theme and size from the recording: options that would
    /// name them (or wait for fetches, or record) contradict it; `--describe` goes with it.
    private static func checkReplay(_ options: SnapshotOptions, _ arguments: [String],
                                    _ scanner: ArgumentScanner) throws(UsageError) {
        guard options.replayPath != nil else {
            if options.describe { throw scanner.fail("--describe goes with --replay FILE") }
            return
        }
        let excluded = ["--config", "--theme", "--state-dir", "--size", "--wait", "--record", "--duration", "--step"]
        if let name = excluded.first(where: { name in arguments.contains { $0 == name || $0.hasPrefix(name + "=") } }) {
            throw scanner.fail("--replay takes the config, theme and size from the recording; it takes no \(name)")
        }
        if options.describe, options.at != nil || options.format != .text {
            throw scanner.fail("--describe lists the recording's messages; it takes no --at, --format or --color")
        }
        if options.isPrivate {
            throw scanner.fail("--replay shows what the recorded run showed (its P key included); it takes no --private")
        }
        if options.renderingMode != nil {
            throw scanner.fail("--replay shows what the recorded run showed; it takes no --rendering-mode")
        }
    }

    static func parsePreview(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var options = PreviewOptions(kind: "")
        var kind: String?
        var scanner = ArgumentScanner(arguments, subcommand: .preview)
        while let token = try scanner.next() {
            switch token {
            case .option("--snapshot"): options.snapshot = true
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option(let name):
                try parseShared(name, &scanner, family: &options.family, count: &options.count, assignments: &options.options,
                                command: "preview")
            case .positional(let argument):
                guard kind == nil else { throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'") }
                guard !argument.isEmpty else { throw scanner.fail("KIND is empty") }
                kind = argument
            }
        }
        guard let kind else { throw scanner.fail("missing the widget KIND (see 'widgethost widgets')") }
        options.kind = kind
        return .preview(options)
    }

    /// `extension run NAME/KIND [options]`, `extension test NAME|PATH`, `extension new NAME`.
    static func parseExtension(_ arguments: [String]) throws(UsageError) -> HostCommand {
        switch arguments.first {
        case "test": return try parseExtensionTest(Array(arguments.dropFirst()))
        case "new": return try parseExtensionNew(Array(arguments.dropFirst()))
        case "run": break
        default:
            let given = arguments.first.map { "; got '\(String($0.prefix(64)))'" } ?? ""
            throw UsageError("expects 'run NAME/KIND', 'test NAME|PATH' or 'new NAME'\(given)", subcommand: .extensionRun)
        }
        var options = ExtensionRunOptions(kind: "")
        var kind: String?
        var scanner = ArgumentScanner(Array(arguments.dropFirst()), subcommand: .extensionRun)
        while let token = try scanner.next() {
            switch token {
            case .option("--snapshot"): options.snapshot = true
            case .option("--debug"): options.debug = true
            case .option("--extensions-dir"):
                options.extensionsDirectory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option("--size"):
                let text = scanner.value()
                guard let size = TerminalSize(parsing: text) else {
                    throw scanner.fail("--size expects COLSxROWS with each in \(TerminalSize.bounds.lowerBound)…\(TerminalSize.bounds.upperBound), like 30x8; got '\(String(text.prefix(64)))'")
                }
                options.size = size
            case .option(let name):
                try parseShared(name, &scanner, family: &options.family, count: &options.count, assignments: &options.options,
                                command: "extension run")
            case .positional(let argument):
                guard kind == nil else { throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'") }
                guard !argument.isEmpty else { throw scanner.fail("NAME/KIND is empty") }
                kind = argument
            }
        }
        guard let kind else { throw scanner.fail("missing NAME/KIND (see 'widgethost widgets')") }
        options.kind = kind
        return .extensionRun(options)
    }

    /// `--family`, `--count` and `--option`, common to `preview` and `extension run`.
    static func parseShared(_ name: String, _ scanner: inout ArgumentScanner, family: inout WidgetFamily?,
                                    count: inout Int?, assignments: inout [OptionAssignment], command: String) throws(UsageError) {
        switch name {
        case "--family":
            let text = scanner.value()
            guard let parsed = WidgetFamily(rawValue: text) else {
                let names = WidgetFamily.allCases.map(\.rawValue)
                let hint = EditDistance.suggestion(for: text, among: names).map { "; did you mean '\($0)'?" } ?? ""
                throw scanner.fail("--family expects one of \(names.joined(separator: ", ")); got '\(String(text.prefix(64)))'" + hint)
            }
            family = parsed
        case "--count":
            let text = scanner.value()
            guard let parsed = Int(text), PreviewOptions.countBounds.contains(parsed) else {
                throw scanner.fail("--count expects an integer in \(PreviewOptions.countBounds.lowerBound)…\(PreviewOptions.countBounds.upperBound); got '\(String(text.prefix(64)))'")
            }
            count = parsed
        case "--option":
            let text = scanner.value()
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw scanner.fail("--option expects NAME=VALUE; got '\(String(text.prefix(64)))'")
            }
            let assignment = OptionAssignment(name: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
            if assignments.contains(where: { $0.name == assignment.name }) {
                throw scanner.fail("option '\(String(assignment.name.prefix(64)))' is given more than once")
            }
            assignments.append(assignment)
        default:
            throw scanner.fail("\(name) is not an option of \(command)")
        }
    }

    static func parseCheckConfig(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var path: String?
        var directory: String?
        var scanner = ArgumentScanner(arguments, subcommand: .checkConfig)
        while let token = try scanner.next() {
            switch token {
            case .option("--extensions-dir"): directory = try Self.path(scanner.value(), for: "--extensions-dir", scanner)
            case .option(let name): throw scanner.fail("\(name) is not an option of check-config")
            case .positional(let argument):
                guard path == nil else { throw scanner.fail("expects at most one PATH") }
                guard !argument.isEmpty else { throw scanner.fail("PATH is empty") }
                path = argument
            }
        }
        return .checkConfig(path: path, extensionsDirectory: directory)
    }

    static func parseWidgets(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var directory: String?
        var scanner = ArgumentScanner(arguments, subcommand: .widgets)
        while let token = try scanner.next() {
            switch token {
            case .option("--extensions-dir"): directory = try path(scanner.value(), for: "--extensions-dir", scanner)
            case .option(let name): throw scanner.fail("\(name) is not an option of widgets")
            case .positional(let argument): throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        return .widgets(extensionsDirectory: directory)
    }

    static func parseSessions(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var options = SessionsOptions()
        var scanner = ArgumentScanner(arguments, subcommand: .sessions)
        while let token = try scanner.next() {
            switch token {
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option("--purge"): options.purge = true
            case .option(let name): throw scanner.fail("\(name) is not an option of sessions")
            case .positional(let argument):
                throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        return .sessions(options)
    }

    static func parseReload(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var options = ReloadOptions()
        var scanner = ArgumentScanner(arguments, subcommand: .reload)
        while let token = try scanner.next() {
            switch token {
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option("--all"): options.all = true
            case .option(let name): throw scanner.fail("\(name) is not an option of reload")
            case .positional(let kind):
                guard !kind.isEmpty, kind.utf8.count <= 200, !kind.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw scanner.fail("'\(String(kind.prefix(64)))' is not a widget kind")
                }
                options.kinds.append(kind)
            }
        }
        if options.all, !options.kinds.isEmpty { throw UsageError("give kinds or --all, not both", subcommand: .reload) }
        if !options.all, options.kinds.isEmpty { throw UsageError("reload what? give KIND ... (as in the config) or --all", subcommand: .reload) }
        if options.kinds.count > ControlRequests.maximumKinds {
            throw UsageError("at most \(ControlRequests.maximumKinds) kinds at once", subcommand: .reload)
        }
        return .reload(options)
    }

    static func parseBare(_ arguments: [String], _ subcommand: Subcommand, as command: HostCommand) throws(UsageError) -> HostCommand {
        var scanner = ArgumentScanner(arguments, subcommand: subcommand)
        if let token = try scanner.next() {
            switch token {
            case .option(let name): throw scanner.fail("\(name) is not an option of \(subcommand.rawValue)")
            case .positional(let argument): throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        return command
    }

    static func parseHelp(_ arguments: [String]) throws(UsageError) -> HostCommand {
        guard let topic = arguments.first else { return .help(nil) }
        guard arguments.count == 1 else { throw UsageError("help expects at most one COMMAND", subcommand: .help) }
        guard let subcommand = Subcommand(rawValue: topic), subcommand != .help else {
            throw UsageError("no help for '\(String(topic.prefix(64)))': not a command", subcommand: .help)
        }
        return .help(subcommand)
    }

    static func path(_ text: String, for option: String, _ scanner: ArgumentScanner) throws(UsageError) -> String {
        guard !text.isEmpty else { throw scanner.fail("\(option) needs a non-empty value") }
        return text
    }
}
