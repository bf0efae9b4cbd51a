import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost
import Widgets

/// A kind that exists only in this file: if anything the host shows about kinds were written
/// by hand rather than derived from the manifests, its options could not appear.
private enum Probe {
    static let fields: [OptionSpec] = [
        OptionSpec(name: "label", type: .string, required: true, doc: "what the value is called"),
        OptionSpec(name: "pointer", type: .string, required: true, doc: "JSON pointer to the value"),
        OptionSpec(name: "format", type: .oneOf(["text", "number"]), defaultValue: .string("text"), doc: "how to show it"),
    ]

    static let manifest = WidgetManifest(
        kind: "probe", displayName: "Probe", description: "A kind only the manifest tests know.",
        supportedFamilies: [.small, .medium], defaultFamily: .medium,
        options: [
            OptionSpec(name: "warnAbove", type: .number(0...1), defaultValue: .number(0.8),
                       doc: "fraction that turns the bar amber", example: "0.75"),
            OptionSpec(name: "interval", type: .seconds(1...3600, refreshInterval: true), defaultValue: .integer(2),
                       doc: "seconds between samples", example: "5"),
            OptionSpec(name: "refreshSeconds", type: .integer(1...3600), defaultValue: .integer(2), doc: "only a name"),
            OptionSpec(name: "argv", type: .stringList, doc: "the command and its arguments"),
            OptionSpec(name: "env", type: .stringMap, doc: "extra environment"),
            OptionSpec(name: "fields", type: .objectList(fields), doc: "the values shown"),
        ],
        actions: [WidgetAction(key: "e", title: "edit")])

    static let catalog = Catalog([
        WidgetDefinition(manifest: manifest) { _ in
            TerminalWidget(manifest: manifest, makeProvider: { _ in throw OptionError("probe") },
                           view: { _, _ in PanelView(node: .vstack([])) })
        },
    ])
}

private func run(_ arguments: [String], catalog: Catalog = Probe.catalog) -> CommandOutput {
    WidgetHostCommand.run(arguments: arguments, environment: HostEnvironment(), catalog: catalog)
}

@Suite("Widget manifests")
struct ManifestTests {
    @Test("a manifest option appears in widgets, in check-config's key-path errors and in preview --help")
    func optionAppearsEverywhere() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let widgets = run(["widgets"]).standardOutput
        #expect(widgets.contains("probe: Probe. A kind only the manifest tests know.\n  families: small, medium (default)\n"), "\(widgets)")
        #expect(widgets.contains("  warnAbove       a number in 0…1, default 0.8\n"), "\(widgets)")
        #expect(widgets.contains("fraction that turns the bar amber (e.g. 0.75)\n"), "\(widgets)")
        #expect(widgets.contains("  key e: edit\n"), "\(widgets)")

