import BackgroundSessions
import FoundationEssentials
import LeaderboardServer
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// What the loopback server answers, settable while it runs, and the requests it saw.
private final class Feed: Sendable {
    struct Seen: Sendable {
        var authorization: String?
        var ifNoneMatch: String?
    }

    private let answer: Mutex<HTTPResponse>
    private let seen = Mutex<[Seen]>([])

    init(_ answer: HTTPResponse) { self.answer = Mutex(answer) }

    func set(_ response: HTTPResponse) { answer.withLock { $0 = response } }
    func setJSON(_ text: String) { set(.json(Array(text.utf8))) }

    var requests: [Seen] { seen.withLock { $0 } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        seen.withLock { $0.append(Seen(authorization: request.headers["Authorization"], ifNoneMatch: request.headers["If-None-Match"])) }
        return answer.withLock { $0 }
    }
}

private let secret = "Bearer s3cret-7f3a9c"

/// A real loopback `HTTPServer`, `CurlTransport` and `BackgroundSessionManager` on a temporary
/// state directory, and a `TimelineDriver` on a `ManualClock` hosting one `http-json` panel,
/// routed like the host does; its `Authorization` header comes from `$FEED_TOKEN`.
@MainActor
private final class Rig {
    let directory = TemporaryStateDirectory()
    let server = HTTPServer()
    let feed: Feed
    let clock = ManualClock(now: testEpoch)
    let transport: CurlTransport
    let manager: BackgroundSessionManager
    let center = WidgetCenter()
    let driver: TimelineDriver
    let url: String
    var panel = WidgetInstanceID(rawValue: 0)
    let state: String

    init(_ body: String, refreshSeconds: Int = 60) throws {
        let feed = Feed(.json(Array(body.utf8)))
        self.feed = feed
        server.route("/feed") { feed.handle($0) }
        let port = try server.start()
        url = "http://127.0.0.1:\(port)/feed"

        var transportConfiguration = CurlTransportConfiguration()
        transportConfiguration.noProxy = "*"
        transportConfiguration.connectTimeout = .seconds(5)
        transportConfiguration.requestTimeout = .seconds(10)
        transportConfiguration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50),
                                                   jitter: { 0.5 })
        transport = try CurlTransport(configuration: transportConfiguration)
        state = directory.path + "/state"
        manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, clock: clock)
        let clock = clock
        let context = WidgetContext(sessions: manager, stateDirectory: state, center: center, now: { clock.now },
                                    environment: ["FEED_TOKEN": secret])
        let widgets = [HTTPJSONWidget.configuration(context: context)]
        manager.eventRouter = BackgroundSessionManager.router(for: { widgets })
        driver = TimelineDriver(clock: clock, configuration: SchedulerConfiguration(minimumReloadInterval: 5), center: center,
                                providerExecutor: Self.providerExecutor)
        let fields: [WidgetOptions.Value] = [
            .object(["label": .string("Price"), "pointer": .string("/data/0/price"), "format": .string("number")]),
            .object(["label": .string("Status"), "pointer": .string("/status/a~1b")]),
            .object(["label": .string("Missing"), "pointer": .string("/nope")]),
        ]
        let provider = try widgets[0].makeProvider(
            WidgetOptions(["url": .string(url), "refreshSeconds": .integer(refreshSeconds), "fields": .list(fields),
                           "headers": .object(["Authorization": .string("$FEED_TOKEN")])]))
        panel = driver.add(kind: HTTPJSONWidget.kind, family: .medium, size: CellSize(columns: 50, rows: 7), provider: provider)
    }

    private static let providerExecutor = ThreadTaskExecutor()

    var entry: HTTPJSONEntry? { driver.status(of: panel)?.entry as? HTTPJSONEntry }
    var values: [String?] { entry?.rows.map(\.value) ?? [] }
    var frame: [String] {
        guard let entry else { return [] }
        var buffer = CellBuffer(width: 50, height: 7)
        HTTPJSONView.view(entry, context: WidgetViewContext(family: .medium, size: CellSize(columns: 50, rows: 7)))
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        return TextBackend.lines(buffer)
    }
    var runningTasks: Int {
        manager.session(identifier: "http-json.http-json").allTasks.filter { $0.state == .running }.count
    }

    /// Every byte the host wrote under its state directory (journal, bodies, state files).
    var everythingStored: String {
        var text = ""
        func walk(_ path: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let full = path + "/" + name
                var isDirectory = false
                if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), isDirectory {
                    walk(full)
                } else if let data = FileManager.default.contents(atPath: full) {
                    text += String(decoding: data, as: UTF8.self)
                }
            }
        }
        walk(state)
        return text
    }

    func close() async {
        await driver.settle()
        _ = await eventually(within: 5) { self.manager.pendingEvents.isEmpty && self.runningTasks == 0 }
        driver.remove(panel)
        expectNoPendingWork(clock)
        manager.close()
        transport.shutdown()
        server.stop()
    }
}

