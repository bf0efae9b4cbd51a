import FoundationEssentials

/// Options of `widgethost activity start|update|end|list` (DESIGN.md §11).
public struct ActivityOptions: Sendable, Equatable {
    /// The start, update or end to send; nil for `list`.
    var request: ActivityRequest?
    /// `list --json`.
    public var json = false
    public var stateDirectory: String?

    init(request: ActivityRequest? = nil, json: Bool = false, stateDirectory: String? = nil) {
        (self.request, self.json, self.stateDirectory) = (request, json, stateDirectory)
    }
}

/// Options of `widgethost events`: the history, since when, as JSON lines or text.
public struct EventsOptions: Sendable, Equatable {
    /// Only events newer than this many seconds; nil: all.
    public var since: TimeInterval?
    public var json = false
    public var stateDirectory: String?

    public init(since: TimeInterval? = nil, json: Bool = false, stateDirectory: String? = nil) {
        (self.since, self.json, self.stateDirectory) = (since, json, stateDirectory)
    }
}

extension CommandOption {
    static let activityOptions: [CommandOption] = [
        CommandOption(name: "--title", argument: "TEXT", help: ["what it is (start needs it; at most 80 characters)"]),
        CommandOption(name: "--detail", argument: "TEXT", help: ["a line under it (at most 200 characters; \"\" clears it)"]),
        CommandOption(name: "--progress", argument: "P", help: ["0 to 1: the bar (0.4 is 40%)"]),
        CommandOption(name: "--stale-after", argument: "TIME", help: ["drawn stale when not updated for this long (10m)"]),
        CommandOption(name: "--state", argument: "STATE", help: ["end: success (default), failure or cancelled"]),
        CommandOption(name: "--dismiss-after", argument: "TIME", help: ["end: leave the dashboard after (default 5m)"]),
        CommandOption(name: "--json", argument: nil, help: ["list: one JSON array"]),
        CommandOption(name: "--state-dir", argument: "DIR", help: ["the dashboard's state directory (default $XDG_STATE_HOME/widgethost)"]),
    ]

    static let eventsOptions: [CommandOption] = [
        CommandOption(name: "--since", argument: "TIME", help: ["only the last TIME (90s, 30m, 1h, 168h)"]),
        CommandOption(name: "--json", argument: nil, help: ["one JSON object a line"]),
        CommandOption(name: "--state-dir", argument: "DIR", help: ["the state directory (default $XDG_STATE_HOME/widgethost)"]),
    ]
}

extension CommandLineParser {
    static func parseActivity(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var scanner = ArgumentScanner(arguments, subcommand: .activity)
        var options = ActivityOptions()
        var positionals: [String] = []
        var given: [String: String] = [:]
        while let token = try scanner.next() {
            switch token {
            case .option("--json"): options.json = true
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option(let name) where CommandOption.activityOptions.contains(where: { $0.name == name }):
                given[name] = scanner.value()
            case .option(let name): throw scanner.fail("\(name) is not an option of activity")
            case .positional(let argument): positionals.append(argument)
            }
        }
        let verbs = "start, update, end or list"
        guard let verb = positionals.first else { throw UsageError("activity expects \(verbs)", subcommand: .activity) }
        if verb == "list" {
            guard positionals.count == 1, given.isEmpty else { throw UsageError("list takes only --json and --state-dir", subcommand: .activity) }
            return .activity(options)
        }
        guard let action = ActivityRequest.Action(rawValue: verb) else {
            throw UsageError("'\(String(verb.prefix(64)))' is not an activity command: \(verbs)", subcommand: .activity)
        }
        guard positionals.count == 2 else {
            throw UsageError(positionals.count < 2 ? "\(verb) needs an ID, like: activity \(verb) build" : "\(verb) takes one ID", subcommand: .activity)
        }
        if options.json { throw UsageError("--json goes with list", subcommand: .activity) }
        var request = ActivityRequest(action: action, id: positionals[1], title: given["--title"], detail: given["--detail"])
        if let text = given["--progress"] {
            guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text) else {
                throw UsageError("--progress expects a number from 0 to 1, like 0.4; got '\(String(text.prefix(64)))'", subcommand: .activity)
            }
            request.progress = value
        }
        request.staleAfter = try duration(given["--stale-after"], "--stale-after")
        request.dismissAfter = try duration(given["--dismiss-after"], "--dismiss-after")
        if let name = given["--state"] {
            guard let state = Activity.State(rawValue: name), state != .active else {
                throw UsageError("--state expects success, failure or cancelled; got '\(String(name.prefix(64)))'", subcommand: .activity)
            }
            request.state = state
        }
        do throws(ActivityRequest.Invalid) {
            options.request = try request.validated()
        } catch {
            throw UsageError(error.description, subcommand: .activity)
        }
        return .activity(options)
    }

    static func parseEvents(_ arguments: [String]) throws(UsageError) -> HostCommand {
        var scanner = ArgumentScanner(arguments, subcommand: .events)
        var options = EventsOptions()
        while let token = try scanner.next() {
            switch token {
            case .option("--json"): options.json = true
            case .option("--state-dir"): options.stateDirectory = try path(scanner.value(), for: "--state-dir", scanner)
            case .option("--since"): options.since = try duration(scanner.value(), "--since", subcommand: .events)
            case .option(let name): throw scanner.fail("\(name) is not an option of events")
            case .positional(let argument): throw scanner.fail("unexpected argument '\(String(argument.prefix(64)))'")
            }
        }
        return .events(options)
    }

    /// `90s`, `10m`, `2h` (and `0` or `0s`); nil when not given.
    private static func duration(_ text: String?, _ option: String, subcommand: Subcommand = .activity) throws(UsageError) -> TimeInterval? {
        guard let text else { return nil }
        if text == "0" || text == "0s" { return 0 }
        guard let seconds = parseDurationSeconds(text) else {
            throw UsageError("\(option) expects a time like 90s, 10m or 2h; got '\(String(text.prefix(64)))'", subcommand: subcommand)
        }
        return seconds
    }
}
