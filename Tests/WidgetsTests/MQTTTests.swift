import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private func read(_ text: String) -> MQTTPayload {
    Array(text.utf8).withUnsafeBytes { MQTTPayload($0) }
}

private func record(_ table: inout MQTTTopicTable, _ topic: String, _ text: String, at seconds: Double = 0) {
    Array(text.utf8).withUnsafeBytes {
        table.record(topic: topic, payload: $0, retained: false, at: Date(timeIntervalSince1970: seconds))
    }
}

@Suite("mqtt: topic filters, payloads, the bounded table, backoff, options, view")
struct MQTTTests {
    @Test("topic filters: + is one level, # the rest and its parent, $ topics need a literal first level; bad filters refused")
    func filters() throws {
        let cases: [(String, String, Bool)] = [
            ("home/+/climate", "home/kitchen/climate", true), ("home/+/climate", "home/climate", false),
            ("home/+/climate", "home/a/b/climate", false), ("home/#", "home", true), ("home/#", "home/a/b", true),
            ("home/#", "homes/a", false), ("#", "a/b", true), ("#", "$SYS/broker/uptime", false),
            ("+/broker/uptime", "$SYS/broker/uptime", false), ("$SYS/#", "$SYS/broker/uptime", true),
            ("a/b", "a/b", true), ("a/b", "a/b/", false), ("+", "", true), ("+/+", "/x", true),
        ]
        for (filter, topic, matches) in cases {
            #expect(try MQTTTopicFilter(filter).matches(topic) == matches, "\(filter) ~ \(topic)")
        }
        for bad in ["", "a/#/b", "a#", "a/b+", String(repeating: "x", count: 1_025), "a\u{1B}b"] {
            #expect(throws: OptionError.self, "\(bad.prefix(20))") { try MQTTTopicFilter(bad) }
        }
    }