private let document = #"{"data": [{"price": 12345.678}], "status": {"a/b": "green"}}"#

@Suite("http-json against a real loopback server", .serialized, .onOwnThreads(.blockingCalls))
@MainActor
struct HTTPJSONIntegrationTests {
    @Test("fetches with the header from the environment, shows the values (— for a missing pointer); the secret is stored nowhere")
    func firstFetch() async throws {
        let rig = try Rig(document)
        #expect(await eventually { rig.values == ["12,345.68", "green", nil] }, "\(rig.values)")
        #expect(rig.feed.requests.first?.authorization == secret, "the header reached the server")
        #expect(rig.entry?.fetchError == nil)
        #expect(rig.frame.contains { $0.contains("Missing") && $0.hasSuffix("—") }, "\(rig.frame)")
        #expect(rig.frame.last == "updated <1m ago", "\(rig.frame)")
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(!rig.everythingStored.contains("s3cret"), "the header's value is in no file of the state directory")
        #expect(!rig.frame.joined().contains("s3cret"))
        await rig.close()
    }

    @Test("the next fetch is conditional: a 304 keeps the values and refreshes their age; a change shows")
    func conditional() async throws {
        let rig = try Rig(document)
        #expect(await eventually { rig.values.first == "12,345.68" })
        rig.clock.advance(by: 60)
        #expect(await eventually { rig.feed.requests.count == 2 && rig.entry?.fetchedAt == at(60) }, "\(rig.feed.requests.count)")
        #expect(rig.feed.requests[1].ifNoneMatch == HTTPResponse.entityTag(for: Array(document.utf8)), "If-None-Match sent")
        #expect(rig.feed.requests[1].authorization == secret, "the header goes with every fetch")
        #expect(rig.values.first == "12,345.68")
        rig.feed.setJSON(#"{"data": [{"price": 2}], "status": {}}"#)
        rig.clock.advance(by: 60)
        #expect(await eventually { rig.values == ["2", nil, nil] }, "\(rig.values)")
        await rig.close()
    }

    @Test("while the server fails the last good values stay with the error, the age and the retry; then they recover")
    func failing() async throws {
        let rig = try Rig(document)
        #expect(await eventually { rig.values.first == "12,345.68" })
        rig.feed.set(.text("down for maintenance", status: 503))
        rig.clock.advance(by: 60)
        #expect(await eventually { rig.entry?.fetchError?.contains("503") == true }, "\(String(describing: rig.entry?.fetchError))")
        #expect(rig.values == ["12,345.68", "green", nil], "the last good values stay")
        #expect(rig.frame[5].hasPrefix("⚠ server answered 503") == true, "\(rig.frame)")
        #expect(rig.frame.last == "data 1m old", "\(rig.frame)")
        // A body that is not JSON is a failure too; the values still stay.
        rig.feed.set(.text("<html>oops</html>", status: 200))
        rig.clock.advance(by: 60)
        #expect(await eventually { rig.entry?.fetchError?.hasPrefix("not JSON: line 1, column 1") == true },
                "\(String(describing: rig.entry?.fetchError))")
        #expect(rig.values.first == "12,345.68")
        #expect(rig.entry?.fetchError?.contains("retry in") == true, "a backoff after failures in a row")
        // Recovery: the next fetch after the backoff brings new values and clears the error.
        rig.feed.setJSON(#"{"data": [{"price": 7}]}"#)
        rig.clock.advance(by: 120)
        #expect(await eventually { rig.values.first == "7" && rig.entry?.fetchError == nil }, "\(rig.values)")
        await rig.close()
    }

    @Test("with the server gone the panel keeps its values and says why")
    func serverStopped() async throws {
        let rig = try Rig(document)
        #expect(await eventually { rig.values.first == "12,345.68" })
        rig.server.stop()
        rig.clock.advance(by: 60)
        #expect(await eventually { rig.entry?.fetchError != nil }, "\(String(describing: rig.entry))")
        #expect(rig.values.first == "12,345.68")
        let error = rig.entry?.fetchError ?? ""
        #expect(!error.contains("s3cret"))
        await rig.close()
    }
}
