#if canImport(Glibc)
import Glibc
#endif
import Testing
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

    @Test("check-config lists a bad extension manifest and exits 2, even for a good config")
    func checkConfigBadExtension() throws {
        let home = try ExtensionHome()
        defer { home.scratch.remove() }
        let fine = try home.scratch.write("fine.json", #"{"panels": [{"kind": "weather/today"}]}"#)
        let output = home.run(["check-config", fine])
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("broken/extension.json: widgets[0]: broken/k: default of 'z'"))
    }

    @Test("--extensions-dir is a dashboard option")
    func option() throws {
        #expect(try CommandLineParser.parse(["--extensions-dir", "/opt/ext"]) == .dashboard(DashboardOptions(extensionsDirectory: "/opt/ext")))
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--extensions-dir DIR"))
    }
}
