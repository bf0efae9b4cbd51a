import FoundationEssentials
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
    @Test("preview draws a widget's timeline entry by entry in its family's panel")
    func previewClock() async {
        let options = PreviewOptions(kind: "clock", family: .small, count: 2,
                                     options: [OptionAssignment(name: "timeZone", value: "UTC"), OptionAssignment(name: "seconds", value: "true")])
        let output = await PreviewCommand.run(options, environment: environment, now: moment)
        #expect(output.exitCode == 0)
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Clock (clock, small): 60 entries, policy atEnd")
        #expect(lines[1] == "entry 1 of 60 at 2026-11-30T05:00:30Z")
        #expect(lines[2] == "┌ Clock ───────────────┐")
        #expect(lines.contains("│       05:00:30       │"))
        #expect(lines.contains("entry 2 of 60 at 2026-11-30T05:00:31Z"))
        #expect(lines.contains("│       05:00:31       │"))
        #expect(lines.contains("… 58 more (use --count)"))
    }

    @Test("preview refuses bad options with the option's path, exit 2")
    func previewErrors() async {
        let bad = await PreviewCommand.run(PreviewOptions(kind: "clock", options: [OptionAssignment(name: "seconds", value: "maybe")]),
                                           environment: environment, now: moment)
        #expect(bad.exitCode == 2)
        #expect(bad.standardError.contains("options.seconds"))
        let unknown = await PreviewCommand.run(PreviewOptions(kind: "clok"), environment: environment, now: moment)
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("unknown widget kind 'clok'"))
        let family = await PreviewCommand.run(PreviewOptions(kind: "hero", family: .large, options: [OptionAssignment(name: "name", value: "Octo")]),
                                              environment: environment, now: moment)
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
}