        let file = directory.write("c.json", #"{"panels": [{"kind": "probe", "options": {"warnAbove": 2, "warnAbvoe": 1}}]}"#)
        #expect(run(["check-config", file]) == CommandOutput(exitCode: 2, standardError: """
            \(file): panels[0].options.warnAbvoe: unknown option; did you mean 'warnAbove'?
            \(file): panels[0].options.warnAbove: expected a number in 0…1, got 2

            """))

        let help = run(["preview", "--help"]).standardOutput
        #expect(help.contains("  probe (small, medium)\n"), "\(help)")
        #expect(help.contains("    --option warnAbove=0.75"), "\(help)")
        #expect(help.contains("fraction that turns the bar amber\n"), "\(help)")
        #expect(run(["preview", "probe", "--option", "warnAbove=7"]).standardError
                == "widgethost preview: options.warnAbove: expected a number in 0…1, got 7\n")
    }

    @Test("every built-in option is listed by widgets and preview --help, and the built-in manifests have no problems")
    func builtinsDerived() {
        let catalog = Catalog.builtin()
        #expect(catalog.manifests.map(\.kind) == ["clock", "leaderboard", "hero", "system", "countdown", "command", "text", "http-json", "prometheus", "mqtt",
                                                  "activities", "events"])
        #expect(catalog.manifests.flatMap(\.problems) == [])
        #expect(catalog.bind().widgets.map(\.manifest) == catalog.manifests, "each widget carries its manifest")
        let widgets = run(["widgets"], catalog: catalog).standardOutput
        let help = run(["preview", "--help"], catalog: catalog).standardOutput
        for manifest in catalog.manifests {
            let header = "\(manifest.kind): \(manifest.displayName). \(manifest.description)"
            #expect(widgets.contains(WidgetsCommand.wrapped(header, indent: "    ")), "\(manifest.kind)")
            for option in manifest.options {
                #expect(widgets.contains("  \(option.name) "), "\(manifest.kind).\(option.name)")
                #expect(help.contains("--option \(option.name)="), "\(manifest.kind).\(option.name)")
            }
        }
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 100 })
        #expect(catalog.manifest(kind: "clock")?.isPausable == false, "a clock is computed locally")
        #expect(catalog.manifest(kind: "leaderboard")?.isPausable == true)
        #expect(catalog.manifest(kind: "system")?.isPausable == false, "readings of /proc cost no reload budget")
        #expect(catalog.manifest(kind: "countdown")?.isPausable == false)
    }

    @Test("lists, maps and lists of objects decode into WidgetOptions, defaults filled inside objects")
    func structuredOptions() throws {
        let validator = Probe.catalog.validator()
        let report = validator.validate(try JSONParser().parse("""
            {"panels": [{"kind": "probe", "options": {
              "argv": ["ls", "-l"], "env": {"LANG": "C", "A B": "x"},
              "fields": [{"label": "CPU", "pointer": "/cpu"}, {"label": "Mem", "pointer": "/mem", "format": "number"}]}}]}
            """))
        #expect(report.errors == [])
        let options = try #require(report.config?.panels.first?.options)
        #expect(options.strings("argv") == ["ls", "-l"])
        #expect(options.stringMap("env") == ["LANG": "C", "A B": "x"])
        #expect(options.objects("fields") == [
            ["label": .string("CPU"), "pointer": .string("/cpu"), "format": .string("text")],
            ["label": .string("Mem"), "pointer": .string("/mem"), "format": .string("number")],
        ])
        #expect(options.number("warnAbove") == 0.8)
    }

    @Test("errors inside lists, maps and objects name their own key path")
    func structuredErrors() throws {
        let validator = Probe.catalog.validator()
        let report = validator.validate(try JSONParser().parse("""
            {"panels": [{"kind": "probe", "options": {
              "argv": ["ls", 3], "env": {"LANG": true, "": "x"},
              "fields": [{"label": "CPU"}, {"label": "Mem", "pointer": "/mem", "formt": "text"}, 7]}}]}
            """))
        #expect(report.errors.map(\.description) == [
            "panels[0].options.argv[1]: expected a string, got 3",
            "panels[0].options.env.LANG: expected a string, got true",
            "panels[0].options.env[\"\"]: expected a key of 1 to 256 characters without NUL",
            "panels[0].options.fields[0].pointer: missing required option: JSON pointer to the value (a string)",
            "panels[0].options.fields[1].formt: unknown option; did you mean 'format'?",
            "panels[0].options.fields[2]: expected an object of options, got 7",
        ])
        let tooMany = Array(repeating: "\"a\"", count: OptionType.maximumListCount + 1).joined(separator: ",")
        #expect(validator.validate(try JSONParser().parse(#"{"panels": [{"kind": "probe", "options": {"argv": [\#(tooMany)]}}]}"#))
            .errors.map(\.description) == ["panels[0].options.argv: expected at most 256 elements, got 257"])
    }

    @Test("a refresh interval is raised to minimumReloadSeconds by its type, whatever its name")
    func refreshByType() throws {
        let validator = Probe.catalog.validator()
        let report = validator.validate(try JSONParser().parse("""
            {"minimumReloadSeconds": 10, "panels": [{"kind": "probe", "options": {"interval": 3, "refreshSeconds": 3}}]}
            """))
        #expect(report.errors == [])
        #expect(report.warnings.map(\.description) == ["panels[0].options.interval: 3 is below minimumReloadSeconds; raised to 10"])
        let options = try #require(report.config?.panels.first?.options)
        #expect(options.integer("interval") == 10)
        #expect(options.integer("refreshSeconds") == 3, "a plain integer is not raised because of its name")
        let widgets = run(["widgets"]).standardOutput
        #expect(widgets.contains("seconds between samples, raised to minimumReloadSeconds (e.g. 5)\n"), "\(widgets)")
    }

    @Test("preview takes lists and objects as JSON on the command line")
    func previewStructured() {
        let checked = Probe.catalog.validator().previewPanel(kind: "probe", family: nil, options: [
            ("argv", #"["uptime"]"#), ("fields", #"[{"label": "Load", "pointer": "/load"}]"#)])
        #expect(checked.errors == [])
        #expect(checked.panel?.options.strings("argv") == ["uptime"])
        #expect(checked.panel?.options.objects("fields")?.first?.string("format") == "text")
        let bad = Probe.catalog.validator().previewPanel(kind: "probe", family: nil, options: [("argv", "[uptime")])
        #expect(bad.errors.map(\.description) == [#"options.argv: expected a list of strings, got "[uptime""#])
    }

    @Test("an option without an example shows a placeholder by type in preview --help, in the form --option accepts")
    func placeholdersByType() {
        let help = run(["preview", "--help"]).standardOutput
        #expect(help.contains("    --option refreshSeconds=INTEGER "), "\(help)")
        #expect(help.contains("    --option argv=JSON-LIST "), "\(help)")
        #expect(help.contains("    --option env=JSON-OBJECT "), "\(help)")
        #expect(!help.contains("=JSON "), "\(help)")
        #expect(help.contains("text as it is (no quotes)"), "\(help)")
        // Each placeholder stands for a value written the way --option reads it.
        let samples: [(OptionType, String, String)] = [
            (.string, "TEXT", "plain words"), (.integer(0...9), "INTEGER", "7"), (.number(0...1), "NUMBER", "0.5"),
            (.bool, "true|false", "true"), (.oneOf(["a", "b"]), "a|b", "b"), (.url(schemes: ["http"]), "URL", "http://x/"),
            (.timeZone, "ZONE", "local"), (.seconds(1...9, refreshInterval: false), "SECONDS", "5"),
            (.stringList, "JSON-LIST", #"["a"]"#), (.stringMap, "JSON-OBJECT", #"{"k":"v"}"#),
        ]
        for (type, placeholder, written) in samples {
            #expect(type.commandLinePlaceholder == placeholder)
            #expect(type.value(fromCommandLine: written) != nil, "\(placeholder): \(written)")
        }
    }

    @Test("manifests report contradictions: a network widget that ignores p, a bad action key, a push source that is no URL")
    func manifestProblems() {
        let bad = WidgetManifest(kind: "x", displayName: "X", description: "", defaultFamily: .small,
                                 options: [OptionSpec(name: "feed", type: .string, doc: "")],
                                 titleOption: "nope", pausesWithAutomaticReloads: false, usesNetwork: true,
                                 actions: [WidgetAction(key: "ab", title: "two"), WidgetAction(key: "+", title: "a"),
                                           WidgetAction(key: "+", title: "b")],
                                 pushSourceOption: "feed")
        #expect(bad.problems == [
            "x: title option 'nope' is not an option",
            "x: push source 'feed' is not a URL option",
            "x: a widget that uses the network pauses with automatic reloads",
            "x: action key 'ab' is not one printable character",
            "x: action key '+' is listed twice",
        ])
    }

    @Test("a dynamic option must be one a picker can fill: not a boolean, list, map or objectList, nor an objectList's field; the built-ins mark theirs")
    func dynamicProblems() {
        let bad = WidgetManifest(kind: "x", displayName: "X", description: "", defaultFamily: .small, options: [
            OptionSpec(name: "name", type: .string, doc: "", dynamic: true),
            OptionSpec(name: "on", type: .bool, doc: "", dynamic: true),
            OptionSpec(name: "rows", type: .objectList([OptionSpec(name: "cell", type: .string, doc: "", dynamic: true)]), doc: ""),
        ])
        #expect(bad.problems == [
            "x: option 'on' cannot be dynamic (a picker fills one-line values)",
            "x.rows: field 'cell' cannot be dynamic (a picker fills an option, not a field)",
        ])
        let catalog = Catalog.builtin()
        let dynamic = catalog.definitions.flatMap { definition in
            definition.manifest.options.filter(\.dynamic).map { "\(definition.manifest.kind).\($0.name)" }
        }
        #expect(dynamic == ["clock.timeZone", "hero.name"])
        for definition in catalog.definitions where definition.manifest.options.contains(where: \.dynamic) {
            #expect(definition.widget(.none).optionsProvider != nil, "\(definition.manifest.kind) marks a dynamic option: it gives a provider")
        }
    }

    @Test("check-config accepts a clock's time zone exactly when the clock can load it (one list of names)")
    func timeZonesAgree() throws {
        let validator = Catalog.builtin().validator()
        for name in ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z", "Europe/Paris", "Nowhere/Atlantis", "-x", "a//b", "../etc/passwd", "Europe"] {
            let report = validator.validate(try JSONParser().parse(#"{"panels": [{"kind": "clock", "options": {"timeZone": "\#(name)"}}]}"#))
            let loads = (try? ZoneInfo.load(name)) != nil
            #expect(report.errors.isEmpty == loads, "\(name): validator \(report.errors.isEmpty), clock \(loads)")
        }
    }
}
