import FoundationEssentials
import HostProcesses
import Synchronization
import WidgetCore

/// What a `command` panel runs, from its validated options.
struct CommandSpec: Sendable, Equatable {
    /// The program (a path) and its arguments.
    var arguments: [String]
    /// The whole environment: the host's with the `env` option's entries added.
    var environment: [String: String]
    var workingDirectory: String?
    /// Seconds between runs (from the end of one to the start of the next); 0: only on `r`.
    var intervalSeconds: Int
    var timeoutSeconds: Int
    var maxOutputBytes: Int
    var showsTail: Bool
}

/// Runs the command on each reload and answers with its output.
///
/// One run per reload, never two at once for a panel: the driver makes one call per instance
/// at a time, and a call arriving while a run is in flight (a snapshot, say) answers with the
/// last result instead of starting another. The timeline: the run's entry, then one a minute
/// (for "ran 3m ago") until the next run — for the first hour, then one an hour up to a day;
/// the policy is `.after(end + intervalSeconds)`, or `.never` with `intervalSeconds` 0 (the
/// panel runs on `r` only). The runs are real processes in real time (`CommandRunner`); dates
/// come from the environment's clock.
final class CommandProvider: TimelineProvider {
    typealias Entry = CommandEntry

    /// Lines kept in an entry: more than any panel shows.
    static let maximumLines = 500

    let spec: CommandSpec
    let runner: CommandRunner
    let now: @Sendable () -> Date
    private let state = Mutex<(running: Bool, last: CommandEntry?)>((false, nil))

    init(spec: CommandSpec, spawner: ProcessSpawner, now: @escaping @Sendable () -> Date) {
        self.spec = spec
        runner = CommandRunner(spawner: spawner)
        self.now = now
    }

    func placeholder(in context: Context) -> CommandEntry {
        .notRun(date: now(), showsTail: spec.showsTail)
    }

    func snapshot(in context: Context) async -> CommandEntry {
        state.withLock { $0.last } ?? placeholder(in: context)
    }

    func timeline(in context: Context) async throws -> Timeline<CommandEntry> {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else {
            let last = state.withLock { $0.last } ?? placeholder(in: context)
            return Timeline(entries: [last.at(now())], policy: .after(now().addingTimeInterval(1)))
        }
        defer { state.withLock { $0.running = false } }
        let run = await runner.run(spec.arguments, environment: spec.environment, workingDirectory: spec.workingDirectory,
                                   timeoutSeconds: spec.timeoutSeconds,
                                   output: CapturedOutput(limit: spec.maxOutputBytes, keep: spec.showsTail ? .tail : .head))
        try Task.checkCancellation()
        let ended = now()
        let entry = CommandEntry(date: ended, ranAt: ended,
                                 lines: CommandText.lines(run.output.text, keepLast: spec.showsTail, limit: Self.maximumLines),
                                 showsTail: spec.showsTail, outcome: run.outcome,
                                 droppedBytes: run.output.total - run.output.bytes.count)
        state.withLock { $0.last = entry }
        let offsets = Self.ageOffsets(before: spec.intervalSeconds)
        let entries = offsets.map { entry.at(ended.addingTimeInterval(TimeInterval($0))) }
        let policy: TimelineReloadPolicy = spec.intervalSeconds > 0
            ? .after(ended.addingTimeInterval(TimeInterval(spec.intervalSeconds))) : .never
        return Timeline(entries: entries, policy: policy)
    }

    /// Seconds after a run at which its age text changes: each minute for an hour, then each
    /// hour up to a day; only those before the next run (`interval` 0: no next run).
    static func ageOffsets(before interval: Int) -> [Int] {
        let all = Array(stride(from: 0, to: 3600, by: 60)) + Array(stride(from: 3600, through: 86_400, by: 3600))
        return interval > 0 ? all.filter { $0 < interval } : all
    }
}
