#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import JSONTree
import TerminalUI

/// `snapshot --record FILE --duration D [--step S]`: the dashboard played through simulated
/// time as an asciicast v2 file (a header line, then `[seconds, "o", text]` events), so a
/// countdown's last minute or a day of the leaderboard's projection is one command, with no
/// waiting. The first event draws the whole frame; each later one redraws only the rows that
/// changed since the frame before; a step that changes nothing writes nothing.
@MainActor
enum SnapshotRecording {
    /// Records into `path`; the command's output says how many frames and how long, or why the
    /// file could not be written (exit 2) or the disk filled (exit 1).
    static func record(_ dashboard: HeadlessDashboard, to path: String, duration: Double, step: Double, size: TerminalSize,
                       palette: TerminalPalette?, settleWithin: Double) async -> CommandOutput {
        let fd: Int32
        switch OutputFile.open(path, mode: 0o644) {
        case .success(let opened): fd = opened
        case .failure(let refusal):
            return CommandOutput(exitCode: 2, standardError: "widgethost snapshot: --record \(path): cannot write it: \(refusal.reason)\n")
        }
        defer { close(fd) }
        let header = "{\"version\": 2, \"width\": \(size.columns), \"height\": \(size.rows), "
            + "\"timestamp\": \(Int(dashboard.clock.now.timeIntervalSince1970)), \"title\": \"widgethost\", "
            + "\"env\": {\"TERM\": \"xterm-256color\"}}\n"
        var pending = header
        var previous: [String]?
        var frames = 0
        var unsettled = 0
        let steps = Int((duration / step).rounded(.down))
        for index in 0...steps {
            if index > 0, !(await dashboard.run(for: step, settleWithin: settleWithin)) { unsettled += 1 }
            let rows = lines(dashboard.render(), palette: palette)
            let output = Self.output(rows, since: previous)
            previous = rows
            guard !output.isEmpty else { continue }
            frames += 1
            pending += "[\(time(Double(index) * step)), \"o\", \(JSONValue.quoted(output, limit: nil))]\n"
            // Written as it goes, a megabyte at a time: a day at 1 s is many frames.
            if pending.utf8.count > 1 << 20 {
                guard OutputFile.write(fd, Array(pending.utf8)) else { return diskFull(path) }
                pending = ""
            }
        }
        guard OutputFile.write(fd, Array(pending.utf8)) else { return diskFull(path) }
        let warning = unsettled == 0 ? "" : "widgethost snapshot: \(unsettled) step(s) did not settle within \(settleWithin) s\n"
        return CommandOutput(exitCode: 0, standardOutput: "recorded \(frames) frame(s) over \(time(duration)) s to \(path)\n",
                             standardError: warning)
    }

    /// The frame's rows: with SGR colours for `palette`, plain without one.
    static func lines(_ frame: CellBuffer, palette: TerminalPalette?) -> [String] {
        guard let palette else { return TextBackend.lines(frame) }
        return TextBackend.ansiLines(frame, palette: palette)
    }

    /// What the terminal is sent: the whole screen the first time, then each changed row,
    /// cursor-addressed and cleared to its end.
    static func output(_ rows: [String], since previous: [String]?) -> String {
        guard let previous, previous.count == rows.count else {
            return "\u{1B}[H\u{1B}[2J" + rows.enumerated().map { "\u{1B}[\($0.offset + 1);1H" + $0.element }.joined()
        }
        return rows.indices.filter { rows[$0] != previous[$0] }.map { "\u{1B}[\($0 + 1);1H\u{1B}[2K" + rows[$0] }.joined()
    }

    /// Seconds as the cast writes them: at most three decimals.
    static func time(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        return millis % 1000 == 0 ? "\(millis / 1000)" : "\(millis / 1000).\(String(format3(millis % 1000)))"
    }

    private static func format3(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: 3 - text.count) + text
    }

    private static func diskFull(_ path: String) -> CommandOutput {
        CommandOutput(exitCode: 1, standardError: "widgethost snapshot: --record \(path): the file stopped taking writes (disk full?)\n")
    }
}
