import BackgroundSessions
import FoundationEssentials
import Glibc
import TerminalUI
import Testing
import WidgetTestSupport
@testable import WidgetHost

private let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: "/nonexistent")
// 2026-11-30T05:00:30Z
private let moment = Date(timeIntervalSince1970: 1_796_014_830)

@Suite("preview, themes and sessions commands", .serialized)
@MainActor
struct HeadlessCommandsTests {
    @Test("preview draws a widget's timeline entry by entry in its family's panel, titled as the dashboard titles it (titleOption)")
    func previewClock() async {
        let options = PreviewOptions(kind: "clock", family: .small, count: 2,
                                     options: [OptionAssignment(name: "timeZone", value: "UTC"), OptionAssignment(name: "seconds", value: "true")])
        let output = await PreviewCommand.run(options, environment: environment, catalog: .builtin(), now: moment)
        #expect(output.exitCode == 0)
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // A seconds clock is one entry a day: its time is a face drawn at the frame's moment,
        // here the entry's date (issue 26 item 1; it was 60 entries a second apart).
        #expect(lines[0] == "Clock (clock, small): 1 entry, policy after 2026-12-01T05:00:30Z")
        #expect(lines[1] == "entry 1 of 1 at 2026-11-30T05:00:30Z")
        #expect(lines[2] == "┌ UTC ─────────────────┐", "the clock's titleOption is timeZone, as on the dashboard")
        #expect(lines.contains("│       05:00:30       │"))
        #expect(!output.standardOutput.contains("more (use --count)"))
    }

    @Test("preview --snapshot draws the one entry a gallery shows (the provider's snapshot), policy never")
    func previewSnapshot() async {
        let options = PreviewOptions(kind: "clock", family: .small, options: [OptionAssignment(name: "timeZone", value: "UTC")], snapshot: true)
        let output = await PreviewCommand.run(options, environment: environment, catalog: .builtin(), now: moment)
        #expect(output.exitCode == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Clock (clock, small): 1 entry, policy never")
        #expect(lines[1].hasPrefix("entry 1 of 1 at "))
        #expect(!output.standardOutput.contains("more (use --count)"))
    }

    @Test("preview --snapshot of the leaderboard shows the sample board at once, its server unreachable (a gallery's sample data)")
    func previewSnapshotSample() async {
        let options = PreviewOptions(kind: "leaderboard", family: .large,
                                     options: [OptionAssignment(name: "url", value: "http://127.0.0.1:1/leaderboard")], snapshot: true)
        let output = await PreviewCommand.run(options, environment: environment, catalog: .builtin(), now: moment)
        #expect(output.exitCode == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("1   🐙 Octo") }, "\(output.standardOutput)")
        #expect(lines.contains { $0.contains("6   🐼 Power Pan") })
        #expect(!output.standardOutput.contains("couldn't") && !output.standardOutput.contains("error"))
    }

    @Test("preview refuses bad options with the option's path, exit 2")
    func previewErrors() async {
        let bad = await PreviewCommand.run(PreviewOptions(kind: "clock", options: [OptionAssignment(name: "seconds", value: "maybe")]),
                                           environment: environment, catalog: .builtin(), now: moment)
        #expect(bad.exitCode == 2)
        #expect(bad.standardError.contains("options.seconds"))
        let unknown = await PreviewCommand.run(PreviewOptions(kind: "clok"), environment: environment, catalog: .builtin(), now: moment)
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("unknown widget kind 'clok'"))
        let family = await PreviewCommand.run(PreviewOptions(kind: "hero", family: .large, options: [OptionAssignment(name: "name", value: "Octo")]),
                                              environment: environment, catalog: .builtin(), now: moment)
        #expect(family.exitCode == 2)
        #expect(family.standardError.contains("does not support family 'large'"))
    }

    @Test("themes lists every built-in theme; without colour it names the role colours")
    func themes() {
        let plain = ThemesCommand.run(environment: environment, color: false)
        #expect(plain.exitCode == 0)
        for name in Theme.builtinNames { #expect(plain.standardOutput.contains(name)) }
        #expect(plain.standardOutput.contains("accent=#5fafff"))
        #expect(!plain.standardOutput.contains("\u{1B}"))
        let coloured = ThemesCommand.run(environment: environment, color: true)
        #expect(coloured.standardOutput.contains("\u{1B}[0;38;5;"))
        var noColor = environment
        noColor.variables["NO_COLOR"] = "1"
        #expect(!ThemesCommand.run(environment: noColor, color: true).standardOutput.contains("\u{1B}"))
    }

    @Test("sessions on a state directory without a journal says so, exit 0")
    func sessions() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = SessionsCommand.run(SessionsOptions(stateDirectory: scratch.path), environment: environment)
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("No background sessions"))
    }

    @Test("sessions prints a server's reason, identifiers and URLs inert: no escape sequence reaches the terminal")
    func sessionsInert() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let state = scratch.path + "/state"
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
        _ = manager.session(identifier: "board\u{1B}[2J").downloadTask(with: URL(string: "http://user:secret@127.0.0.1:9/x")!,
                                                                      taskDescription: "d\u{9B}1m")
        transport.emit(transport.runningIDs[0], .retrying(attempt: 1, delay: .seconds(1),
                                                         reason: "server answered 500 \u{1B}]52;c;SGVsbG8=\u{07}\u{202E}\r\n"))
        manager.close()
        let output = SessionsCommand.run(SessionsOptions(stateDirectory: state), environment: environment)
        #expect(output.exitCode == 0)
        let text = output.standardOutput
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" },
                "\(text)")
        #expect(!text.contains("secret"))
        #expect(text.contains("session board␛[2J"))
        #expect(text.contains("task 1 \"d�1m\": in flight, 1 attempt, http://***@127.0.0.1:9/x"))
        #expect(text.contains("last error: server answered 500 ␛]52;c;SGVsbG8=␇�␍␊"))
    }

    @Test("sessions on a journal that is not a database says how out, exit 1; --purge moves it aside, exit 0")
    func sessionsNotADatabase() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let state = scratch.path + "/state"
        try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport()).close()
        let journal = BackgroundSessionManager.journalPath(stateDirectory: state)
        unlink(journal)
        let fd = open(journal, O_WRONLY | O_CREAT, 0o600)
        _ = write(fd, "not a database, really not\n", 28)
        close(fd)
        let listing = SessionsCommand.run(SessionsOptions(stateDirectory: state), environment: environment)
        #expect(listing.exitCode == 1)
        #expect(listing.standardError.contains("is not a database") && listing.standardError.contains("--purge"))
        let purge = SessionsCommand.run(SessionsOptions(stateDirectory: state, purge: true), environment: environment)
        #expect(purge.exitCode == 0)
        #expect(purge.standardOutput.contains("moved it aside to \(journal).corrupt-"), "\(purge.standardOutput)")
        #expect(SessionsCommand.run(SessionsOptions(stateDirectory: state), environment: environment).standardOutput
                == "No background sessions in \(state).\n")
    }
}
