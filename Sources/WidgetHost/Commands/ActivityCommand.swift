import FoundationEssentials
import JSONTree
import Widgets

/// `widgethost activity start|update|end ID …` sends the request to the dashboard running on
/// the state directory (its control socket: `ControlRequests`); `activity list` reads the
/// journal (`ActivityJournal`), so it works with no dashboard running.
enum ActivityCommand {
    static func run(_ options: ActivityOptions, environment: HostEnvironment, now: Date) -> CommandOutput {
        let directory: String
        switch ControlClient.stateDirectory(options.stateDirectory, environment: environment) {
        case .success(let found): directory = found
        case .failure(let failure): return output(failure)
        }
        guard let request = options.request else { return list(ActivityJournal(stateDirectory: directory).activities(), json: options.json, now: now) }
        switch ControlClient.call("activity", params: request.params, stateDirectory: directory, environment: environment,
                                  invalidParamsStatus: 2) {
        case .success: return CommandOutput(exitCode: 0)
        case .failure(let failure): return output(failure)
        }
    }

    /// One JSON array (`--json`), or a line per activity, newest first.
    static func list(_ activities: [Activity], json: Bool, now: Date) -> CommandOutput {
        if json { return CommandOutput(exitCode: 0, standardOutput: JSONValue.array(activities.map { $0.listJSON(at: now) }).jsonText + "\n") }
        guard !activities.isEmpty else { return CommandOutput(exitCode: 0, standardOutput: "no activities\n") }
        let idWidth = activities.map(\.id.count).max() ?? 0
        let lines = activities.map { activity in
            var state = activity.state.rawValue
            if activity.isStale(at: now) { state += " (stale)" }
            let progress = activity.progress.map(ActivityMarks.percent) ?? "-"
            let pad = String(repeating: " ", count: idWidth - activity.id.count)
            let detail = activity.detail.map { " — " + $0 } ?? ""
            return "\(activity.id)\(pad)  \(state)  \(progress)  \(activity.title)\(detail)  "
                + "(updated \(DurationText.age(from: activity.updated, to: now)) ago)\n"
        }
        return CommandOutput(exitCode: 0, standardOutput: lines.joined())
    }

    private static func output(_ failure: ControlClient.Failure) -> CommandOutput {
        CommandOutput(exitCode: failure.status, standardError: "widgethost activity: \(failure.message)\n")
    }
}

/// `widgethost events [--since TIME] [--json]`: the journal's history, oldest first.
enum EventsCommand {
    static func run(_ options: EventsOptions, environment: HostEnvironment, now: Date) -> CommandOutput {
        let directory: String
        switch ControlClient.stateDirectory(options.stateDirectory, environment: environment) {
        case .success(let found): directory = found
        case .failure(let failure): return CommandOutput(exitCode: failure.status, standardError: "widgethost events: \(failure.message)\n")
        }
        var events = ActivityJournal(stateDirectory: directory).events()
        if let since = options.since { events.removeAll { $0.time < now.addingTimeInterval(-since) } }
        if options.json { return CommandOutput(exitCode: 0, standardOutput: events.map { $0.listJSON.jsonText + "\n" }.joined()) }
        guard !events.isEmpty else { return CommandOutput(exitCode: 0, standardOutput: "no events\n") }
        return CommandOutput(exitCode: 0, standardOutput: events.map { event in
            let panel = event.panel.flatMap { $0 == event.title ? nil : "[\($0)] " } ?? ""
            return "\(ISOText.utc(event.time))  \(event.kind.rawValue)  \(event.level.rawValue)  \(panel)\(event.title): \(event.text)\n"
        }.joined())
    }
}
