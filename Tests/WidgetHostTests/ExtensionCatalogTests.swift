#if canImport(Glibc)
import Glibc
#endif
import Testing
import TerminalUI
@testable import WidgetHost
import WidgetTestSupport

/// A config home with one good extension (`weather`) and one broken one, and a config using
/// the good one's kind.
private struct ExtensionHome {
    let scratch: ScratchDirectory
    var environment: HostEnvironment { HostEnvironment(variables: ["XDG_CONFIG_HOME": scratch.path, "HOME": scratch.path]) }

    init(broken: Bool = true) throws {
        scratch = try ScratchDirectory()
        for folder in ["/widgethost", "/widgethost/extensions", "/widgethost/extensions/weather"] + (broken ? ["/widgethost/extensions/broken"] : []) {
            mkdir(scratch.path + folder, 0o755)
        }
        try scratch.write("widgethost/extensions/weather/extension.json", """
            { "name": "weather", "exec": ["./never-run"], "protocol": 1,
              "widgets": [ { "kind": "today", "displayName": "Weather", "description": "Today's weather.",
                             "families": ["small", "medium"],
                             "options": { "city": { "type": "string", "default": "Paris", "doc": "the city" },
                                          "days": { "type": "integer", "min": 1, "max": 7, "default": 3, "doc": "days shown" } },
                             "actions": [ { "key": "u", "title": "units" } ] } ] }
            """)
        if broken {
            try scratch.write("widgethost/extensions/broken/extension.json", #"{"name": "broken", "exec": ["x"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K", "options": {"z": {"type": "url", "default": "http:nowhere"}}}]}"#)
        }
    }

    func run(_ arguments: [String]) -> CommandOutput {
        WidgetHostCommand.run(arguments: arguments, environment: environment, catalog: .builtin())
    }
}

@Suite("Extension kinds in the catalogue")
struct ExtensionCatalogTests {
    @Test("`widgets` lists an extension's kinds as NAME/KIND with their options, and reports a bad extension")
    func widgetsListing() throws {
        let home = try ExtensionHome()
        defer { home.scratch.remove() }
        let output = home.run(["widgets"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("weather/today: Weather. Today's weather.\n  families: small (default), medium\n"))
        #expect(output.standardOutput.contains("  city  a string, default \"Paris\"\n        the city\n"))
        #expect(output.standardOutput.contains("  key u: units\n"))
        #expect(!output.standardOutput.contains("broken/k"))
        #expect(output.standardError.hasPrefix("widgethost: extension skipped: \(home.scratch.path)/widgethost/extensions/broken/extension.json: widgets[0]: broken/k: default of 'z': "))
        #expect(output.standardError.split(separator: "\n").count == 1)
    }

    @Test("check-config validates the options of NAME/KIND panels with key paths")
    func checkConfig() throws {
        let home = try ExtensionHome(broken: false)
        defer { home.scratch.remove() }
        let config = try home.scratch.write("config.json", #"{"panels": [{"kind": "weather/today", "options": {"days": 9, "cty": "Oslo"}}, {"kind": "weather/tomorrow"}]}"#)
        let output = home.run(["check-config", config])
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("\(config): panels[0].options.days: "))
        #expect(output.standardError.contains("\(config): panels[0].options.cty: "))
        #expect(output.standardError.contains("\(config): panels[1].kind: unknown widget kind \"weather/tomorrow\""))
        let fine = try home.scratch.write("fine.json", #"{"panels": [{"kind": "weather/today", "family": "medium", "options": {"city": "Oslo"}}]}"#)
        #expect(home.run(["check-config", fine]) == CommandOutput(exitCode: 0, standardOutput: "\(fine): ok\n"))
    }

    @Test("check-config lists a bad extension manifest and exits 2, even for a good config: it says the config itself is fine, never 'ok' alone")
    func checkConfigBadExtension() throws {
        let home = try ExtensionHome()
        defer { home.scratch.remove() }
        // A folder without extension.json (shared scripts) is no problem at all.
        mkdir(home.scratch.path + "/widgethost/extensions/shared", 0o755)
        let fine = try home.scratch.write("fine.json", #"{"panels": [{"kind": "weather/today"}]}"#)
        let output = home.run(["check-config", fine])
        #expect(output.exitCode == 2)
        #expect(output.standardOutput == "")
        let lines = output.standardError.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("widgethost: extension skipped: \(home.scratch.path)/widgethost/extensions/broken/extension.json: widgets[0]: broken/k: default of 'z'") == true)
        #expect(lines.last == "\(fine): the config itself is fine; 1 problem(s) in extension manifests (above): those extensions are skipped, so their kinds are unknown until fixed")
        // A bad config still lists its own errors after the extension's.
        let bad = try home.scratch.write("bad.json", #"{"panels": [{"kind": "weather/today", "options": {"days": 9}}]}"#)
        let both = home.run(["check-config", bad])
        #expect(both.exitCode == 2 && both.standardError.contains("\(bad): panels[0].options.days: "))
        #expect(!both.standardError.contains("the config itself is fine"))
    }

    @Test("--extensions-dir is a dashboard option")
    func option() throws {
        #expect(try CommandLineParser.parse(["--extensions-dir", "/opt/ext"]) == .dashboard(DashboardOptions(extensionsDirectory: "/opt/ext")))
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--extensions-dir DIR"))
    }

    @Test("--extensions-dir on widgets, check-config, snapshot and preview: searched before the XDG folder, as by the dashboard")
    func extensionsDirEverywhere() throws {
        let home = try ExtensionHome(broken: false)
        defer { home.scratch.remove() }
        // DIR has its own `weather` (another title) and a `tides` the XDG folder lacks.
        for folder in ["/dir", "/dir/weather", "/dir/tides"] { mkdir(home.scratch.path + folder, 0o755) }
        try home.scratch.write("dir/weather/extension.json", #"{"name": "weather", "exec": ["x"], "protocol": 1, "widgets": [{"kind": "today", "displayName": "Weather from DIR"}]}"#)
        try home.scratch.write("dir/tides/extension.json", #"{"name": "tides", "exec": ["x"], "protocol": 1, "widgets": [{"kind": "high", "displayName": "Tides", "options": {"port": {"type": "string", "required": true}}}]}"#)
        let dir = home.scratch.path + "/dir"
        let listed = home.run(["widgets", "--extensions-dir", dir])
        #expect(listed.exitCode == 0)
        #expect(listed.standardOutput.contains("tides/high: Tides."))
        #expect(listed.standardOutput.contains("weather/today: Weather from DIR."))
        // A development copy in --extensions-dir shadows the installed one: a note, not a problem (issue 22, item 13).
        #expect(listed.standardError.contains("widgethost: note: \(home.scratch.path)/widgethost/extensions/weather/extension.json: not used: 'weather' is also in \(dir), searched first"),
                "\(listed.standardError)")
        #expect(!listed.standardError.contains("skipped"), "\(listed.standardError)")
        let fine = try home.scratch.write("weather.json", #"{"panels": [{"kind": "weather/today"}]}"#)
        let shadowed = home.run(["check-config", "--extensions-dir", dir, fine])
        #expect(shadowed.exitCode == 0, "\(shadowed.standardError)")
        #expect(shadowed.standardOutput.contains("\(fine): ok\n"))
        #expect(shadowed.standardOutput.contains("note: ") && shadowed.standardOutput.contains("is also in \(dir), searched first"))
        #expect(!home.run(["widgets"]).standardOutput.contains("tides/high"))
        let config = try home.scratch.write("tides.json", #"{"panels": [{"kind": "tides/high"}]}"#)
        let checked = home.run(["check-config", "--extensions-dir", dir, config])
        #expect(checked.exitCode == 2)
        #expect(checked.standardError.contains("\(config): panels[0].options.port: "), "\(checked.standardError)")
        #expect(home.run(["check-config", config]).standardError.contains("unknown widget kind \"tides/high\""))
        #expect(home.run(["check-config", "--extensions-dir", home.scratch.path + "/nowhere", config]).standardError
                    .contains("/nowhere: cannot read the extensions directory"))
        // snapshot and preview run from main(); they discover with the same function.
        for command in [try CommandLineParser.parse(["snapshot", "--extensions-dir", dir]),
                        try CommandLineParser.parse(["preview", "tides/high", "--extensions-dir=\(dir)"]),
                        try CommandLineParser.parse(["widgets", "--extensions-dir", dir]),
                        try CommandLineParser.parse(["check-config", "--extensions-dir", dir])] {
            let setup = try #require(ExtensionSetup.discover(for: command, catalog: .builtin(), environment: home.environment))
            #expect(setup.catalog.manifests.contains { $0.kind == "tides/high" }, "\(command)")
            #expect(setup.runtime.host(named: "weather")?.manifest.directory == dir + "/weather", "\(command)")
        }
        #expect(try CommandLineParser.parse(["preview", "x", "--extensions-dir", "/e"]) == .preview(PreviewOptions(kind: "x", extensionsDirectory: "/e")))
        #expect(try CommandLineParser.parse(["snapshot", "--extensions-dir", "/e"]) == .snapshot(SnapshotOptions(extensionsDirectory: "/e")))
        #expect(try CommandLineParser.parse(["check-config", "--extensions-dir", "/e", "c.json"]) == .checkConfig(path: "c.json", extensionsDirectory: "/e"))
        for subcommand in [Subcommand.widgets, .checkConfig, .snapshot, .preview, .extensionRun] {
            #expect(HelpText.text(for: subcommand, catalog: .builtin()).contains("[--extensions-dir DIR]"), "\(subcommand)")
        }
    }

    @Test("--help reads --extensions-dir wherever it stands, and lists only the kind named before it")
    func helpWithExtensionsDirectory() throws {
        let home = try ExtensionHome(broken: false)
        defer { home.scratch.remove() }
        // The same manifest, found through --extensions-dir only (the XDG home is empty).
        let directory = home.scratch.path + "/widgethost/extensions"
        mkdir(directory + "/plain", 0o755)
        try home.scratch.write("widgethost/extensions/plain/extension.json",
                               #"{"name": "plain", "exec": ["./x"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K", "options": {"a": {"type": "string"}}}]}"#)
        let bare = WidgetHostCommand.run(arguments: ["preview", "--help"], environment: HostEnvironment(variables: ["HOME": "/nonexistent"]),
                                         catalog: .builtin()).standardOutput
        #expect(!bare.contains("weather/today"))
        for arguments in [["preview", "--help", "--extensions-dir", directory], ["preview", "--extensions-dir=\(directory)", "--help"],
                          ["extension", "run", "--extensions-dir", directory, "--help"]] {
            let help = WidgetHostCommand.run(arguments: arguments, environment: HostEnvironment(variables: ["HOME": "/nonexistent"]),
                                             catalog: .builtin()).standardOutput
            #expect(help.contains("  weather/today (small, medium)\n    --option city=TEXT "), "\(arguments): \(help)")
            #expect(help.contains("  plain/k (small, medium, large, extraLarge)\n    --option a=TEXT\n"), "no padding without a doc: \(help)")
        }
        #expect(try CommandLineParser.parse(["extension", "run", "weather/today", "--option", "days=2", "--help", "--extensions-dir", "/d"])
                == .help(.extensionRun, extensionsDirectory: "/d", kind: "weather/today"))
        // A flag of the subcommand takes no value: the directory after it is still seen.
        #expect(try CommandLineParser.parse(["snapshot", "--color", "--extensions-dir", "/d", "--help"])
                == .help(.snapshot, extensionsDirectory: "/d", kind: nil))
        let one = WidgetHostCommand.run(arguments: ["preview", "clock", "--family", "small", "--help"],
                                        environment: HostEnvironment(variables: ["HOME": "/nonexistent"]), catalog: .builtin()).standardOutput
        #expect(one.contains("Kinds:\n  clock ("), "\(one)")
        #expect(!one.contains("  leaderboard ("), "\(one)")
    }

    @Test("extension run parses NAME/KIND and its options; help lists it, with the extension kinds found")
    func extensionRunParsing() throws {
        #expect(try CommandLineParser.parse(["extension", "run", "w/today", "--option", "city=Oslo", "--family", "medium", "--size", "30x8",
                                             "--count", "3", "--snapshot", "--debug", "--extensions-dir", "/e"])
                == .extensionRun(ExtensionRunOptions(kind: "w/today", family: .medium, size: TerminalSize(columns: 30, rows: 8), count: 3,
                                                     options: [OptionAssignment(name: "city", value: "Oslo")], snapshot: true,
                                                     extensionsDirectory: "/e", debug: true)))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["extension"]) }
        #expect(throws: UsageError("expects 'run NAME/KIND', 'test NAME|PATH' or 'new NAME'; got 'start'", subcommand: .extensionRun)) {
            try CommandLineParser.parse(["extension", "start", "w/today"])
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["extension", "run"]) }
        #expect(try CommandLineParser.parse(["extension", "--help"]) == .help(.extensionRun))
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("extension run NAME/KIND"))
        let help = HelpText.text(for: .extensionRun, catalog: .builtin())
        #expect(help.contains("Usage: widgethost extension run NAME/KIND"))
        #expect(help.contains("4 it timed out"))
        #expect(!help.contains("Kinds:"), "no extension kinds, no list")
        // With extensions found, their kinds and options follow (built-ins are not run by it).
        let home = try ExtensionHome(broken: false)
        defer { home.scratch.remove() }
        let listed = home.run(["extension", "run", "--help"]).standardOutput
        #expect(listed.contains("Kinds:\n  weather/today (small, medium)\n    --option city=TEXT "), "\(listed)")
        #expect(listed.contains("    --option days=INTEGER "), "\(listed)")
        #expect(!listed.contains("  clock ("), "\(listed)")
    }
}
