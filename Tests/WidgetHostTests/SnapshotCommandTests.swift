import FoundationEssentials
import TerminalUI
import Testing
import Widgets
import WidgetTestSupport
@testable import WidgetHost

private let config = """
{ "panels": [
    { "kind": "clock", "family": "large", "title": "UTC 🕐 時計", "options": { "timeZone": "UTC", "seconds": true } },
    { "kind": "clock", "family": "small", "title": "Berlin", "options": { "timeZone": "Europe/Berlin" } },
    { "kind": "clock", "family": "small", "title": "New York", "options": { "timeZone": "America/New_York", "hour24": false } },
    { "kind": "stack", "family": "medium", "title": "Asia",
      "panels": [ { "kind": "clock", "title": "Tokyo", "options": { "timeZone": "Asia/Tokyo", "showDate": false } },
                  { "kind": "clock", "title": "Kolkata", "options": { "timeZone": "Asia/Kolkata", "showDate": false } } ] }
] }
"""

/// Writes `text` to a fresh temporary file and returns its path (the caller removes it).
private func temporaryConfig(_ text: String) -> String {
    let path = "/tmp/widgethost-snapshot-\(UInt64.random(in: 0...UInt64.max)).json"
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

private let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: "/nonexistent")
/// How long a snapshot may wait for its providers here: it returns as soon as they answer, but
/// a loaded CI machine running every suite at once can starve them for seconds.
private let patience = 60.0

// 2026-03-29T00:59:59Z: one second before Berlin springs forward.
private let moment = SnapshotTime.absolute(Date(timeIntervalSince1970: 1_774_745_999))

@Suite("snapshot command", .serialized)
@MainActor
struct SnapshotCommandTests {
    @Test("renders the dashboard at a chosen moment, at 80x24, 100x30 and 200x60")
    func sizes() async throws {
        let path = temporaryConfig(config)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            for size in [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 100, rows: 30), TerminalSize(columns: 200, rows: 60)] {
                let output = await SnapshotCommand.run(SnapshotOptions(configPath: path, size: size, at: moment, waitSeconds: patience),
                                                       environment: environment, catalog: .builtin())
                #expect(output.exitCode == 0)
                #expect(output.standardError == "")
                let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                #expect(lines.count == size.rows)
                expectSnapshot(output.standardOutput, named: "clocks-\(size)")
            }
        }
    }

    @Test("--at +90s moves the moment; the clocks show it, DST included")
    func relativeMoment() async throws {
        let path = temporaryConfig(config)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let base = Date(timeIntervalSince1970: 1_774_745_999)
            let output = await SnapshotCommand.run(SnapshotOptions(configPath: path, size: TerminalSize(columns: 100, rows: 30),
                                                                   at: .relative(seconds: 1), waitSeconds: patience),
                                                   environment: environment, catalog: .builtin(), wallClock: { base })
            // The clocks' big faces (BigText), at whatever width their panels give them.
            #expect(showsTime(output.standardOutput, "01:00:00"), "UTC\n\(output.standardOutput)")
            #expect(showsTime(output.standardOutput, "03:00"), "Berlin after the change\n\(output.standardOutput)")
            #expect(output.standardOutput.contains("CEST"))
        }
    }

    @Test("--color renders every built-in theme with ANSI colours")
    func themes() async throws {
        let path = temporaryConfig(config)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            for theme in Theme.builtinNames {
                let output = await SnapshotCommand.run(SnapshotOptions(configPath: path, theme: theme, size: TerminalSize(columns: 80, rows: 24),
                                                                       at: moment, waitSeconds: patience, color: true),
                                                       environment: environment, catalog: .builtin())
                #expect(output.exitCode == 0)
                #expect(output.standardOutput.contains("\u{1B}["))
                expectSnapshot(output.standardOutput, named: "clocks-80x24-\(theme)")
            }
        }
    }

    @Test("a bad config or theme exits 2 naming the problem")
    func badInput() async throws {
        let path = temporaryConfig(#"{ "panels": [ { "kind": "clock", "options": { "timeZone": "Mars/Base" } } ] }"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let output = await SnapshotCommand.run(SnapshotOptions(configPath: path), environment: environment, catalog: .builtin())
            #expect(output.exitCode == 2)
            #expect(output.standardError.contains("panels[0].options.timeZone"))
        }
        let output = await SnapshotCommand.run(SnapshotOptions(theme: "no-such-theme"), environment: environment, catalog: .builtin())
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("no-such-theme"))
    }
}

