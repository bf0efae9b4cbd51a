import FoundationEssentials
import TerminalUI
import WidgetCore

/// One moment of a `command` panel: the last run's output and how it ended, as of `date`.
public struct CommandEntry: TimelineEntry, Equatable {
    public var date: Date
    /// When the run finished; nil before the first run.
    public var ranAt: Date?
    /// The lines kept (the last or first `CommandProvider.maximumLines`), styled.
    public var lines: [[ViewNode.Span]]
    /// True for `show: tail` (the last lines that fit are shown), false for `head`.
    public var showsTail: Bool
    var outcome: CommandRun.Outcome?
    /// Bytes the command wrote beyond `maxOutputBytes`, read and dropped.
    public var droppedBytes: Int

    init(date: Date, ranAt: Date?, lines: [[ViewNode.Span]], showsTail: Bool, outcome: CommandRun.Outcome?, droppedBytes: Int) {
        self.date = date
        self.ranAt = ranAt
        self.lines = lines
        self.showsTail = showsTail
        self.outcome = outcome
        self.droppedBytes = droppedBytes
    }

    /// Before the first run.
    static func notRun(date: Date, showsTail: Bool) -> CommandEntry {
        CommandEntry(date: date, ranAt: nil, lines: [], showsTail: showsTail, outcome: nil, droppedBytes: 0)
    }

    /// The same run, as seen at `date`.
    func at(_ date: Date) -> CommandEntry {
        var copy = self
        copy.date = date
        return copy
    }

    /// The status line: how the run ended (when not with 0) and how long ago.
    var status: (text: String, role: StyleRole) {
        guard let outcome else { return ("not run yet", .muted) }
        let age = ranAt.map { "ran \(DurationText.age(from: $0, to: date)) ago" } ?? ""
        func with(_ reason: String) -> String { age.isEmpty ? reason : "\(reason) · \(age)" }
        switch outcome {
        case .exited(0): return (age, .muted)
        case .exited(let status): return (with("exit \(status)"), .negative)
        case .signalled(let signal): return (with("killed by signal \(signal)"), .negative)
        case .timedOut(let seconds): return (with("timed out after \(seconds)s"), .negative)
        case .failedToStart(let reason): return (with("cannot start: \(reason)"), .negative)
        case .cancelled: return (with("cancelled"), .negative)
        }
    }
}
