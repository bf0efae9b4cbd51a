import Testing
@testable import WidgetHost

private func check(_ path: String?, environment: HostEnvironment = HostEnvironment()) -> CommandOutput {
    CheckConfigCommand.run(path: path, environment: environment, catalog: FixtureDescriptors.catalog,
                           isKnownTimeZone: FixtureDescriptors.timeZones)
}

@Suite("check-config")
struct CheckConfigCommandTests {
    @Test("a valid file prints 'PATH: ok' and exits 0")
    func ok() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("ok.json", #"{"panels": [{"kind": "clock", "options": {"timeZone": "UTC"}}]}"#)
        #expect(check(file) == CommandOutput(exitCode: 0, standardOutput: "\(file): ok\n"))
    }

    @Test("warnings follow the ok line")
    func warnings() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("w.json", """
            {"minimumReloadSeconds": 20, "panels": [{"kind": "leaderboard", "options": {"url": "http://h", "refreshSeconds": 3}}]}
            """)
        #expect(check(file) == CommandOutput(exitCode: 0, standardOutput: """
            \(file): ok
            \(file): panels[0].options.refreshSeconds: warning: 3 is below minimumReloadSeconds; raised to 20

            """))
    }

    @Test("a stack of one panel is fine, with a warning that it is shown as that panel")
    func stackOfOne() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("one.json", #"{"panels": [{"kind": "stack", "panels": [{"kind": "clock", "options": {"timeZone": "UTC"}}]}]}"#)
        #expect(check(file) == CommandOutput(exitCode: 0, standardOutput: """
            \(file): ok
            \(file): panels[0].panels: warning: a stack of one panel is shown as that panel; add panels to rotate, or write it without the stack

            """))
    }

    @Test("every error goes to stderr prefixed with the path, exit 2")
    func errors() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("bad.json", """
            {"panels": [{"kind": "clock"}, {"kind": "leaderboard", "options": {"url": "http://h", "refreshSeconds": "ten"}},
                        {"kind": "leaderboard", "options": {"url": "http://h", "refreshSecond": 5}}]}
            """)
        #expect(check(file) == CommandOutput(exitCode: 2, standardError: """
            \(file): panels[1].options.refreshSeconds: expected an integer ≥ 1, got "ten"
            \(file): panels[2].options.refreshSecond: unknown option; did you mean 'refreshSeconds'?

            """))
    }

    @Test("syntax errors, missing and oversized files exit 2 with one line naming the file")
    func unreadable() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let syntax = directory.write("syntax.json", "{\n  \"panels\": [,]\n}")
        #expect(check(syntax) == CommandOutput(exitCode: 2,
            standardError: "\(syntax): line 2, column 14: unexpected ','; expected a value\n"))
        let missing = directory.path + "/missing.json"
        #expect(check(missing) == CommandOutput(exitCode: 2, standardError: "\(missing): no such file (named by check-config)\n"))
        let huge = directory.write("huge.json", [UInt8](repeating: 0x20, count: (1 << 20) + 1))
        #expect(check(huge) == CommandOutput(exitCode: 2, standardError: "\(huge): larger than the limit of 1048576 bytes\n"))
        #expect(check(directory.path).exitCode == 2)
    }

    @Test("without PATH it checks the file the lookup finds, or says the default dashboard is used")
    func lookup() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let environment = HostEnvironment(variables: ["XDG_CONFIG_HOME": directory.path], homeDirectory: "/nonexistent")
        #expect(check(nil, environment: environment) == CommandOutput(exitCode: 0, standardOutput:
            "no config file found (looked for \(directory.path)/widgethost/config.json); the default dashboard will be used\n"))
        directory.makeDirectory("widgethost")
        let file = directory.write("widgethost/config.json", #"{"panels": [{"kind": "clock"}]}"#)
        #expect(check(nil, environment: environment) == CommandOutput(exitCode: 0, standardOutput: "\(file): ok\n"))
        let named = HostEnvironment(variables: ["WIDGETHOST_CONFIG": directory.path + "/gone.json"])
        #expect(check(nil, environment: named) == CommandOutput(exitCode: 2,
            standardError: "\(directory.path)/gone.json: no such file (named by $WIDGETHOST_CONFIG)\n"))
    }

    @Test("WidgetHostCommand routes check-config, usage errors, widgets and preview")
    func routing() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("c.json", #"{"panels": [{"kind": "clok"}]}"#)
        let environment = HostEnvironment()
        let run = { (arguments: [String]) in
            WidgetHostCommand.run(arguments: arguments, environment: environment, catalog: FixtureDescriptors.catalog)
        }
        #expect(run(["check-config", file]) == CommandOutput(exitCode: 2,
            standardError: "\(file): panels[0].kind: unknown widget kind \"clok\"; did you mean 'clock'?\n"))
        #expect(run(["check-config", "--nope"]).exitCode == 2)
        #expect(run(["--version"]) == CommandOutput(exitCode: 0, standardOutput: "widgethost \(WidgetHostCommand.version)\n"))
        #expect(run(["snapshot", "--help"]) == CommandOutput(exitCode: 0, standardOutput: HelpText.text(for: .snapshot, catalog: FixtureDescriptors.catalog)))
        let widgets = run(["widgets"])
        #expect(widgets.exitCode == 0)
        #expect(widgets.standardOutput.contains("leaderboard: Leaderboard. Heroes ranked by experience.\n  families: medium, large (default), extraLarge\n"))
        #expect(widgets.standardOutput.contains("  refreshSeconds  an integer ≥ 1, default 10\n"))
        #expect(widgets.standardOutput.contains("  url             a URL (http or https), required\n"))
        #expect(run(["preview", "leaderboard", "--option", "maxRows=0"]) == CommandOutput(exitCode: 2, standardError: """
            widgethost preview: options.url: missing required option: the leaderboard's URL (a URL (http or https))
            widgethost preview: options.maxRows: expected an integer in 1…50, got 0

            """))
    }
}