    @Test("payloads: JSON read, text kept as text, over 64 KiB named not decoded, invalid UTF-8 shown with �, controls cleaned at parse")
    func payloads() {
        let json = read(#"{"t": 21.5, "list": [1, 2], "s": "a\u001bb"}"#)
        #expect(json.problem == nil)
        #expect(json.value(at: try! JSONPointer("/t")) == .number(21.5))
        #expect(json.value(at: try! JSONPointer("/list")) == .string("[1,2]"))
        #expect(json.value(at: try! JSONPointer("/s")) == .string("a\u{FFFD}b"))
        #expect(json.value(at: try! JSONPointer("/nope")) == nil)
        let text = read("on\r\nnow\u{7F}\u{202E}")
        #expect(text.json == nil && text.text == "on  now\u{FFFD}\u{FFFD}")
        #expect(text.value(at: try! JSONPointer("")) == .string("on  now\u{FFFD}\u{FFFD}"))
        #expect(text.value(at: try! JSONPointer("/t")) == nil)
        let big = [UInt8](repeating: 0x41, count: MQTTPayload.maximumBytes + 1).withUnsafeBytes { MQTTPayload($0) }
        #expect(big.text.isEmpty && big.problem == "payload of 64 KiB is over the 64 KiB limit")
        #expect(big.value(at: try! JSONPointer("")) == nil)
        let fits = [UInt8](repeating: 0x41, count: MQTTPayload.maximumBytes).withUnsafeBytes { MQTTPayload($0) }
        #expect(fits.problem == nil && fits.text.count == MQTTText.maximumLength)
        let bad = ([0xC3, 0x28, 0x41] as [UInt8]).withUnsafeBytes { MQTTPayload($0) }
        #expect(bad.text == "\u{FFFD}(A" && bad.problem == "payload is not UTF-8 (3 B)")
    }

    @Test("the table keeps 256 topics and counts the rest; fields resolve at arrival from their topic; a notice clears when its topic is fine again")
    func table() {
        let fields = [MQTTField(label: "Kitchen", topic: try! MQTTTopicFilter("home/kitchen"), pointer: try! JSONPointer("/t"), format: .number),
                      MQTTField(label: "Any", topic: nil, pointer: try! JSONPointer(""), format: .text)]
        var table = MQTTTopicTable(fields: fields)
        for i in 0..<300 { record(&table, "flood/\(i)", "\(i)") }
        #expect(table.messages.count == MQTTTopicTable.maximumTopics && table.droppedMessages == 44 && table.messageCount == 300)
        // A kept topic still updates; a field reads its topic even when the table is full.
        record(&table, "flood/0", "new")
        #expect(table.messages["flood/0"]?.text == "new" && table.droppedMessages == 44)
        record(&table, "home/kitchen", #"{"t": 19.5}"#, at: 10)
        #expect(table.fieldValues[0] == .init(value: .number(19.5), receivedAt: Date(timeIntervalSince1970: 10)))
        #expect(table.fieldValues[1]?.value == .string(#"{"t":19.5}"#))
        #expect(table.droppedMessages == 45)
        [UInt8](repeating: 0, count: 70_000).withUnsafeBytes { table.record(topic: "flood/1", payload: $0, retained: true, at: Date()) }
        #expect(table.notice == "flood/1: payload of 68 KiB is over the 64 KiB limit")
        record(&table, "flood/2", "ok")
        #expect(table.notice != nil)
        record(&table, "flood/1", "ok")
        #expect(table.notice == nil)
    }

    @Test("reconnect backoff in simulated time: 1, 2, 4 … 60 s; a connection that lasted 10 s starts again at 1 s, a shorter one does not")
    func backoff() {
        let backoff = MQTTBackoff()
        #expect((1...8).map { backoff.delay(failures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(backoff.delay(failures: 1_000) == .seconds(60))
        let start = ContinuousClock.now
        #expect(backoff.failures(after: 5, connectedAt: start, now: start + .seconds(10)) == 1)
        #expect(backoff.failures(after: 5, connectedAt: start, now: start + .seconds(9)) == 6)
        #expect(backoff.failures(after: 0, connectedAt: nil, now: start) == 1)
    }

    @Test("options: the broker URL, topics, pointers and credentials checked; errors name the variable, never a value")
    func options() throws {
        func panel(_ options: [String: WidgetOptions.Value], environment: [String: String] = [:]) throws -> MQTTPanel {
            try MQTTPanel(MQTTOptions(WidgetOptions(options)), environment: environment)
        }
        let topics: WidgetOptions.Value = .list([.string("a/#")])
        let tls = try panel(["broker": .string("mqtts://broker.example"), "topics": topics])
        #expect(tls.broker == MQTTBroker(host: "broker.example", port: 8883, tls: true))
        #expect(try panel(["topics": topics]).broker.port == 1883)
        func refusal(_ options: [String: WidgetOptions.Value], environment: [String: String] = [:]) -> String {
            do { _ = try panel(options, environment: environment); return "accepted" } catch { return "\(error)" }
        }
        #expect(refusal(["broker": .string("mqtt://u:pw@h:1883"), "topics": topics]).hasPrefix("broker: give no credentials in the URL"))
        #expect(refusal(["broker": .string("mqtt://h/a"), "topics": topics]).hasPrefix("broker: a broker URL has no path"))
        #expect(refusal(["topics": .list([])]) == "topics: give 1 to 16 topics")
        #expect(refusal(["topics": .list([.string("a/#/b")])]).hasPrefix("topics[0]: topic \"a/#/b\": '#' must be a whole level"))
        #expect(refusal(["topics": topics, "fields": .list([.object(["label": .string("x"), "topic": .string("a+")])])])
                .hasPrefix("fields[0].topic: "))
        #expect(refusal(["topics": topics, "username": .string("u"), "password": .string("hunter2")])
                == "password: give \"$NAME\", the environment variable that holds it; a password is never written in a config")
        #expect(refusal(["topics": topics, "username": .string("u"), "password": .string("$PW")]) == "password: the environment variable PW is not set")
        #expect(refusal(["topics": topics, "password": .string("$PW")], environment: ["PW": "x"]) == "password: give a username too")
        #expect(refusal(["topics": topics, "caFile": .string("/ca.pem")]) == "caFile: only for an mqtts:// broker")
        let resolved = try panel(["topics": topics, "username": .string("$U"), "password": .string("$PW")], environment: ["U": "me", "PW": "x"])
        #expect(resolved.username == "me" && resolved.password == "x")
    }

    @Test("the view: rows, 'showing N of M topics', the warnings, then the link; a 0×0 and a 1×1 area draw nothing odd")
    func view() {
        let size = CellSize(columns: 40, rows: 6)
        func frame(_ entry: MQTTEntry, _ size: CellSize = size) -> CellBuffer {
            var buffer = CellBuffer(width: size.columns, height: size.rows)
            MQTTView.view(entry, context: WidgetViewContext(family: .medium, size: size)).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
            return buffer
        }
        let rows = (0..<5).map { MQTTEntry.Row(label: "flood/\($0)", value: "\($0)") }
        let flood = MQTTEntry(date: Date(), rows: rows, listsTopics: true, topicCount: 256, droppedMessages: 9_744,
                              notice: "x/big: payload of 977 KiB is over the 64 KiB limit", link: .live)
        expectFrame(frame(flood), equals: [
            "flood/0                                0",
            "flood/1                                1",
            "showing 2 of 5 topics",
            "⚠ over 256 topics: 9,744 messages on ot…",
            "⚠ x/big: payload of 977 KiB is over the…",
            "live",
        ])
        let down = MQTTEntry(date: Date(), rows: [.init(label: "Kitchen", value: nil)], listsTopics: false, topicCount: 0,
                             droppedMessages: 0, link: .down("connection refused"))
        expectFrame(frame(down), equals: ["Kitchen                                —", "", "", "", "", "⚠ connection refused · reconnecting"])
        _ = frame(flood, CellSize(columns: 0, rows: 0))
        // One cell: the link's line, cut.
        expectFrame(frame(down, CellSize(columns: 1, rows: 1)), equals: ["…"])
    }
}
