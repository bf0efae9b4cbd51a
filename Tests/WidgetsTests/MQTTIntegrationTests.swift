#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// A `CurlTransport` (whose network thread drives the MQTT connections), a `PushCenter` on it,
/// and a `TimelineDriver` on a `ManualClock` hosting `mqtt` panels, as the dashboard does.
/// Reconnects and the push budget are quick (`settings`) so the faults take milliseconds.
@MainActor
private final class Rig {
    let clock = ManualClock(now: Date())
    let transport: CurlTransport
    let push: PushCenter
    let center = WidgetCenter()
    let driver: TimelineDriver
    let widget: TerminalWidget
    var panels: [WidgetInstanceID] = []
    static let size = CellSize(columns: 60, rows: 8)

    static let quick: MQTTClient.Settings = {
        var settings = MQTTClient.Settings()
        settings.backoff = MQTTBackoff(base: .milliseconds(50), maximum: .milliseconds(200), healthyAfter: .seconds(10))
        settings.pushSpacing = .milliseconds(50)
        return settings
    }()

    init(settings: MQTTClient.Settings = Rig.quick, environment: [String: String] = [:]) throws {
        transport = try CurlTransport()
        push = PushCenter(transport: transport)
        let clock = clock
        let context = WidgetContext(center: center, now: { clock.now }, push: push, environment: environment)
        widget = MQTTWidget.configuration(context: context, settings: settings)
        driver = TimelineDriver(clock: clock, configuration: SchedulerConfiguration(minimumReloadInterval: 1), center: center)
    }

    /// Adds a panel with `options`; returns its index.
    @discardableResult
    func add(_ options: [String: WidgetOptions.Value]) throws -> Int {
        let provider = try widget.makeProvider(WidgetOptions(options))
        panels.append(driver.add(kind: MQTTWidget.kind, family: .large, size: Self.size, provider: provider))
        return panels.count - 1
    }

    func entry(_ index: Int = 0) -> MQTTEntry? { driver.status(of: panels[index])?.entry as? MQTTEntry }

    func frame(_ index: Int = 0) -> [String] {
        guard let entry = entry(index) else { return [] }
        var buffer = CellBuffer(width: Self.size.columns, height: Self.size.rows)
        MQTTView.view(entry, context: WidgetViewContext(family: .large, size: Self.size))
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        return TextBackend.lines(buffer)
    }

    /// Waits until `condition` holds of what the panels show; the manual clock moves on a
    /// quarter second a step, so reloads the scheduler's interval held back come due
    /// (simulated time for the scheduler, real time for the broker).
    func shows(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
        await eventually(within: seconds) {
            clock.advance(by: 0.25)
            return condition()
        }
    }

    func close() {
        for panel in panels { driver.remove(panel) }
        panels = []
        transport.shutdown()
    }
}

@MainActor
private func value(_ rig: Rig, _ index: Int = 0, _ label: String) -> String? {
    rig.entry(index)?.rows.first { $0.label == label }?.value
}

