import JSONTree
import Testing
import WidgetCore
import Widgets

/// The option schemas the built-in widgets declare: one declaration yields the manifest's
/// entries and the typed value the factory reads.
@Suite("Option schemas")
struct OptionSchemaTests {
    @Test("each built-in widget's manifest lists the options, defaults, docs and examples it listed before its schema")
    func manifestsUnchanged() {
        let expected: [(String, [OptionSpec], [OptionSpec])] = [
        ("Clock", ClockWidget.manifest.options, [
            OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"),
                       doc: "IANA zone such as Europe/Paris, UTC, or local", example: "Europe/Paris", dynamic: true),
            OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false),
                       doc: "show seconds (wakes every second)", example: "true"),
            OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true),
                       doc: "24-hour time; false for AM/PM", example: "false"),
            OptionSpec(name: "showDate", type: .bool, defaultValue: .bool(true),
                       doc: "show the date under the time", example: "false"),
        ]),
        ("Command", CommandWidget.manifest.options, [
            OptionSpec(name: "command", type: .string,
                       doc: "a command line for /bin/sh -c (or argv)", example: "df -h /"),
            OptionSpec(name: "argv", type: .stringList,
                       doc: "the program and its arguments, found in PATH (or command)"),
            OptionSpec(name: "intervalSeconds", type: .seconds(0...86_400, refreshInterval: false), defaultValue: .integer(10),
                       doc: "seconds between runs (≥ minimumReloadSeconds); 0: only on r", example: "30"),
            OptionSpec(name: "timeoutSeconds", type: .seconds(1...CommandWidget.maximumTimeoutSeconds, refreshInterval: false),
                       defaultValue: .integer(10),
                       doc: "kill the command's process group after this long", example: "5"),
            OptionSpec(name: "maxOutputBytes", type: .integer(1...CommandWidget.maximumOutputBytes), defaultValue: .integer(65_536),
                       doc: "stdout+stderr bytes kept; the rest is read and dropped", example: "4096"),
            OptionSpec(name: "workingDirectory", type: .string, doc: "where it runs (default: the host's)", example: "/tmp"),
            OptionSpec(name: "env", type: .stringMap, doc: "variables added to the host's environment"),
            OptionSpec(name: "show", type: .oneOf(["tail", "head"]), defaultValue: .string("tail"),
                       doc: "show the last lines that fit, or the first", example: "head"),
            OptionSpec(name: "alertOnFailure", type: .bool, defaultValue: .bool(false), doc: "alert when a run fails (not exit 0)",
                       example: "true"),
        ]),
        ("Countdown", CountdownWidget.manifest.options, [
            OptionSpec(name: "to", type: .dateTime, required: true,
                       doc: "when it ends: ISO 8601 with offset, or local time", example: "2026-12-31T23:59"),
            OptionSpec(name: "label", type: .string,
                       doc: "what it counts down to (and the panel's title)", example: "New Year"),
        ]),
        ("HTTPJSON", HTTPJSONWidget.manifest.options, [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true,
                       doc: "the JSON document", example: "https://api.example.com/status"),
            OptionSpec(name: "headers", type: .stringMap,
                       doc: "request headers (\"$NAME\": from the environment, never shown)",
                       example: nil),
            OptionSpec(name: "fields", type: .objectList([
                OptionSpec(name: "label", type: .string, required: true, doc: "the row's label", example: "Price"),
                OptionSpec(name: "pointer", type: .jsonPointer, required: true,
                           doc: "JSON Pointer (RFC 6901; ~1 for '/', ~0 for '~') to the value", example: "/data/0/price"),
                OptionSpec(name: "format", type: .oneOf(["text", "number", "percent", "bytes", "duration", "relative-time"]),
                           defaultValue: .string("text"), doc: "how the value is shown", example: "number"),
                OptionSpec(name: "alertAbove", type: .number(-1e15...1e15), doc: "a number above this is an alert", example: "100"),
                OptionSpec(name: "alertBelow", type: .number(-1e15...1e15), doc: "a number below this is an alert", example: "1"),
            ]), required: true, doc: "the rows: label, pointer, format",
                       example: nil),
            OptionSpec(name: "refreshSeconds", type: .seconds(1...86_400, refreshInterval: true), defaultValue: .integer(60),
                       doc: "seconds between fetches", example: "300"),
            OptionSpec(name: "session", type: .string, defaultValue: .string(HTTPJSONWidget.defaultSession),
                       doc: "background session identifier (letters, digits, . _ -)", example: "prices"),
            OptionSpec(name: "link", type: .url(schemes: ["http", "https"]),
                       doc: "where o on the panel leads (a page about the values)", example: "https://status.example.com/"),
        ]),
        ("Hero", HeroWidget.manifest.options, [
            OptionSpec(name: "name", type: .string, required: true, doc: "the hero's name", example: "Spouty", dynamic: true),
            OptionSpec(name: "session", type: .string, defaultValue: .string(LeaderboardWidget.defaultSession),
                       doc: "the leaderboard session whose boards to read", example: "leaderboard"),
        ]),
        ("Leaderboard", LeaderboardWidget.manifest.options, [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true,
                       doc: "the server's leaderboard",
                       example: "http://127.0.0.1:8787/leaderboard"),
            OptionSpec(name: "refreshSeconds", type: .seconds(1...86_400, refreshInterval: true), defaultValue: .integer(10),
                       doc: "seconds between fetches", example: "30"),
            OptionSpec(name: "session", type: .string, defaultValue: .string(LeaderboardWidget.defaultSession),
                       doc: "background session identifier (letters, digits, . _ -)", example: "leaderboard"),
            OptionSpec(name: "maxRows", type: .integer(1...50), defaultValue: .integer(10), doc: "heroes shown at most", example: "6"),
            OptionSpec(name: "push", type: .url(schemes: ["http", "https"]),
                       doc: "server-sent events: a change shows at once",
                       example: "http://127.0.0.1:8787/events"),
        ]),
        ("System", SystemWidget.manifest.options, [
            OptionSpec(name: "intervalSeconds", type: .seconds(1...3600, refreshInterval: false),
                       defaultValue: .integer(2),
                       doc: "seconds between readings of /proc", example: "5"),
            OptionSpec(name: "alertCpuPercent", type: .integer(1...100), doc: "alert when CPU use reaches this (percent)", example: "90"),
            OptionSpec(name: "alertMemoryPercent", type: .integer(1...100), doc: "alert when memory in use reaches this (percent)",
                       example: "90"),
        ]),
        ("Text", TextWidget.manifest.options, [
            OptionSpec(name: "text", type: .string, doc: "the text to show (or file)", example: "Hello"),
            OptionSpec(name: "file", type: .string,
                       doc: "a file to show (~ for HOME), reloaded on change (or text)", example: "~/notes.txt"),
            OptionSpec(name: "wrap", type: .bool, defaultValue: .bool(true),
                       doc: "wrap long lines to the panel; false cuts them", example: "false"),
        ]),
        ]
        for (name, derived, written) in expected {
            #expect(derived == written, "\(name)")
        }
        #expect(ClockWidget.manifest.titleOption == "timeZone")
        #expect(CommandWidget.manifest.titleOption == "command")
        #expect(CommandWidget.manifest.exactlyOneOf == [["command", "argv"]])
        #expect(CountdownWidget.manifest.titleOption == "label")
        #expect(HeroWidget.manifest.titleOption == "name")
        #expect(LeaderboardWidget.manifest.pushSourceOption == "push")
        #expect(TextWidget.manifest.titleOption == "file")
        #expect(TextWidget.manifest.exactlyOneOf == [["text", "file"]])
    }

    @Test("a field's default is its property's initial value; an optional without one has no default; a required one none")
    func defaults() {
        #expect(ClockOptions.specs.map(\.defaultValue) == [.string("local"), .bool(false), .bool(true), .bool(true)])
        #expect(CommandOptions.specs.first { $0.name == "env" }?.defaultValue == nil)
        #expect(CommandOptions.specs.first { $0.name == "show" }?.type == .oneOf(["tail", "head"]))
        #expect(CountdownOptions.specs[0].required && CountdownOptions.specs[0].defaultValue == nil)
        #expect(CommandOptions.name(of: \.argv) == "argv")
    }

    @Test("missing options read as their defaults; given ones as their typed values")
    func typedValues() throws {
        #expect(try ClockOptions(WidgetOptions()) == ClockOptions())
        let clock = try ClockOptions(["timeZone": .string("Asia/Tokyo"), "seconds": .bool(true), "hour24": .bool(false)])
        #expect(clock.timeZone == "Asia/Tokyo" && clock.seconds && !clock.hour24 && clock.showDate)

        let command = try CommandOptions(["argv": .list([.string("ls"), .string("-l")]), "show": .string("head"),
                                          "env": .object(["A": .string("1")]), "intervalSeconds": .integer(0)])
        #expect(command.argv == ["ls", "-l"] && command.command == nil)
        #expect(command.show == .head && command.env == ["A": "1"] && command.intervalSeconds == 0)
        #expect(command.timeoutSeconds == 10 && command.maxOutputBytes == 65_536 && command.workingDirectory == nil)

        let json = try HTTPJSONOptions(["url": .string("http://127.0.0.1:1/x"), "fields": .list([
            .object(["label": .string("A"), "pointer": .string("/a")]),
            .object(["label": .string("B"), "pointer": .string("/b"), "format": .string("relative-time")]),
        ])])
        #expect(json.fields.map(\.format) == [.text, .relativeTime])
        #expect(json.refreshSeconds == 60 && json.session == "http-json" && json.headers == nil)
    }

    @Test("a value of the wrong type, or a missing required one, is an error naming its key path")
    func errors() {
        func message(_ make: () throws -> Any) -> String {
            do {
                _ = try make()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message { try ClockOptions(["seconds": .string("yes")]) } == "seconds: expected true or false")
        #expect(message { try CountdownOptions(["label": .string("Launch")]) }
                == "to: missing required option: when it ends: ISO 8601 with offset, or local time "
                + "(an ISO 8601 date and time like '2026-12-31T23:59' or '2026-12-31T23:59:00+01:00')")
        let fields: WidgetOptions.Value = .list([.object(["label": .string("A"), "pointer": .string("/a")]),
                                                 .object(["label": .string("B"), "pointer": .string("/b"), "format": .string("loud")])])
        #expect(message { try HTTPJSONOptions(["url": .string("http://127.0.0.1:1/x"), "fields": fields]) }
                == "fields[1].format: expected one of 'text', 'number', 'percent', 'bytes', 'duration', 'relative-time'")
        #expect(message { try HTTPJSONOptions(["url": .string("http://127.0.0.1:1/x"), "fields": .list([.object(["label": .string("A")])])]) }
                == "fields[0].pointer: missing required option: JSON Pointer (RFC 6901; ~1 for '/', ~0 for '~') to the value "
                + "(a JSON Pointer like '/data/0/price' (~1 for '/', ~0 for '~'))")
        #expect(message { try CommandOptions(["argv": .string("ls")]) } == "argv: expected a list of strings")
    }

    @Test("a config's options, decoded against the derived manifest entries, read back as the typed value")
    func throughTheDecoder() throws {
        let document = try JSONParser().parse(#"{"url": "https://example.com/s", "fields": [{"label": "P", "pointer": "/p"}], "refreshSeconds": 5}"#)
        var report = OptionReport()
        let decoded = OptionDecoder(isKnownTimeZone: { _ in true }, minimumReloadSeconds: 30)
            .decode(document, specs: HTTPJSONWidget.manifest.options, owner: "'http-json'", at: ConfigPath([.key("options")]), into: &report)
        #expect(report.errors.isEmpty)
        #expect(report.warnings.map(\.description) == ["options.refreshSeconds: 5 is below minimumReloadSeconds; raised to 30"])
        let options = try HTTPJSONOptions(WidgetOptions(try #require(decoded)))
        #expect(options.url == "https://example.com/s" && options.refreshSeconds == 30 && options.session == "http-json")
        #expect(options.fields.count == 1 && options.fields[0].label == "P" && options.fields[0].format == .text)

        var bad = OptionReport()
        _ = OptionDecoder(isKnownTimeZone: { _ in true }, minimumReloadSeconds: 30)
            .decode(try JSONParser().parse(#"{"seconds": "yes"}"#), specs: ClockWidget.manifest.options, owner: "'clock'",
                    at: ConfigPath([.key("options")]), into: &bad)
        #expect(bad.errors.map(\.description) == [#"options.seconds: expected true or false, got "yes""#])
    }
}
