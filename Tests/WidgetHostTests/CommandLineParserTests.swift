import TerminalUI
import FoundationEssentials
import Testing
import WidgetCore
@testable import WidgetHost

private func parse(_ arguments: [String]) throws(UsageError) -> HostCommand {
    try CommandLineParser.parse(arguments)
}

private func usageError(_ arguments: [String]) -> String? {
    do {
        _ = try CommandLineParser.parse(arguments)
        return nil
    } catch {
        return error.description
    }
}

@Suite("Command line")
struct CommandLineParserTests {
    @Test("no arguments runs the dashboard; its options are typed")
    func dashboard() throws {
        #expect(try parse([]) == .dashboard(DashboardOptions()))
        #expect(try parse(["--config", "c.json", "--theme=mono", "--state-dir", "/s", "--debug"])
                == .dashboard(DashboardOptions(configPath: "c.json", theme: "mono", stateDirectory: "/s", debug: true)))
    }

    @Test("--version and --help, and help on every subcommand")
    func helpAndVersion() throws {
        #expect(try parse(["--version"]) == .version)
        #expect(try parse(["--help"]) == .help(nil))
        #expect(try parse(["-h"]) == .help(nil))
        #expect(try parse(["--debug", "--help"]) == .help(nil))
        for subcommand in Subcommand.allCases where subcommand != .help {
            #expect(try parse([subcommand.rawValue, "--help"]) == .help(subcommand))
            #expect(try parse(["help", subcommand.rawValue]) == .help(subcommand))
        }
        #expect(try parse(["snapshot", "--size", "bogus", "--help"]) == .help(.snapshot))
        #expect(try parse(["help"]) == .help(nil))
        #expect(try parse(["preview", "--", "--help"]) == .preview(PreviewOptions(kind: "--help")))
    }

    @Test("snapshot parses size, time, wait and colour")
    func snapshot() throws {
        #expect(try parse(["snapshot"]) == .snapshot(SnapshotOptions()))
        let command = try parse(["snapshot", "--config", "c.json", "--size", "80x24", "--at", "+90s", "--wait", "2.5", "--color"])
        #expect(command == .snapshot(SnapshotOptions(configPath: "c.json", size: TerminalSize(columns: 80, rows: 24),
                                                     at: .relative(seconds: 90), waitSeconds: 2.5, color: true)))
        #expect(try parse(["snapshot", "--format", "svg"]) == .snapshot(SnapshotOptions(format: .svg)))
        #expect(try parse(["snapshot", "--format=html"]) == .snapshot(SnapshotOptions(format: .html)))
        #expect(try parse(["snapshot", "--format", "ansi"]) == .snapshot(SnapshotOptions(color: true)))
        #expect(usageError(["snapshot", "--format", "png"])?.contains("--format expects one of text, ansi, svg, html; got 'png'") == true)
        #expect(try parse(["snapshot", "--at=2026-11-30T05:00:00Z"])
                == .snapshot(SnapshotOptions(at: .absolute(Date(timeIntervalSince1970: 1_796_014_800)))))
    }

    @Test("--at accepts ISO 8601 with Z or an offset, and +Ns, +Nm, +Nh")
    func snapshotTimes() {
        let epoch = Date(timeIntervalSince1970: 1_796_014_800) // 2026-11-30T05:00:00Z
        #expect(SnapshotTime(parsing: "2026-11-30T05:00:00Z") == .absolute(epoch))
        #expect(SnapshotTime(parsing: "2026-11-30T06:00:00+01:00") == .absolute(epoch))
        #expect(SnapshotTime(parsing: "2026-11-30T00:30:00-0430") == .absolute(epoch))
        #expect(SnapshotTime(parsing: "2026-11-30T05:00Z") == .absolute(epoch))
        #expect(SnapshotTime(parsing: "2026-11-30T05:00:00.250Z") == .absolute(epoch.addingTimeInterval(0.25)))
        #expect(SnapshotTime(parsing: "1970-01-01T00:00:00Z") == .absolute(Date(timeIntervalSince1970: 0)))
        #expect(SnapshotTime(parsing: "2024-02-29T12:00:00Z") == .absolute(Date(timeIntervalSince1970: 1_709_208_000)))
        #expect(SnapshotTime(parsing: "+90s") == .relative(seconds: 90))
        #expect(SnapshotTime(parsing: "+5m") == .relative(seconds: 300))
        #expect(SnapshotTime(parsing: "+2h") == .relative(seconds: 7200))
        #expect(SnapshotTime.relative(seconds: 90).date(now: epoch) == epoch.addingTimeInterval(90))
        for bad in ["2026-11-30T05:00:00", "2026-11-30 05:00:00Z", "2026-02-30T05:00:00Z", "2025-02-29T00:00:00Z",
                    "2026-11-30T24:00:00Z", "2026-11-30T05:60:00Z", "2026-11-30T05:00:00.Z", "2026-11-30T05:00:00Zjunk",
                    "+90", "+90d", "+s", "-90s", "+99999999999999999999s", "+9000h", "now", ""] {
            #expect(SnapshotTime(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("--size is COLSxROWS within 1…1000")
    func sizes() {
        #expect(TerminalSize(parsing: "100x30") == TerminalSize(columns: 100, rows: 30))
        #expect(TerminalSize(parsing: "1x1") == TerminalSize(columns: 1, rows: 1))
        #expect(TerminalSize(parsing: "1000x1000") == TerminalSize(columns: 1000, rows: 1000))
        for bad in ["0x30", "1001x30", "100x", "x30", "100x30x2", "-1x5", "+5x5", "100 x30", ""] {
            #expect(TerminalSize(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("preview takes a KIND, a family, a count and repeated options")
    func preview() throws {
        #expect(try parse(["preview", "clock", "--family", "medium", "--count", "3", "--option", "timeZone=UTC",
                           "--option=seconds=true", "--option", "title=a=b"])
                == .preview(PreviewOptions(kind: "clock", family: .medium, count: 3, options: [
                    OptionAssignment(name: "timeZone", value: "UTC"), OptionAssignment(name: "seconds", value: "true"),
                    OptionAssignment(name: "title", value: "a=b")])))
    }

    @Test("check-config, themes, widgets and sessions")
    func otherSubcommands() throws {
        #expect(try parse(["check-config"]) == .checkConfig(path: nil))
        #expect(try parse(["check-config", "my.json"]) == .checkConfig(path: "my.json"))
        #expect(try parse(["themes"]) == .themes)
        #expect(try parse(["widgets"]) == .widgets())
        #expect(try parse(["sessions"]) == .sessions(SessionsOptions()))
        #expect(try parse(["sessions", "--purge", "--state-dir", "/s"]) == .sessions(SessionsOptions(stateDirectory: "/s", purge: true)))
    }

    @Test("bad usage gives one line naming the problem and where to find help", arguments: [
        (["snapsot"], "widgethost: unknown command 'snapsot'; did you mean 'snapshot'?\nsee 'widgethost --help'"),
        (["--confg", "x"], "widgethost: unknown option '--confg'; did you mean '--config'?\nsee 'widgethost --help'"),
        (["--config"], "widgethost: --config needs a value\nsee 'widgethost --help'"),
        (["--config", "--debug"], "widgethost: --config needs a value\nsee 'widgethost --help'"),
        (["--config="], "widgethost: --config needs a non-empty value\nsee 'widgethost --help'"),
        (["--debug", "extra"], "widgethost: unexpected argument 'extra'\nsee 'widgethost --help'"),
        (["--debug=yes"], "widgethost: --debug takes no value\nsee 'widgethost --help'"),
        (["--debug", "--debug"], "widgethost: --debug is given more than once\nsee 'widgethost --help'"),
        (["--version", "x"], "widgethost: --version takes no other arguments\nsee 'widgethost --help'"),
        (["snapshot", "--size", "0x30"], "widgethost snapshot: --size expects COLSxROWS with each in 1…1000, like 100x30; got '0x30'\nsee 'widgethost snapshot --help'"),
        (["snapshot", "--at", "tomorrow"], "widgethost snapshot: --at expects an ISO 8601 time with Z or an offset (2026-11-30T05:00:00Z) or +N followed by s, m or h (+90s); got 'tomorrow'\nsee 'widgethost snapshot --help'"),
        (["snapshot", "--wait", "-1"], "widgethost snapshot: --wait expects seconds from 0 to 600; got '-1'\nsee 'widgethost snapshot --help'"),
        (["snapshot", "--wait", "601"], "widgethost snapshot: --wait expects seconds from 0 to 600; got '601'\nsee 'widgethost snapshot --help'"),
        (["snapshot", "--debug"], "widgethost snapshot: unknown option '--debug'\nsee 'widgethost snapshot --help'"),
        (["extension", "run", "a/b", "--extensions-dir", "/x", "--extensions-dir", "/y"], "widgethost extension: --extensions-dir is given more than once (it takes one directory)\nsee 'widgethost extension run --help'"),
        (["preview"], "widgethost preview: missing the widget KIND (see 'widgethost widgets')\nsee 'widgethost preview --help'"),
        (["preview", "a", "b"], "widgethost preview: unexpected argument 'b'\nsee 'widgethost preview --help'"),
        (["preview", "clock", "--family", "smal"], "widgethost preview: --family expects one of small, medium, large, extraLarge; got 'smal'; did you mean 'small'?\nsee 'widgethost preview --help'"),
        (["preview", "clock", "--count", "0"], "widgethost preview: --count expects an integer in 1…1000; got '0'\nsee 'widgethost preview --help'"),
        (["preview", "clock", "--option", "seconds"], "widgethost preview: --option expects NAME=VALUE; got 'seconds'\nsee 'widgethost preview --help'"),
        (["preview", "clock", "--option", "=x"], "widgethost preview: --option expects NAME=VALUE; got '=x'\nsee 'widgethost preview --help'"),
        (["preview", "clock", "--option", "a=1", "--option", "a=2"], "widgethost preview: option 'a' is given more than once\nsee 'widgethost preview --help'"),
        (["check-config", "a", "b"], "widgethost check-config: expects at most one PATH\nsee 'widgethost check-config --help'"),
        (["check-config", "--strict"], "widgethost check-config: unknown option '--strict'\nsee 'widgethost check-config --help'"),
        (["themes", "dark"], "widgethost themes: unexpected argument 'dark'\nsee 'widgethost themes --help'"),
        (["widgets", "--all"], "widgethost widgets: unknown option '--all'\nsee 'widgethost widgets --help'"),
        (["sessions", "--purge", "--purge"], "widgethost sessions: --purge is given more than once\nsee 'widgethost sessions --help'"),
        (["help", "nothing"], "widgethost help: no help for 'nothing': not a command\nsee 'widgethost help --help'"),
    ])
    func usageErrors(arguments: [String], expected: String) {
        #expect(usageError(arguments) == expected)
    }

    @Test("help texts document every option the parser accepts, and the dashboard keys")
    func helpTexts() {
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--state-dir DIR"))
        for key in ["Tab, Shift-Tab", "arrows, h j k l", "Enter", "Esc", "r ", "R ", "t ", "p ", "? ", "q "] {
            #expect(HelpText.text(for: nil, catalog: .builtin()).contains("\n  \(key)"), "\(key)")
        }
        let expectations: [(Subcommand?, [String])] = [
            (nil, ["--config", "--theme", "--state-dir", "--debug", "--help", "--version"]),
            (.snapshot, ["--config", "--size", "--at", "--wait", "--format", "--color", "--theme", "--state-dir", "--help"]),
            (.preview, ["--family", "--count", "--option", "--help"]),
            (.checkConfig, ["[PATH]", "--help"]),
            (.sessions, ["--state-dir", "--purge", "--help"]),
        ]
        for (subcommand, options) in expectations {
            for option in options {
                #expect(HelpText.text(for: subcommand, catalog: .builtin()).contains(option), "\(String(describing: subcommand)) \(option)")
            }
        }
        for subcommand in Subcommand.allCases {
            let text = HelpText.text(for: subcommand, catalog: .builtin())
            #expect(text.hasSuffix("\n") && !text.hasSuffix("\n\n\n"))
            #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 })
        }
    }

    @Test("help and parser share one table: every option the help lists is accepted, every accepted one is listed")
    func helpMatchesParser() throws {
        for subcommand in [nil] + Subcommand.allCases.map(Optional.some) {
            let help = HelpText.text(for: subcommand, catalog: .builtin())
            for option in CommandOption.options(of: subcommand) {
                #expect(help.contains("\n  \(option.label)  "), "\(String(describing: subcommand)) \(option.label)")
                #expect(help.contains("[\(option.label)]"), "usage of \(String(describing: subcommand)) \(option.label)")
                var scanner = ArgumentScanner(option.argument == nil ? [option.name] : [option.name, "x"], subcommand: subcommand)
                #expect(try scanner.next() == .option(option.name))
            }
        }
    }
}