@Suite("mqtt against the real mosquitto broker", .serialized, .onOwnThreads(.blockingCalls))
@MainActor
struct MQTTBrokerTests {
    @Test("retained messages show at once; + and # select topics; a field reads its topic's JSON by pointer; text stays text")
    func retainedWildcardsPointer() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        try await broker.publish([
            .init("home/kitchen/climate", #"{"temperature": 21.5, "humidity": 40}"#, retained: true),
            .init("home/hall/climate", #"{"temperature": 19, "humidity": 55}"#, retained: true),
            .init("home/hall/door", "open", retained: true),
            .init("garden/rain", "0.2", retained: true),
        ])
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("home/+/climate")]),
                     "fields": .list([
                        .object(["label": .string("Kitchen"), "topic": .string("home/kitchen/climate"),
                                 "pointer": .string("/temperature"), "format": .string("number")]),
                        .object(["label": .string("Hall %"), "topic": .string("home/hall/climate"), "pointer": .string("/humidity")]),
                        .object(["label": .string("Door"), "topic": .string("home/hall/door")]),
                     ])])
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("home/#")])])
        #expect(await rig.shows { value(rig, 0, "Kitchen") == "21.5" && value(rig, 0, "Hall %") == "55" },
                "\(String(describing: rig.entry(0)))")
        // Not subscribed (home/+/climate does not match home/hall/door): no value.
        #expect(value(rig, 0, "Door") == nil)
        #expect(rig.entry(0)?.link == .live)
        #expect(rig.frame(0).first?.hasPrefix("Kitchen") == true && rig.frame(0).first?.hasSuffix("21.5") == true, "\(rig.frame(0))")
        #expect(rig.frame(0).last?.hasPrefix("live") == true, "\(rig.frame(0))")
        // home/# lists every topic under home, sorted, text as text and JSON as JSON.
        #expect(await rig.shows { rig.entry(1)?.rows.count == 3 }, "\(String(describing: rig.entry(1)))")
        #expect(rig.entry(1)?.rows.map(\.label) == ["home/hall/climate", "home/hall/door", "home/kitchen/climate"])
        #expect(value(rig, 1, "home/hall/door") == "open")
        #expect(value(rig, 1, "home/kitchen/climate") == #"{"temperature":21.5,"humidity":40}"#)
    }

    @Test("each live message reloads the panel; a burst collapses and the latest value wins")
    func liveMessages() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("sensors/+")]),
                     "fields": .list([.object(["label": .string("Power"), "topic": .string("sensors/power"), "pointer": .string("/w")])])])
        #expect(await rig.shows { rig.entry()?.link == .live }, "\(String(describing: rig.entry()))")
        try await broker.publish([.init("sensors/power", #"{"w": 100}"#)])
        #expect(await rig.shows { value(rig, 0, "Power") == "100" }, "\(String(describing: rig.entry()))")
        try await broker.publish((1...200).map { .init("sensors/power", #"{"w": \#($0)}"#) })
        #expect(await rig.shows { value(rig, 0, "Power") == "200" }, "\(String(describing: rig.entry()))")
    }

    @Test("the broker goes away: the panel says so and keeps its values; it comes back: reconnected, subscribed again")
    func reconnect() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        var broker = try MosquittoBroker(directory: home.path)
        let port = broker.port
        try await broker.publish([.init("plant/pump", "on", retained: true)])
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("plant/#")])])
        #expect(await rig.shows { value(rig, 0, "plant/pump") == "on" }, "\(String(describing: rig.entry()))")

        broker.stop()
        // Lost ("the broker closed the connection"), then refused while it is away, tried
        // again with backoff; the values stay.
        #expect(await rig.shows { rig.entry()?.link == .down("connection refused") }, "\(String(describing: rig.entry()?.link))")
        #expect(value(rig, 0, "plant/pump") == "on")
        #expect(rig.frame().last?.hasPrefix("⚠ connection refused · reconnecting") == true, "\(rig.frame())")

        broker = try MosquittoBroker(directory: home.path, port: port)
        defer { broker.stop() }
        #expect(await rig.shows { rig.entry()?.link == .live }, "\(String(describing: rig.entry()?.link))")
        try await broker.publish([.init("plant/pump", "off")])
        #expect(await rig.shows { value(rig, 0, "plant/pump") == "off" }, "\(String(describing: rig.entry()))")
    }

    @Test("a 1 MB payload and invalid UTF-8: named on the panel, nothing hostile shown, the other panel unaffected")
    func hostilePayloads() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("x/#")])])
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("ok")])])
        #expect(await rig.shows { rig.entry(0)?.link == .live && rig.entry(1)?.link == .live })
        try await broker.publish([.init("x/big", [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000), retained: true)])
        #expect(await rig.shows { rig.entry(0)?.notice != nil }, "\(String(describing: rig.entry(0)))")
        #expect(rig.entry(0)?.notice == "x/big: payload of 977 KiB is over the 64 KiB limit", "\(String(describing: rig.entry(0)?.notice))")
        #expect(rig.frame(0).contains { $0.hasPrefix("⚠ x/big: payload of 977 KiB is over the 64 KiB limit") }, "\(rig.frame(0))")

        try await broker.publish([.init("x/bad", [0xFF, 0xFE, 0x1B] + Array("[2Jgone".utf8)),
                            .init("x/evil", "\u{1B}]0;title\u{07}ok\u{202E}\nline"),
                            .init("ok", "fine")])
        #expect(await rig.shows { value(rig, 0, "x/evil") != nil && value(rig, 1, "ok") == "fine" },
                "\(String(describing: rig.entry(0)))")
        #expect(value(rig, 0, "x/bad") == "\u{FFFD}\u{FFFD}\u{FFFD}[2Jgone")
        #expect(value(rig, 0, "x/evil") == "\u{FFFD}]0;title\u{FFFD}ok\u{FFFD} line")
        #expect(value(rig, 0, "x/big") == "")
        let frame = rig.frame(0).joined(separator: "\n")
        #expect(!frame.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(frame.debugDescription)")
        // The other panel on the same broker is untouched.
        #expect(rig.entry(1)?.notice == nil && rig.entry(1)?.link == .live)
    }

    @Test("10,000 retained topics on #: 256 kept, the rest counted, the panel says so; a field panel still works")
    func retainedFlood() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        try await broker.publish((0..<10_000).map { .init("flood/\($0)", #"{"n": \#($0)}"#, retained: true) })
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("#")])])
        try rig.add(["broker": .string(broker.url), "topics": .list([.string("flood/9999")]),
                     "fields": .list([.object(["label": .string("Last"), "pointer": .string("/n")])])])
        #expect(await rig.shows(within: 30) { (rig.entry(0)?.topicCount ?? 0) + (rig.entry(0)?.droppedMessages ?? 0) == 10_000 },
                "\(String(describing: rig.entry(0).map { ($0.topicCount, $0.droppedMessages) }))")
        #expect(rig.entry(0)?.topicCount == MQTTTopicTable.maximumTopics)
        #expect(rig.entry(0)?.droppedMessages == 10_000 - MQTTTopicTable.maximumTopics)
        let frame = rig.frame(0)
        #expect(frame.contains { $0.hasPrefix("⚠ over 256 topics: 9,744 messages on others not kept") }, "\(frame)")
        #expect(frame.contains { $0.hasPrefix("showing ") && $0.hasSuffix(" of 256 topics") }, "\(frame)")
        #expect(await rig.shows { value(rig, 1, "Last") == "9999" }, "\(String(describing: rig.entry(1)))")
    }

    @Test("mqtts://: TLS with the broker's authority in caFile reads the retained value; without it, the certificate is refused")
    func tls() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path, tls: true)
        defer { broker.stop() }
        let tlsURL = try #require(broker.tlsURL)
        let caFile = try #require(broker.caFile)
        try await broker.publish([.init("secure/value", "42", retained: true)])
        let rig = try Rig()
        defer { rig.close() }
        try rig.add(["broker": .string(tlsURL), "topics": .list([.string("secure/#")]), "caFile": .string(caFile)])
        try rig.add(["broker": .string(tlsURL), "topics": .list([.string("secure/#")])])
        #expect(await rig.shows { value(rig, 0, "secure/value") == "42" }, "\(String(describing: rig.entry(0)))")
        #expect(rig.entry(0)?.link == .live)
        // The system's authorities do not know this one: no connection, no data.
        #expect(await rig.shows { rig.entry(1)?.link == .down("TLS failed: a certificate not trusted for this host (caFile?), or no TLS there") },
                "\(String(describing: rig.entry(1)))")
        #expect(rig.entry(1)?.rows.isEmpty == true)
        // A caFile that cannot be read is named.
        try rig.add(["broker": .string(tlsURL), "topics": .list([.string("secure/#")]), "caFile": .string(home.path + "/none.pem")])
        #expect(await rig.shows { rig.entry(2)?.link == .down("caFile: cannot read \(home.path)/none.pem") },
                "\(String(describing: rig.entry(2)))")
    }

    @Test("credentials from the environment: accepted; a wrong password refused; the password is never shown")
    func credentials() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let secret = "s3cret-Hunter2"
        let broker = try MosquittoBroker(directory: home.path, user: "meter:" + secret)
        defer { broker.stop() }
        let good = try Rig(environment: ["MQTT_USER": "meter", "MQTT_PASSWORD": secret])
        defer { good.close() }
        try good.add(["broker": .string(broker.url), "topics": .list([.string("#")]),
                      "username": .string("$MQTT_USER"), "password": .string("$MQTT_PASSWORD")])
        #expect(await good.shows { good.entry()?.link == .live }, "\(String(describing: good.entry()))")

        let bad = try Rig(environment: ["MQTT_PASSWORD": secret + "x"])
        defer { bad.close() }
        try bad.add(["broker": .string(broker.url), "topics": .list([.string("#")]),
                     "username": .string("meter"), "password": .string("$MQTT_PASSWORD")])
        #expect(await bad.shows { bad.entry()?.link == .down("the broker refused: connection refused: not authorised") },
                "\(String(describing: bad.entry()?.link))")
        let shown = "\(String(describing: bad.entry()))" + bad.frame().joined()
        #expect(!shown.contains(secret))
        // A password written in the config is refused, without repeating it.
        #expect {
            try bad.add(["broker": .string(broker.url), "topics": .list([.string("#")]),
                         "username": .string("meter"), "password": .string(secret)])
        } throws: { error in
            "\(error)".contains("password: give \"$NAME\"") && !"\(error)".contains(secret)
        }
    }
}
