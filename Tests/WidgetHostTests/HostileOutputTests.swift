import Testing
@testable import WidgetHost
import Widgets

private func run(_ arguments: [String], environment: HostEnvironment = HostEnvironment()) -> CommandOutput {
    WidgetHostCommand.run(arguments: arguments, environment: environment, catalog: FixtureDescriptors.catalog)
}

private let escape = "\u{1B}"
private let rightToLeftOverride = "\u{202E}"

/// Nothing printed that came from a file may move the cursor, recolour the terminal, reverse
/// the reading order or flood the screen.
private func expectInert(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!text.contains(escape), "raw ESC in output", sourceLocation: sourceLocation)
    #expect(!text.contains(rightToLeftOverride), "raw U+202E in output", sourceLocation: sourceLocation)
    #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "a control character in output",
            sourceLocation: sourceLocation)
}

@Suite("printing what came from outside")
struct HostileOutputTests {
    @Test("20,000 unknown keys print at most 50 errors and a count of the rest")
    func errorFlood() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let keys = (0..<20_000).map { "\"key\($0)\": 1" }.joined(separator: ",")
        let file = directory.write("flood.json", "{\(keys), \"panels\": []}")
        let output = run(["check-config", file])
        #expect(output.exitCode == 2)
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.count == ConfigDiagnostic.printLimit + 1)
        let more = lines.last.flatMap { $0.split(separator: " ").dropLast().last }.flatMap { Int($0) }
        #expect(lines.last?.hasPrefix("\(file): … and ") == true)
        #expect(more.map { $0 >= 19_950 } == true)
        #expect(output.standardError.utf8.count < 10_000)
    }

    @Test("a long key is cut to 40 characters and quoted")
    func longKey() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let key = String(repeating: "k", count: 10_000)
        let file = directory.write("long.json", "{\"\(key)\": 1, \"panels\": []}")
        let output = run(["check-config", file])
        #expect(output.exitCode == 2)
        #expect(output.standardError.hasPrefix("\(file): [\"\(String(repeating: "k", count: 40))…\"]: unknown key"))
        #expect(output.standardError.utf8.count < 400)
    }

    @Test("escape sequences and bidi controls in keys and values are printed escaped")
    func controlsInConfig() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("controls.json", #"""
            {"ti\u001b[2Jtle\u202e": 1,
             "panels": [{"kind": "clock\u202egnp.exe", "options": {"\u009b31m": "\u001b]52;c;aGk=\u0007"}}]}
            """#)
        let output = run(["check-config", file])
        #expect(output.exitCode == 2)
        expectInert(output.standardError)
        #expect(output.standardError.contains(#"["ti\u001b[2Jtle\u202e"]: unknown key"#))
        #expect(output.standardError.contains(#"unknown widget kind "clock\u202egnp.exe""#))
    }

    @Test("a theme file's hostile keys reach stderr escaped, and the config is refused")
    func hostileTheme() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let theme = directory.write("evil.json", ##"{"\u001b[31mred": 1, "colors": {"\u202eaccent": "#ffffff"}}"##)
        let file = directory.write("config.json", #"{"theme": "\#(theme)", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}"#)
        let output = run(["check-config", file])
        #expect(output.exitCode == 2)
        expectInert(output.standardError)
        #expect(output.standardError.contains(#"theme: \#(theme): "\u001b[31mred": unknown key"#))
        #expect(output.standardError.contains(#"colors."\u202eaccent": unknown role"#))
    }

    @Test("check-config refuses a theme that does not exist or has a bad colour, as --config does")
    func themeChecked() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.write("missing.json", #"{"theme": "no-such-theme", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}"#)
        let unknown = run(["check-config", missing])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.hasPrefix("\(missing): theme: no-such-theme: unknown theme"))
        let badColour = directory.write("bad-colour.json", ##"{"colors": {"accent": "#12345"}}"##)
        let bad = directory.write("bad.json", #"{"theme": "\#(badColour)", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}"#)
        #expect(run(["check-config", bad]) == CommandOutput(exitCode: 2, standardError: """
            \(bad): theme: \(badColour): colors.accent: "#12345" is not a colour (expected #rrggbb, a colour name, 0-255 or "default")

            """))
        let good = directory.write("good.json", #"{"theme": "default", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}"#)
        #expect(run(["check-config", good]) == CommandOutput(exitCode: 0, standardOutput: "\(good): ok\n"))
    }

    @Test("a theme with thousands of problems is described in 50 lines and a count")
    func themeFlood() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let keys = (0..<5_000).map { "\"k\($0)\": 1" }.joined(separator: ",")
        let theme = directory.write("flood.json", "{\(keys)}")
        let file = directory.write("config.json", #"{"theme": "\#(theme)", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}"#)
        let output = run(["check-config", file])
        #expect(output.exitCode == 2)
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.count == 51)
        #expect(lines.last?.hasSuffix("… and 4950 more") == true)
    }

    @Test("command output is made inert, except escapes a command adds on purpose")
    func inertOutput() {
        let raw = CommandOutput(exitCode: 1, standardOutput: "a\u{1B}[2Jb\n", standardError: "c\u{9B}d\u{202E}e\n")
        #expect(raw.inert() == CommandOutput(exitCode: 1, standardOutput: "a␛[2Jb\n", standardError: "c\u{FFFD}d\u{FFFD}e\n"))
        let colored = CommandOutput(exitCode: 0, standardOutput: "\u{1B}[31mx\u{1B}[0m\n", standardError: "\u{1B}",
                                    standardOutputHasEscapes: true)
        #expect(colored.inert().standardOutput == colored.standardOutput)
        #expect(colored.inert().standardError == "␛")
    }
}
