import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import WidgetHost

/// `snapshot --replay FILE`: a run recorded headless into a log file, played back by the
/// command to the frames the run drew — at its end, at `--at`, and after its config file
/// changed — and listed with `--describe`.
@Suite("snapshot --replay", .serialized)
@MainActor
struct SnapshotReplayTests {
    @Test("the frame at the end and at --at +Ns is the recorded run's, also once the config file has changed; --describe lists the messages")
    func replaysAFileConfig() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.path + "/config.json"
        let text = #"""
            { "panels": [ { "kind": "clock", "family": "small", "title": "UTC", "options": { "timeZone": "UTC", "seconds": true } },
                          { "kind": "text", "family": "small", "title": "Note", "options": { "text": "hello" } } ] }
            """#
        #expect(FileManager.default.createFile(atPath: config, contents: Data(text.utf8)))
        let environment = HostEnvironment(variables: ["LANG": "C.UTF-8", "TZ": "UTC"], homeDirectory: directory.path)
        let start = Date(timeIntervalSince1970: 1_800_000_000.25)
        let size = TerminalSize(columns: 60, rows: 12)
        let run = try HeadlessDashboard.open(catalog: .builtin(), configPath: config, size: size, now: start, environment: environment).get()
        defer { run.close() }
        run.recordMessages()
        #expect(await run.settle(within: 10))
        #expect(await run.run(for: 9))
        let atNine = run.lines
        #expect(await run.run(for: 1))
        run.press(.tab)
        #expect(await run.run(for: 5))
        let end = run.lines

        let coding = MessageLogCoding(catalog: .builtin())
        let encoder = MessageLogFile.encoder(coding)
        var bytes = try MessageLogFile.line(MessageLogHeader(start: start, size: size, config: .recorded(config), theme: nil,
                                                             variables: environment.variables), encoder: encoder)
        for record in run.recordedMessages.records { bytes += try MessageLogFile.line(record, encoder: encoder) }
        let log = directory.path + "/run.jsonl"
        #expect(FileManager.default.createFile(atPath: log, contents: Data(bytes)))
        // The command's own environment differs: the log's zone and locale win.
        let other = HostEnvironment(variables: ["TZ": "Asia/Tokyo", "LANG": "C"], homeDirectory: directory.path)
        func frame(_ options: SnapshotOptions) async -> [String] {
            let output = await SnapshotCommand.run(options, environment: other, catalog: .builtin())
            #expect(output.exitCode == 0 && output.standardError.isEmpty, "\(output.standardError)")
            return output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        let trimmed = { (rows: [String]) in rows.map { String($0.reversed().drop { $0 == " " }.reversed()) } }
        #expect(trimmed(await frame(SnapshotOptions(replayPath: log))) == trimmed(end))
        let replayedNine = await frame(SnapshotOptions(at: .relative(seconds: 9), replayPath: log))
        #expect(trimmed(replayedNine) == trimmed(atNine), "\(replayedNine.joined(separator: "\n"))\n\(atNine.joined(separator: "\n"))")
        #expect(atNine != end, "the two moments differ (the seconds, the focus)")
        // The file changes after the run: the recorded text is replayed.
        #expect(FileManager.default.createFile(atPath: config, contents: Data(text.replacing("hello", with: "changed").utf8)))
        #expect(trimmed(await frame(SnapshotOptions(replayPath: log))) == trimmed(end))

        let listing = await SnapshotCommand.run(SnapshotOptions(replayPath: log, describe: true), environment: other, catalog: .builtin())
        let lines = listing.standardOutput.split(separator: "\n")
        #expect(lines.count == run.recordedMessages.records.count)
        #expect(lines.contains { $0.hasSuffix("key tab") && $0.hasPrefix("10.") }, "\(listing.standardOutput)")
    }
}
