import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost
import Widgets

private func report(_ text: String, validator: ConfigValidator = FixtureDescriptors.validator) throws -> ConfigReport {
    validator.validate(try JSONParser().parse(text))
}

/// The errors as `path: message` lines.
private func errors(_ text: String) throws -> [String] {
    try report(text).errors.map(\.description)
}

@Suite("Config validator")
struct ConfigValidatorTests {
    @Test("accepts the example config of DESIGN.md and fills in defaults")
    func validConfig() throws {
        let result = try report("""
            { "theme": "default", "minimumReloadSeconds": 5, "dailyReloadBudget": null,
              "panels": [
                { "kind": "leaderboard", "family": "large", "title": "Ranger Leaderboard",
                  "options": { "url": "http://127.0.0.1:8787/leaderboard", "refreshSeconds": 10 } },
                { "kind": "clock", "family": "small", "options": { "timeZone": "UTC", "seconds": true } },
                { "kind": "stack", "family": "medium",
                  "panels": [ { "kind": "clock", "options": { "timeZone": "Europe/Paris" } },
                              { "kind": "leaderboard", "title": "Board", "options": { "url": "https://example.com/lb" } } ] }
              ] }
            """)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.isEmpty)
        let config = try #require(result.config)
        #expect(config.theme == "default")
        #expect(config.minimumReloadSeconds == 5)
        #expect(config.dailyReloadBudget == nil)
        #expect(config.panels.count == 3)
        #expect(config.panels[0] == PanelConfig(kind: "leaderboard", family: .large, title: "Ranger Leaderboard",
            options: ["url": .string("http://127.0.0.1:8787/leaderboard"), "refreshSeconds": .integer(10),
                      "session": .string("background")]))
        #expect(config.panels[1].options == ["timeZone": .string("UTC"), "seconds": .bool(true), "hour24": .bool(true)])
        let stack = config.panels[2]
        #expect(stack.isStack)
        #expect(stack.family == .medium)
        #expect(stack.options.values.isEmpty)
        #expect(stack.children.map(\.kind) == ["clock", "leaderboard"])
        #expect(stack.children.allSatisfy { $0.family == .medium })
        #expect(stack.children[1].title == "Board")
        #expect(stack.children[1].options["refreshSeconds"] == .integer(10))
    }

    @Test("a stack of one panel is that panel (the stack's family and title, else its own), with a warning: one meaning of stack everywhere")
    func stackOfOne() throws {
        let result = try report(#"""
            {"panels": [{"kind": "stack", "panels": [{"kind": "clock", "title": "Here", "options": {"timeZone": "UTC"}}]},
                        {"kind": "stack", "family": "large", "title": "Mine", "panels": [{"kind": "leaderboard", "options": {"url": "http://h"}}]}]}
            """#)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.map(\.description) == [
            "panels[0].panels: a stack of one panel is shown as that panel; add panels to rotate, or write it without the stack",
            "panels[1].panels: a stack of one panel is shown as that panel; add panels to rotate, or write it without the stack",
        ])
        let config = try #require(result.config)
        #expect(config.panels[0].kind == "clock" && config.panels[0].family == .medium && config.panels[0].title == "Here")
        #expect(config.panels[0].options["timeZone"] == .string("UTC"))
        #expect(config.panels[1].kind == "leaderboard" && config.panels[1].family == .large && config.panels[1].title == "Mine")
        #expect(!config.panels[0].isStack && config.panels[0].children.isEmpty)
    }

    @Test("a panel without family gets its kind's default family; minimumReloadSeconds defaults to 5")
    func defaultFamily() throws {
        let config = try #require(try report(#"{"panels": [{"kind": "clock"}, {"kind": "stack", "panels": [{"kind": "clock"}]}]}"#).config)
        #expect(config.minimumReloadSeconds == 5)
        #expect(config.panels[0].family == .small)
        #expect(config.panels[1].family == .medium)
    }

    @Test("lists every error, each with its key path, not just the first")
    func allErrors() throws {
        let lines = try errors("""
            { "theme": 3, "minimumReloadSeconds": 0, "dailyReloadBudget": 1.5,
              "panels": [
                { "kind": "clock", "family": "large", "options": { "seconds": "yes" } },
                { "kind": "leaderboard", "options": { "url": "ftp://x", "refreshSeconds": "ten", "maxRows": 99 } },
                { "kind": "clok" },
                { "kind": "leaderboard", "options": { "url": "http://h", "sesion": "background" } }
              ] }
            """)
        #expect(lines == [
            "theme: expected a theme name or path, got 3",
            "minimumReloadSeconds: expected an integer in 1…86400, got 0",
            "dailyReloadBudget: expected an integer in 1…100000 or null, got 1.5",
            "panels[0].family: 'clock' does not support family 'large'; it supports small, medium",
            "panels[0].options.seconds: expected true or false, got \"yes\"",
            "panels[1].options.url: expected a URL (http or https), got \"ftp://x\"",
            "panels[1].options.refreshSeconds: expected an integer ≥ 1, got \"ten\"",
            "panels[1].options.maxRows: expected an integer in 1…50, got 99",
            "panels[2].kind: unknown widget kind \"clok\"; did you mean 'clock'?",
            "panels[3].options.sesion: unknown option; did you mean 'session'?",
        ])
    }

    @Test("unknown keys are errors, with a suggestion when one is close")
    func unknownKeys() throws {
        #expect(try errors(#"{"panel": [], "panels": [{"kind": "clock", "titel": "x", "zzz": 1}]}"#) == [
            "panel: unknown key; did you mean 'panels'?",
            "panels[0].titel: unknown key; did you mean 'title'?",
            "panels[0].zzz: unknown key; expected one of kind, family, title, options, area, panels, smartRotate",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "options": {"refreshSecond": 5, "colour": "red"}}]}"#) == [
            "panels[0].options.refreshSecond: unknown option; ('clock' has timeZone, seconds, hour24, showDate)",
            "panels[0].options.colour: unknown option; ('clock' has timeZone, seconds, hour24, showDate)",
        ])
        #expect(try errors(#"{"panels": [{"kind": "leaderboard", "options": {"url": "http://h", "refreshSecond": 5}}]}"#) == [
            "panels[0].options.refreshSecond: unknown option; did you mean 'refreshSeconds'?",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "options": {"odd key": 1}}]}"#) == [
            "panels[0].options[\"odd key\"]: unknown option; ('clock' has timeZone, seconds, hour24, showDate)",
        ])
    }

    @Test("wrong types name what was expected and what was found")
    func wrongTypes() throws {
        #expect(try errors(#"[]"#) == ["(top level): expected an object with 'panels', got an array"])
        #expect(try errors(#"{"panels": {}}"#) == ["panels: expected an array of panels, got an object"])
        #expect(try errors(#"{"panels": [3, {"kind": 7}, {"kind": "clock", "options": []}]}"#) == [
            "panels[0]: expected a panel object with 'kind', got 3",
            "panels[1].kind: expected a widget kind name, got 7",
            "panels[2].options: expected an object of options, got an array",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "family": "huge", "title": 5}]}"#) == [
            "panels[0].family: expected one of small, medium, large, extraLarge, got \"huge\"",
            "panels[0].title: expected a string, got 5",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "family": "smal"}]}"#) == [
            "panels[0].family: expected one of small, medium, large, extraLarge, got \"smal\"; did you mean 'small'?",
        ])
        #expect(try errors(#"{"panels": [{"kind": "leaderboard", "options": {"url": "http://h", "refreshSeconds": 10.0, "session": "later"}}]}"#) == [
            "panels[0].options.refreshSeconds: expected an integer ≥ 1, got 10.0",
            "panels[0].options.session: expected one of 'background', 'foreground', got \"later\"",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "options": {"timeZone": "Mars/Olympus"}}, {"kind": "clock", "options": {"timeZone": "../../etc/passwd"}}]}"#) == [
            "panels[0].options.timeZone: expected a time zone name like 'Europe/Paris', 'UTC' or 'local', got \"Mars/Olympus\"",
            "panels[1].options.timeZone: expected a time zone name like 'Europe/Paris', 'UTC' or 'local', got \"../../etc/passwd\"",
        ])
    }

    @Test("missing required keys and options are errors at their own path")
    func missingRequired() throws {
        #expect(try errors(#"{}"#) == ["panels: missing required key: the list of panels (or 'pages')"])
        #expect(try errors(#"{"panels": []}"#) == ["panels: expected at least one panel, got an empty array"])
        #expect(try errors(#"{"panels": [{"family": "small"}, {"kind": "leaderboard"}]}"#) == [
            "panels[0].kind: missing required key: the widget kind",
            "panels[1].options.url: missing required option: the leaderboard's URL (a URL (http or https))",
        ])
    }

    @Test("unknown kinds list the known ones when none is close")
    func unknownKind() throws {
        #expect(try errors(#"{"panels": [{"kind": "weather"}]}"#) == [
            "panels[0].kind: unknown widget kind \"weather\"; known kinds: clock, leaderboard, stack",
        ])
    }

    @Test("a refreshSeconds below minimumReloadSeconds is raised to it with a warning")
    func refreshRaised() throws {
        let result = try report("""
            {"minimumReloadSeconds": 30, "panels": [
              {"kind": "leaderboard", "options": {"url": "http://h", "refreshSeconds": 10}},
              {"kind": "leaderboard", "options": {"url": "http://h"}},
              {"kind": "leaderboard", "options": {"url": "http://h", "refreshSeconds": 60}}]}
            """)
        #expect(result.errors.isEmpty)
        #expect(result.warnings.map(\.description) == [
            "panels[0].options.refreshSeconds: 10 is below minimumReloadSeconds; raised to 30",
        ])
        let panels = try #require(result.config).panels
        #expect(panels.map { $0.options["refreshSeconds"] } == [.integer(30), .integer(30), .integer(60)])
    }

    @Test("stack rules: non-empty panels, no options, no nested stack, children share the family")
    func stackRules() throws {
        #expect(try errors(#"{"panels": [{"kind": "stack"}]}"#) == ["panels[0].panels: missing required key: the panels of the stack"])
        #expect(try errors(#"{"panels": [{"kind": "stack", "panels": []}]}"#) == [
            "panels[0].panels: expected at least one panel in the stack, got an empty array",
        ])
        #expect(try errors("""
            {"panels": [{"kind": "stack", "family": "large", "options": {},
              "panels": [{"kind": "stack", "panels": [{"kind": "clock"}]},
                         {"kind": "clock", "family": "small"},
                         {"kind": "leaderboard", "options": {"url": "http://h"}, "colour": 1}]}]}
            """) == [
            "panels[0].options: a stack has no options; put options on the panels inside it",
            "panels[0].panels[0].kind: a stack cannot contain another stack",
            "panels[0].panels[0].panels: a stack cannot contain another stack",
            "panels[0].panels[1].family: a panel in a stack takes the stack's family; remove 'family'",
            "panels[0].panels[2].colour: unknown key; expected one of kind, title, options",
        ])
        #expect(try errors(#"{"panels": [{"kind": "clock", "panels": [{"kind": "clock"}]}]}"#) == [
            "panels[0].panels: only a stack has 'panels'; use \"kind\": \"stack\"",
        ])
        #expect(try errors(#"{"panels": [{"kind": "stack", "family": "large", "panels": [{"kind": "clock"}]}]}"#) == [
            "panels[0].panels[0].kind: 'clock' does not support its stack's family 'large'; it supports small, medium",
        ])
    }

    @Test("smartRotate is a stack's true or false, and only a stack's")
    func smartRotate() throws {
        let stack = #"{"kind": "stack", "smartRotate": false, "panels": [{"kind": "clock"}, {"kind": "clock"}]}"#
        #expect(try report(#"{"panels": [\#(stack)]}"#).config?.panels[0].smartRotate == false)
        #expect(try report(#"{"panels": [{"kind": "stack", "panels": [{"kind": "clock"}, {"kind": "clock"}]}]}"#).config?.panels[0].smartRotate == true)
        #expect(try errors(#"{"panels": [{"kind": "clock", "smartRotate": true}, {"kind": "stack", "smartRotate": "no", "panels": [{"kind": "clock", "smartRotate": false}, {"kind": "clock"}]}]}"#) == [
            "panels[0].smartRotate: only a stack rotates: 'smartRotate' belongs on a stack panel",
            "panels[1].smartRotate: expected true or false, got \"no\"",
            "panels[1].panels[0].smartRotate: only a stack rotates: 'smartRotate' belongs on a stack panel",
        ])
    }

    @Test("titles are bounded and may not contain NUL")
    func titles() throws {
        let long = String(repeating: "é", count: 201)
        #expect(try errors(#"{"panels": [{"kind": "clock", "title": "\#(long)"}, {"kind": "clock", "title": "a\u0000b"}]}"#) == [
            "panels[0].title: expected a title of at most 200 characters, got 201",
            "panels[1].title: expected a title without NUL characters",
        ])
        let exact = String(repeating: "é", count: 196)
        #expect(try report(#"{"panels": [{"kind": "clock", "title": "\#(exact)\u001b[2J"}]}"#).config?.panels[0].title == exact + "\u{1B}[2J")
    }

    @Test("too many panels are rejected")
    func panelLimits() throws {
        let panels = Array(repeating: #"{"kind": "clock"}"#, count: 65).joined(separator: ",")
        #expect(try errors(#"{"panels": [\#(panels)]}"#) == ["panels: expected at most 64 panels, got 65"])
    }

    @Test("manifests report their own mistakes")
    func descriptorProblems() {
        #expect(FixtureDescriptors.all.flatMap(\.problems).isEmpty)
        let bad = WidgetManifest(kind: "stack", displayName: "S", description: "", supportedFamilies: [.small],
            defaultFamily: .large, options: [
                OptionSpec(name: "n", type: .integer(1...5), defaultValue: .integer(9), doc: ""),
                OptionSpec(name: "n", type: .bool, required: true, defaultValue: .bool(true), doc: ""),
            ])
        #expect(bad.problems == [
            "'stack' is built in and cannot be registered",
            "stack: default family large is not a supported family",
            "stack: default of 'n': expected an integer in 1…5, got 9",
            "stack: option 'n' is listed twice",
            "stack: option 'n' is required and has a default",
        ])
    }

    @Test("preview options from the command line are typed, checked and defaulted")
    func previewOptions() {
        let validator = FixtureDescriptors.validator
        let good = validator.previewPanel(kind: "leaderboard", family: nil,
                                          options: [("url", "http://h/lb"), ("maxRows", "5")])
        #expect(good.errors.isEmpty)
        #expect(good.panel?.family == .large)
        #expect(good.panel?.options == ["url": .string("http://h/lb"), "maxRows": .integer(5),
                                        "refreshSeconds": .integer(10), "session": .string("background")])
        let bad = validator.previewPanel(kind: "leaderboard", family: .small,
                                         options: [("maxRows", "lots"), ("colour", "red")])
        #expect(bad.panel == nil)
        #expect(bad.errors.map(\.description) == [
            "family: 'leaderboard' does not support family 'small'; it supports medium, large, extraLarge",
            "options.maxRows: expected an integer in 1…50, got \"lots\"",
            "options.colour: unknown option; ('leaderboard' has url, refreshSeconds, session, maxRows)",
            "options.url: missing required option: the leaderboard's URL (a URL (http or https))",
        ])
        #expect(validator.previewPanel(kind: "clok", family: nil, options: []).errors.map(\.description) == [
            "kind: unknown widget kind 'clok'; did you mean 'clock'?",
        ])
    }

    @Test("URLs need a listed scheme and a host", arguments: [
        ("http://127.0.0.1:8787/leaderboard", true), ("https://example.com", true), ("HTTP://h", true),
        ("http://[::1]:8080/x", true), ("http://user@h/x", true),
        ("http://", false), ("http:///path", false), ("ftp://h", false), ("http://h:99999", false),
        ("http://h x", false), ("127.0.0.1:8787", false), ("http://[::1", false),
    ])
    func urls(text: String, valid: Bool) {
        #expect(OptionType.isURL(text, schemes: ["http", "https"]) == valid)
    }

    @Test("suggestions only for near misses")
    func editDistance() {
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("titel", "title") == 1)
        #expect(EditDistance.between("", "abc") == 3)
        #expect(EditDistance.suggestion(for: "refreshSecond", among: ["url", "refreshSeconds"]) == "refreshSeconds")
        #expect(EditDistance.suggestion(for: "zzz", among: ["url", "refreshSeconds"]) == nil)
        #expect(EditDistance.suggestion(for: String(repeating: "a", count: 100), among: ["a"]) == nil)
    }
}
