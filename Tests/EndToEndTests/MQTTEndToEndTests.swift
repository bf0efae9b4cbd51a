#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// The `mqtt` widget with the real binary: `widgethost` in tmux reading the real mosquitto,
/// started by the test on a loopback port (the example's `1883` pointed at it).
@Suite("mqtt, end to end", .serialized, .onOwnThreads)
struct MQTTEndToEndTests {
    private static var root: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/EndToEndTests/MQTTEndToEndTests.swift
        return parts.joined(separator: "/")
    }

    @Test("Examples/mqtt.json: check-config passes; the sample's retained values show at once, a live message replaces one; a flood of 10,000 retained topics and 1 MB is named on its panel while the others go on")
    func example() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let sample = try #require(FileManager.default.contents(atPath: Self.root + "/Examples/mqtt-sample.txt"))
        try await broker.publish(String(decoding: sample, as: UTF8.self).split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", maxSplits: 2).map(String.init)
            return MosquittoBroker.Message(parts[0], parts[2], retained: parts[1].contains("r"))
        })
        let example = try #require(FileManager.default.contents(atPath: Self.root + "/Examples/mqtt.json")
            .map { String(decoding: $0, as: UTF8.self) })
        #expect(example.contains("mqtt://127.0.0.1:1883"))
        let config = try home.write("config.json", example.replacingOccurrences(of: "mqtt://127.0.0.1:1883", with: broker.url))
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path)
        let check = try Subprocess.run([widgethost, "check-config", config], environment: environment, timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(check.status == 0 && check.standardOutput.hasSuffix(": ok\n"), "\(check.standardOutput)\(check.standardError)")

        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost, "--config", config, "--state-dir", home.path + "/state"], size: (100, 30),
                       environment: environment)
        let shown = tmux.waitFor(timeout: .seconds(20), description: "the sample's values") { screen in
            anyRow(screen, containsAll: "Kitchen", "21.5") && anyRow(screen, containsAll: "Now (W)", "412")
                && anyRow(screen, containsAll: "home/garage/door", "open")
        }
        #expect(text(shown).ranges(of: "│live").count == 3, "\(text(shown))")
        #expect(!anyRow(shown, containsAll: "⚠"), "\(text(shown))")
        try await broker.publish([.init("home/kitchen/climate", #"{"temperature": 23.25, "humidity": 40}"#)])
        let updated = tmux.waitFor(timeout: .seconds(10), description: "the new kitchen value") { screen in
            anyRow(screen, containsAll: "Kitchen", "23.25")
        }
        #expect(anyRow(updated, containsAll: "home/kitchen/climate", "23.25"), "\(text(updated))")

        // A flood on '#': 10,000 retained topics and a 1 MB payload. The topic panel keeps 256
        // and says so; the other panels go on showing their values and take new ones.
        try await broker.publish((0..<10_000).map { .init("flood/\($0)", #"{"n": \#($0)}"#, retained: true) }
                           + [.init("flood/big", [UInt8](repeating: 0x61, count: 1_000_000), retained: true)])
        let flooded = tmux.waitFor(timeout: .seconds(30), description: "the flood named") { screen in
            anyRow(screen, containsAll: "⚠ over 256 topics:") && anyRow(screen, containsAll: "⚠ flood/big: payload of 977 KiB")
        }
        #expect(anyRow(flooded, containsAll: "Kitchen", "23.25") && anyRow(flooded, containsAll: "Now (W)", "412"), "\(text(flooded))")
        try await broker.publish([.init("home/meter/power", #"{"watts": 977, "today_kwh": 6.4}"#)])
        let after = tmux.waitFor(timeout: .seconds(10), description: "the meter's new value") { screen in
            anyRow(screen, containsAll: "Now (W)", "977")
        }
        #expect(text(after).ranges(of: "│live").count == 3, "\(text(after))")
        try tmux.sendText("q")
        tmux.waitForExit()
    }

    @Test("a password from the environment: the broker refuses a wrong one, the panel says so, and neither the screen nor the --debug log holds it")
    func credentialsNotLogged() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let secret = "pw-7f3a9c-Secret"
        let broker = try MosquittoBroker(directory: home.path, user: "meter:right-one")
        defer { broker.stop() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "mqtt", "family": "medium", "title": "Meter",
                "options": { "broker": "\(broker.url)", "topics": ["#"], "username": "meter", "password": "$MQTT_PASSWORD" } } ] }
            """)
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["MQTT_PASSWORD": secret])
        let state = home.path + "/state"
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost, "--config", config, "--state-dir", state, "--debug"], size: (100, 30),
                       environment: environment)
        let refused = tmux.waitFor(timeout: .seconds(20), description: "the refusal") { screen in
            anyRow(screen, containsAll: "⚠ the broker refused")
        }
        #expect(!text(refused).contains(secret))
        try tmux.sendText("q")
        tmux.waitForExit()
        let log = String(decoding: FileManager.default.contents(atPath: state + "/widgethost.log") ?? Data(), as: UTF8.self)
        #expect(!log.isEmpty)
        #expect(!log.contains(secret), "\(log)")
    }
}
