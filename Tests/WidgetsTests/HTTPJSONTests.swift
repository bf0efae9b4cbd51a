import BackgroundSessions
import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }

/// RFC 6901 §5's example document.
private let rfcDocument = json(#"""
{ "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8 }
"""#)

@Suite("JSON Pointer (RFC 6901)")
struct JSONPointerTests {
    @Test("the RFC's examples, ~0 and ~1 included")
    func rfcExamples() throws {
        let cases: [(String, JSONValue)] = [
            ("", rfcDocument), ("/foo", json(#"["bar", "baz"]"#)), ("/foo/0", .string("bar")), ("/", .integer(0)),
            ("/a~1b", .integer(1)), ("/c%d", .integer(2)), ("/e^f", .integer(3)), ("/g|h", .integer(4)),
            (#"/i\j"#, .integer(5)), (#"/k"l"#, .integer(6)), ("/ ", .integer(7)), ("/m~0n", .integer(8)),
        ]
        for (text, expected) in cases {
            #expect(try JSONPointer(text).resolve(in: rfcDocument) == expected, "\(text)")
        }
        // "~01" is "~1" unescaped once: the key "~1", not "/".
        #expect(try JSONPointer("/~01").tokens == ["~1"])
        #expect(try JSONPointer("/~01").resolve(in: json(#"{"~1": true, "/": false}"#)) == .bool(true))
    }

    @Test("what names nothing resolves to nil: a missing key, an index out of range, '-', a leading zero, a step into a scalar")
    func missing() throws {
        let document = json(#"{"data": [{"price": 1.5}, {"price": 2}], "n": 3}"#)
        for text in ["/nope", "/data/2", "/data/-", "/data/01", "/data/+1", "/data/0/price/x", "/n/0", "/data/99999999999999999999"] {
            #expect(try JSONPointer(text).resolve(in: document) == nil, "\(text)")
        }
        #expect(try JSONPointer("/data/1/price").resolve(in: document) == .integer(2))
    }

    @Test("a pointer not starting with '/' or with a bare '~' is refused")
    func syntax() {
        for text in ["data", "/a~", "/a~2b", "~1"] {
            #expect(throws: JSONPointer.SyntaxError.self, "\(text)") { try JSONPointer(text) }
        }
    }
}

@Suite("http-json formats")
struct HTTPJSONFormatTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("each format, and a value it cannot read shown as text")
    func formats() {
        let cases: [(HTTPJSONFormat, JSONValue, String)] = [
            (.text, .string("ACME"), "ACME"), (.text, .integer(42), "42"), (.text, .number(2.0), "2"), (.text, .number(2.5), "2.5"),
            (.text, .bool(true), "true"), (.text, .null, "null"), (.text, json(#"{"a":[1,2]}"#), #"{"a":[1,2]}"#),
            (.number, .number(12_345.678), "12,345.68"), (.number, .integer(-1_000_000), "-1,000,000"), (.number, .number(0.004), "0"),
            (.number, .number(-0.004), "0"), (.number, .string("n/a"), "n/a"), (.number, .number(1e300), "1e+300"),
            (.percent, .number(0.425), "42.5%"), (.percent, .number(-0.0123), "-1.2%"), (.percent, .integer(1), "100%"),
            (.bytes, .integer(512), "512 B"), (.bytes, .integer(1536), "1.5 KiB"), (.bytes, .integer(1_536_000), "1.5 MiB"),
            (.bytes, .number(5e18), "4.3 EiB"), (.bytes, .number(1e30), "867,361,737,988 EiB"), (.bytes, .integer(-2048), "-2 KiB"),
            (.duration, .integer(8100), "2h 15m"), (.duration, .integer(-120), "-2m"), (.duration, .number(1e300), ">99999d"),
            (.relativeTime, .string("2027-01-15T07:55:00Z"), "5m ago"), (.relativeTime, .integer(1_800_000_000 + 7200), "in 2h"),
            (.relativeTime, .string("2027-01-15T07:59:30.250Z"), "<1m ago"), (.relativeTime, .string("yesterday"), "yesterday"),
            (.relativeTime, .number(1e300), "1e+300"),
        ]
        for (format, value, expected) in cases {
            #expect(format.format(value, now: now) == expected, "\(format) \(value.jsonText)")
        }
    }

    @Test("long text is cut to the maximum length")
    func long() {
        let text = HTTPJSONFormat.text.format(.string(String(repeating: "x", count: 10_000)), now: now)
        #expect(text.count == HTTPJSONFormat.maximumLength && text.hasSuffix("…"))
    }
}

@Suite("http-json options")
struct HTTPJSONOptionTests {
    private func provider(_ options: WidgetOptions, environment: [String: String] = [:]) throws -> AnyTimelineProvider {
        try HTTPJSONWidget.configuration(context: WidgetContext(now: { at(0) }, environment: environment)).makeProvider(options)
    }

    private let field: WidgetOptions.Value = .object(["label": .string("Price"), "pointer": .string("/price"), "format": .string("number")])

    @Test("a bad pointer, an unset variable, a header value with a line break: errors naming the key path, never the value")
    func badOptions() throws {
        func message(_ options: WidgetOptions, environment: [String: String] = [:]) -> String {
            do {
                _ = try provider(options, environment: environment)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let url = WidgetOptions.Value.string("http://127.0.0.1:1/x")
        #expect(message(["url": url, "fields": .list([field, .object(["label": .string("B"), "pointer": .string("price")])])])
                == "fields[1].pointer: a JSON Pointer is empty or starts with '/'")
        #expect(message(["url": url, "fields": .list([.object(["label": .string("B"), "pointer": .string("/a~2")])])])
                == "fields[0].pointer: '~' must be followed by 0 or 1 (~0 for '~', ~1 for '/')")
        #expect(message(["url": url, "fields": .list([field]), "headers": .object(["Authorization": .string("$MISSING_TOKEN")])])
                == "headers.Authorization: the environment variable MISSING_TOKEN is not set")
        #expect(message(["url": url, "fields": .list([field]), "headers": .object(["X-Key": .string("$KEY")])],
                        environment: ["KEY": "s3cret\r\nX-Evil: 1"])
                == "headers.X-Key: the value holds a control character")
        #expect(message(["url": url, "fields": .list([field]), "headers": .object(["Bad Name": .string("v")])])
                == "headers.Bad Name: not a header name (letters, digits and !#$%&'*+-.^_`|~)")
        // The transport sets these itself (its conditional requests, the framing).
        #expect(message(["url": url, "fields": .list([field]), "headers": .object(["If-None-Match": .string("\"1\"")])])
                == "headers.If-None-Match: set by the host (framing, connection, conditional requests), cannot be given")
        #expect(message(["url": url, "fields": .list([field]), "session": .string("../x")])
                == "session must be 1-64 letters, digits, '.', '_' or '-', not starting with '.'")
        #expect(message(["url": url, "fields": .list([])]) == "fields: give at least one field")
        #expect(message(["url": url, "fields": .list([field]), "headers": .object(["Authorization": .string("$TOKEN")])],
                        environment: ["TOKEN": "Bearer s3cret"]) == "no error")
    }

    @Test("headers: \"$NAME\" from the environment, other values as written")
    func headers() throws {
        let resolved = try HTTPJSONWidget.resolve(headers: ["Authorization": "$TOKEN", "Accept": "application/json", "X-Dollar": "$"],
                                                  environment: ["TOKEN": "Bearer s3cret"])
        #expect(resolved == ["Authorization": "Bearer s3cret", "Accept": "application/json", "X-Dollar": "$"])
    }
}

/// A document's fields for the frame snapshots: every format, a missing pointer, wide text.
private let snapshotFields: [HTTPJSONField] = [
    HTTPJSONField(label: "Name", pointer: try! JSONPointer("/name")),
    HTTPJSONField(label: "Price", pointer: try! JSONPointer("/data/0/price"), format: .number),
    HTTPJSONField(label: "Change", pointer: try! JSONPointer("/data/0/change"), format: .percent),
    HTTPJSONField(label: "Volume", pointer: try! JSONPointer("/data/0/volume"), format: .bytes),
    HTTPJSONField(label: "Uptime", pointer: try! JSONPointer("/uptime"), format: .duration),
    HTTPJSONField(label: "Checked", pointer: try! JSONPointer("/checked"), format: .relativeTime),
    HTTPJSONField(label: "Dividend", pointer: try! JSONPointer("/data/0/dividend"), format: .number),
]

private let snapshotDocument = json(#"""
{ "name": "ACME 🚀 株式会社\u001b[31m", "uptime": 8100, "checked": "2027-01-15T07:55:00Z",
  "data": [ { "price": 12345.678, "change": -0.0123, "volume": 1536000 } ] }
"""#)

private func entry(error: String? = nil, body: JSONValue? = snapshotDocument) -> HTTPJSONEntry {
    var stored = HTTPJSONStore.Stored()
    stored.body = body
    stored.state.fetchedAt = testEpoch - 300
    return HTTPJSONEntry.timeline(fields: snapshotFields, stored: stored, isFetching: false, error: error,
                                  from: testEpoch, until: testEpoch, retryAt: error == nil ? nil : testEpoch + 40)[0]
}

private func render(_ entry: HTTPJSONEntry, family: WidgetFamily, width: Int, height: Int, glyphs: GlyphSet = .unicode,
                    placeholder: Bool = false) -> CellBuffer {
    var buffer = CellBuffer(width: max(0, width), height: max(0, height))
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    HTTPJSONView.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs, at: entry.date)
    return buffer
}

@Suite("http-json view")
struct HTTPJSONViewTests {
    @Test("'retry in Ns' counts down and 'updated N ago' moves on at the frame's time, from one entry")
    func selfUpdatingStatus() {
        var failed = HTTPJSONEntry(date: at(100), rows: [], hasData: false, fetchError: "connection refused · retry in 40s")
        failed.retryAt = at(140)
        let updated = HTTPJSONEntry(date: at(100), rows: [], hasData: true, fetchedAt: at(100))
        func line(_ entry: HTTPJSONEntry, at now: Date) -> String {
            var buffer = CellBuffer(width: 40, height: 1)
            ViewNode.vstack(HTTPJSONView.statusLines(entry)).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: now)
            return TextBackend.lines(buffer)[0]
        }
        #expect(line(failed, at: at(100)) == "⚠ connection refused · retry in 40s")
        #expect(line(failed, at: at(130.2)) == "⚠ connection refused · retry in 10s")
        #expect(line(updated, at: at(100)) == "updated <1m ago")
        #expect(line(updated, at: at(400)) == "updated 5m ago")
    }

    @Test("frames for each family: labelled rows, — for a missing pointer, the age on the last line")
    func families() {
        expectSnapshot(text(render(entry(), family: .small, width: 24, height: 7)), named: "http-json-small-24x7")
        expectSnapshot(text(render(entry(), family: .medium, width: 50, height: 7)), named: "http-json-medium-50x7")
        expectSnapshot(text(render(entry(), family: .large, width: 50, height: 17)), named: "http-json-large-50x17")
        expectSnapshot(text(render(entry(), family: .extraLarge, width: 98, height: 14)), named: "http-json-extraLarge-98x14")
    }

    @Test("a failed fetch keeps the values and says why, when it retries and how old the values are")
    func failure() {
        let frame = render(entry(error: "server answered 500 Internal Server Error"), family: .medium, width: 60, height: 9)
        expectSnapshot(text(frame), named: "http-json-medium-failed")
        #expect(text(frame).contains("12,345.68"))
        let lines = TextBackend.lines(frame)
        #expect(lines[lines.count - 2].hasPrefix("⚠ server answered 500 Internal Server Error · retry in 40s"), "\(lines)")
        #expect(lines.last?.hasPrefix("data 5m old") == true, "\(lines)")
    }

    @Test("escape sequences in values are drawn inert; tiny areas and ASCII glyphs are safe")
    func hostile() {
        let frame = render(entry(), family: .medium, width: 50, height: 7)
        #expect(!TextBackend.lines(frame).joined().contains("\u{1B}"))
        for (width, height) in [(0, 0), (1, 1), (2, 1), (5, 2)] {
            _ = render(entry(), family: .small, width: width, height: height)
        }
        #expect(text(render(entry(body: nil), family: .small, width: 24, height: 7, glyphs: .ascii)).contains("-"))
    }
}

@Suite("http-json provider")
struct HTTPJSONProviderTests {
    @Test("starts one fetch with its headers; r joins it and cuts a backoff wait short, an automatic reload does not")
    func userReloadExpedites() async throws {
        let transport = FakeTransport()
        let state = makeTemporaryDirectory(prefix: "httpjson")
        defer { removeTree(state) }
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, now: { at(0) })
        defer { manager.close() }
        let context = WidgetContext(sessions: manager, stateDirectory: state, now: { at(0) }, environment: ["TOKEN": "Bearer s3cret"])
        let provider = try HTTPJSONWidget.configuration(context: context).makeProvider(
            ["url": .string("http://127.0.0.1:9/feed"), "headers": .object(["Authorization": .string("$TOKEN")]),
             "fields": .list([.object(["label": .string("A"), "pointer": .string("/a")])])])
        let automatic = TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7))
        let user = TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7), isUserInitiated: true)

        let first = try await provider.timeline(in: automatic)
        #expect((first.entries.first as? HTTPJSONEntry)?.isFetching == true)
        #expect(transport.startedRequests.map(\.headers) == [["Authorization": "Bearer s3cret"]])
        let id = try #require(transport.runningIDs.first)
        transport.emit(id, .retrying(attempt: 1, delay: .seconds(60), reason: "connection refused"))
        _ = try await provider.timeline(in: automatic)
        #expect(transport.expeditedIDs.isEmpty, "an automatic reload leaves the backoff alone")
        _ = try await provider.timeline(in: user)
        #expect(transport.expeditedIDs == [id], "r cuts the backoff wait")
        #expect(transport.startedRequests.count == 1, "and joins the running fetch")
    }
}

extension HTTPJSONProviderTests {
    @Test("a refresh of two hours is reached with coarser entries, policy .after(the fetch): no counted reload after the first hour")
    func reachesNextFetch() async throws {
        let state = makeTemporaryDirectory(prefix: "httpjson")
        defer { removeTree(state) }
        let provider = try HTTPJSONWidget.configuration(context: WidgetContext(stateDirectory: state, now: { at(0) })).makeProvider(
            ["url": .string("http://127.0.0.1:9/feed"), "refreshSeconds": .integer(7_200),
             "fields": .list([.object(["label": .string("A"), "pointer": .string("/a")])])])
        let timeline = try await provider.timeline(in: TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7)))
        #expect(timeline.policy == .after(at(7_200)), "the entries reach the next fetch")
        let offsets = timeline.entries.map { $0.date.timeIntervalSince(testEpoch) }
        #expect(offsets.prefix(60) == ArraySlice((0..<60).map { Double($0) * 60 }), "the first hour by the minute, as before")
        #expect(offsets.dropFirst(60) == ArraySlice(stride(from: 3_600.0, to: 7_200, by: 300)), "then every 5 minutes")
    }
}

@Suite("http-json fuzz")
struct HTTPJSONFuzzTests {
    @Test("any value in any format, and any pointer text, formats or resolves without trapping, within the length bound")
    func fuzz() {
        let seed: UInt64 = 0x6874_7470_6a73_6f6e
        var random = FuzzRandom(seed: seed)
        let document = json(#"{"a": [1, {"b~/c": [true, null, "x"]}], "": {"": 2}, "0": [[[]]]}"#)
        let alphabet: [String] = ["/", "~", "0", "1", "a", "b~/c", "-", "01", "", "\u{1B}[31m", "99999999999999999999", "é"]
        for iteration in 0..<3000 {
            let value: JSONValue
            switch random.below(6) {
            case 0: value = .number(Double(bitPattern: random.next()))
            case 1: value = .integer(Int(truncatingIfNeeded: random.next()))
            case 2: value = .string(String((0..<random.below(300)).map { _ in Character(Unicode.Scalar(UInt8(random.below(128)))) }))
            case 3: value = .number(random.pick([0, -0.0, 1e15, -1e15, 1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 9.999e14]))
            case 4: value = .string(random.pick(["2026-11-30T05:00:00Z", "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "2026-13-45T99:00:00Z"]))
            default: value = document
            }
            let format = random.pick(HTTPJSONFormat.allCases)
            let now = Date(timeIntervalSince1970: Double(Int32(truncatingIfNeeded: random.next())))
            let text = format.format(value, now: now)
            #expect(text.count <= HTTPJSONFormat.maximumLength, "seed \(seed) iteration \(iteration): \(format) \(value.shortDescription)")
            let pointer = (0..<random.below(6)).map { _ in random.pick(alphabet) }.joined()
            if let parsed = try? JSONPointer(pointer) { _ = parsed.resolve(in: document) }
        }
    }
}

extension HTTPJSONProviderTests {
    @Test("link: every entry leads there (o on the panel); a link that is not http or https is an option error")
    func link() async throws {
        let state = makeTemporaryDirectory(prefix: "httpjson")
        defer { removeTree(state) }
        let configuration = HTTPJSONWidget.configuration(context: WidgetContext(stateDirectory: state, now: { at(0) }))
        let options: WidgetOptions = ["url": .string("http://127.0.0.1:9/feed"), "link": .string("https://status.example.com/?q=1&r=2"),
                                      "fields": .list([.object(["label": .string("A"), "pointer": .string("/a")])])]
        let timeline = try await configuration.makeProvider(options).timeline(in: TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7)))
        #expect(!timeline.entries.isEmpty && timeline.entries.allSatisfy { $0.url == "https://status.example.com/?q=1&r=2" })
        let plain = try await configuration.makeProvider(["url": .string("http://127.0.0.1:9/feed"),
                                                          "fields": options["fields"]!])
            .timeline(in: TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7)))
        #expect(plain.entries.allSatisfy { $0.url == nil })
        let manifest = HTTPJSONWidget.manifest
        #expect(manifest.option(named: "link")?.type.problem(with: .string("javascript:alert(1)"), isKnownTimeZone: { _ in true }) != nil)
    }
}
