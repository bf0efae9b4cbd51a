#if canImport(Glibc)
import Glibc
#endif
import DateTime
@testable import Extensions
import FoundationEssentials
import Testing
import TerminalUI
import WidgetCore
import WidgetTestSupport

private func parse(_ text: String) throws(ExtensionManifestError) -> ExtensionManifest {
    try ExtensionManifestParser.parse(Array(text.utf8), file: "/x/weather/extension.json", directory: "/x/weather")
}

private func issues(_ text: String) -> [String] {
    do {
        _ = try parse(text)
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

private let good = """
    { "name": "weather", "exec": ["python3", "weather.py"], "protocol": 1,
      "widgets": [ { "kind": "today", "displayName": "Weather", "description": "Today's weather.",
                     "families": ["small", "medium"], "defaultFamily": "medium",
                     "options": { "city": { "type": "string", "default": "Paris", "doc": "the city" },
                                  "days": { "type": "integer", "min": 1, "max": 7, "default": 3, "doc": "days shown" },
                                  "units": { "type": "enum", "values": ["metric", "imperial"], "default": "metric" },
                                  "every": { "type": "seconds", "min": 60, "max": 3600, "refreshInterval": true, "default": 600 },
                                  "feed": { "type": "url", "schemes": ["https"], "required": true } },
                     "actions": [ { "key": "u", "title": "units" } ],
                     "placeholder": { "type": "text", "spans": [{"text": "…", "role": "placeholder"}] } } ],
      "limits": { "requestSeconds": 5, "idleExitSeconds": 60, "memoryMiB": 128, "cpuSeconds": 30 } }
    """

@Suite("Extension manifests")
struct ExtensionManifestTests {
    @Test("a complete manifest maps onto the host's manifest: NAME/KIND, families, option types, actions, limits")
    func complete() throws {
        let manifest = try parse(good)
        #expect(manifest.name == "weather")
        #expect(manifest.exec == ["python3", "weather.py"])
        #expect(manifest.limits == ExtensionLimits(requestSeconds: 5, idleExitSeconds: 60, memoryMiB: 128, cpuSeconds: 30))
        let widget = try #require(manifest.widgets.first)
        #expect(widget.kind == "today")
        #expect(widget.manifest.kind == "weather/today")
        #expect(widget.manifest.supportedFamilies == [.small, .medium])
        #expect(widget.manifest.defaultFamily == .medium)
        #expect(widget.manifest.actions == [WidgetAction(key: "u", title: "units")])
        let options = widget.manifest.options
        #expect(options.map(\.name) == ["city", "days", "units", "every", "feed"])
        #expect(options[0] == OptionSpec(name: "city", type: .string, defaultValue: .string("Paris"), doc: "the city"))
        #expect(options[1].type == .integer(1...7))
        #expect(options[2].type == .oneOf(["metric", "imperial"]))
        #expect(options[3].type == .seconds(60...3600, refreshInterval: true))
        #expect(options[4].type == .url(schemes: ["https"]) && options[4].required)
        #expect(widget.placeholder == .text([ViewNode.Span("…", role: .placeholder)]))
    }

    @Test("defaults: all families, the first as default, limits 10 s / 30 s / 512 MiB / 60 s")
    func defaults() throws {
        let manifest = try parse(#"{"name": "a", "exec": ["./run"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K"}]}"#)
        #expect(manifest.widgets[0].manifest.supportedFamilies == WidgetFamily.allCases)
        #expect(manifest.widgets[0].manifest.defaultFamily == .small)
        #expect(manifest.limits == ExtensionLimits(requestSeconds: 10, idleExitSeconds: 30, memoryMiB: 512, cpuSeconds: 60))
        #expect(manifest.widgets[0].placeholder == nil)
    }

    @Test("\"dynamic\": true marks an option for the form's picker; a wrong value, or one on a boolean, list, map or object field, is refused at its key path")
    func dynamicOptions() throws {
        let manifest = try parse("""
            { "name": "weather", "exec": ["w"], "protocol": 1,
              "widgets": [ { "kind": "today", "displayName": "Weather",
                             "options": { "city": { "type": "string", "default": "Paris", "dynamic": true },
                                          "zone": { "type": "timeZone", "default": "UTC", "dynamic": false },
                                          "days": { "type": "integer", "default": 3 } } } ] }
            """)
        let options = manifest.widgets[0].manifest.options
        #expect(options.map(\.dynamic) == [true, false, false])
        let found = issues("""
            { "name": "weather", "exec": ["w"], "protocol": 1,
              "widgets": [ { "kind": "today", "displayName": "Weather",
                             "options": { "city": { "type": "string", "dynamic": "yes" },
                                          "flag": { "type": "boolean", "dynamic": true },
                                          "tags": { "type": "stringList", "dynamic": true },
                                          "rows": { "type": "objectList", "fields": { "name": { "type": "string", "dynamic": true } } } } } ] }
            """)
        #expect(found == [
            "widgets[0].options.city.dynamic: expected true or false, found \"yes\"",
            "widgets[0].options.flag.dynamic: does not apply to an option of type boolean",
            "widgets[0].options.tags.dynamic: does not apply to an option of type stringList",
            "widgets[0].options.rows.fields.name.dynamic: does not apply to an option of type string",
        ], "\(found)")
    }

    @Test("every problem is reported with its key path, not only the first")
    func keyPaths() {
        let found = issues("""
            { "name": "bad name", "exec": [], "protocol": 2, "extra": true,
              "widgets": [ { "kind": "k", "displayName": 3, "families": ["huge"],
                             "options": { "n": { "type": "integer", "min": 5, "max": 1, "default": 3 },
                                          "s": { "type": "strin" },
                                          "e": { "type": "enum" },
                                          "b": { "type": "boolean", "default": "yes" },
                                          "w": { "type": "seconds", "min": 1, "max": 180, "default": 500 },
                                          "f": { "type": "number", "min": 0.5, "default": 0.25 },
                                          "u": { "type": "enum", "values": ["a", "b"], "default": "c" } },
                             "actions": [ { "key": "ab", "title": "two" } ],
                             "placeholder": { "type": "text", "spans": [{"text": "x", "role": "red"}] } } ],
              "limits": { "requestSeconds": 0, "memoryMiB": 1e9, "sleep": 1 } }
            """)
        let expected = [
            "extra: unknown key",
            "name: \"bad name\" is not a name",
            "exec: needs a program",
            "protocol: this host speaks protocol 1…1, found 2",
            "limits.sleep: unknown key",
            "limits.requestSeconds: 0 is out of range 1…300",
            "limits.memoryMiB: expected an integer, found 1000000000.0",
            "widgets[0].displayName: expected a string, found 3",
            "widgets[0].families[0]: unknown family \"huge\"",
            "widgets[0].options.n.min: is above max",
            "widgets[0].options.s.type: unknown option type \"strin\"",
            "widgets[0].options.e.values: is required",
            "widgets[0].options.b.default: \"yes\" is not a valid boolean",
            "widgets[0].options.w.default: expected an integer in 1…180, got 500",
            "widgets[0].options.f.default: expected a number ≥ 0.5, got 0.25",
            "widgets[0].options.u.default: expected one of 'a', 'b', got \"c\"",
            "widgets[0].actions[0].key: expected one printable character",
            "widgets[0].placeholder.spans[0].role: unknown role \"red\"",
        ]
        for prefix in expected {
            #expect(found.contains { $0.hasPrefix(prefix) }, "missing \(prefix) in \(found)")
        }
    }

    @Test("a host key is refused at its action's key path, with the other problems; 'r' only titles the reload")
    func hostKeys() throws {
        let found = issues("""
            { "name": "keys", "exec": ["sh", "k.sh"], "protocol": 1,
              "widgets": [ { "kind": "k", "displayName": "K", "families": ["huge"],
                             "actions": [ { "key": "u", "title": "fine" }, { "key": "q", "title": "quit?" },
                                          { "key": "p", "title": "pause?" } ] } ] }
            """)
        #expect(found.contains { $0.hasPrefix("widgets[0].families[0]: unknown family") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("widgets[0].actions[1].key: 'q' is one of the host's own keys") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("widgets[0].actions[2].key: 'p' is one of the host's own keys") }, "\(found)")
        let titled = try parse("""
            { "name": "keys", "exec": ["sh", "k.sh"], "protocol": 1,
              "widgets": [ { "kind": "k", "displayName": "K", "actions": [ { "key": "r", "title": "check now" } ] } ] }
            """)
        #expect(titled.widgets[0].manifest.actions == [WidgetAction(key: "r", title: "check now")])
    }

    @Test("JSON syntax errors name the line and column; a document that is not an object is refused")
    func syntax() {
        #expect(issues("{\"name\": \"a\",\n  \"exec\": [}").first?.hasPrefix("line 2, column") == true)
        #expect(issues("[]") == ["expected an object, found an array"])
    }

    @Test("a kind declared twice and an unknown defaultFamily are errors")
    func duplicates() {
        let found = issues(#"{"name": "a", "exec": ["x"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K"}, {"kind": "k", "displayName": "K2"}, {"kind": "m", "displayName": "M", "families": ["small"], "defaultFamily": "large"}]}"#)
        #expect(found.contains("widgets[2].defaultFamily: \"large\" is not one of the kind's families"))
        #expect(found.contains("widgets[1].kind: kind 'k' is declared twice"))
    }
}

@Suite("Extension discovery")
struct ExtensionDiscoveryTests {
    @Test("good extensions are found, bad ones reported with their file and skipped, a duplicate name keeps the first; a folder without extension.json is no extension and no problem")
    func discovery() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for folder in ["first", "second", "broken", "empty", "__pycache__", "same", "odd", "odd/extension.json"] { mkdir(scratch.path + "/" + folder, 0o755) }
        try scratch.write("first/extension.json", #"{"name": "one", "exec": ["./a"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K"}]}"#)
        try scratch.write("second/extension.json", #"{"name": "two", "exec": ["./b"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K"}]}"#)
        try scratch.write("broken/extension.json", #"{"name": "three", "exec": ["./c"], "protocol": 1}"#)
        try scratch.write("same/extension.json", #"{"name": "one", "exec": ["./d"], "protocol": 1, "widgets": [{"kind": "k", "displayName": "K"}]}"#)
        let result = ExtensionDiscovery.discover(in: [(scratch.path, true), (scratch.path + "/missing", false)])
        #expect(result.manifests.map(\.name) == ["one", "two"])
        #expect(result.manifests[0].directory == scratch.path + "/first")
        #expect(result.problemLines == [
            "\(scratch.path)/broken/extension.json: widgets: is required (at least one widget kind)",
            "\(scratch.path)/odd/extension.json: not a regular file",
            "\(scratch.path)/same/extension.json: name: extension 'one' is already provided by \(scratch.path)/first/extension.json; this one is skipped",
        ])
    }

    @Test("--extensions-dir comes first and must exist; the XDG directory may be missing")
    func directories() {
        let found = ExtensionDiscovery.directories(explicitDirectory: "/opt/ext", environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"])
        #expect(found.map(\.path) == ["/opt/ext", "/c/widgethost/extensions"])
        #expect(found.map(\.required) == [true, false])
        #expect(ExtensionDiscovery.directories(explicitDirectory: nil, environment: ["HOME": "/h"]).map(\.path) == ["/h/.config/widgethost/extensions"])
        let missing = ExtensionDiscovery.discover(in: [("/nonexistent/widgethost-ext", true)])
        #expect(missing.problemLines.count == 1)
        #expect(missing.problemLines[0].hasPrefix("/nonexistent/widgethost-ext: cannot read the extensions directory"))
    }
}

/// A date of an extension message.
private func iso(_ text: String) -> Date { ISO8601DateTime.parse(text, .message)!.date! }

@Suite("Extension timelines as data")
struct ExtensionTimelineDecoderTests {
    @Test("entries are read with relevance and views; problems name their path")
    func decode() throws {
        let good = try JSONTreeParse(#"{"entries": [{"date": "2026-11-30T22:06:00Z", "view": {"type": "divider"}}, {"date": "2026-11-30T22:05:00Z", "relevance": {"score": 3, "duration": 60}, "view": {"type": "spacer"}}], "policy": {"after": "2026-11-30T23:00:00Z"}}"#)
        let timeline = try ExtensionTimelineDecoder.decode(good)
        #expect(timeline.entries.map(\.view) == [.spacer, .divider])  // sorted by date
        #expect(timeline.entries[0].relevance == TimelineEntryRelevance(score: 3, duration: 60))
        #expect(timeline.policy == .after(iso("2026-11-30T23:00:00Z")))
        let bad = try JSONTreeParse(#"{"entries": [{"date": "yesterday", "view": {"type": "spacer"}}, {"date": "2026-11-30T22:05:00Z", "view": {"type": "text", "spans": [{"text": "x", "role": "pink"}]}}], "policy": "sometimes"}"#)
        #expect(throws: ExtensionError.badAnswer("entries[0].date: expected an ISO 8601 date with a time zone (2026-11-30T22:05:00Z); entries[1].view.spans[0].role: unknown role \"pink\" (expected one of background, foreground, border, borderFocused, title, accent, positive, negative, warning, muted, statusBar, statusText, stale, placeholder); policy: expected \"atEnd\", \"never\" or {\"after\": date}, found \"sometimes\"")) {
            try ExtensionTimelineDecoder.decode(bad)
        }
        let undated = try JSONTreeParse(#"{"entries": [{"view": {"type": "spacer"}}], "policy": "never"}"#)
        #expect(throws: ExtensionError.badAnswer("entries[0].date: is required: an ISO 8601 date with a time zone (2026-11-30T22:05:00Z)")) {
            try ExtensionTimelineDecoder.decode(undated)
        }
    }
}

@Suite("Extension programs")
struct ExtensionProgramTests {
    @Test("an exec path that does not exist says so; a folder, or a file without x, says what is wrong with it")
    func missingProgram() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("plain.sh", "echo hi")
        let directory = scratch.path
        func message(_ program: String) -> String {
            if case .failure(let failure) = ExtensionLauncher.resolve(program, directory: directory, path: "/usr/bin:/bin") { return failure.message }
            return "resolved"
        }
        #expect(message("./nope.sh") == "\(directory)/./nope.sh does not exist")
        #expect(message("./plain.sh").hasPrefix("\(directory)/./plain.sh is not executable (chmod +x it"))
        #expect(message(directory) == "\(directory) is not a regular file")
        #expect(message("/bin/sh") == "resolved")
    }
}

import JSONTree

func JSONTreeParse(_ text: String) throws -> JSONValue { try JSONParser().parse(text) }
