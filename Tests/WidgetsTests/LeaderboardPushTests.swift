import BackgroundSessions
import FoundationEssentials
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// A push center whose streams are opened by the test: `send` plays an update to them all.
private final class FakeStreams: Sendable {
    private let opened = Mutex<[(String, @Sendable (EventStreamUpdate) -> Void)]>([])
    var urls: [String] { opened.withLock { $0.map(\.0) } }
    private let closedList = Mutex<[String]>([])
    var closed: [String] { closedList.withLock { $0 } }
    func open(_ url: String, _ updates: @escaping @Sendable (EventStreamUpdate) -> Void) -> @Sendable () -> Void {
        opened.withLock { $0.append((url, updates)) }
        return { [self] in closedList.withLock { $0.append(url) } }
    }
    func send(_ update: EventStreamUpdate) {
        for (_, updates) in opened.withLock({ $0 }) { updates(update) }
    }
}

private final class PushCallCounter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

private let events = "http://127.0.0.1:9/events"
private let largeContext = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21))

@Suite("Leaderboard push")
struct LeaderboardPushTests {
    @Test("one stream per distinct URL; each event reaches every subscriber; status calls only on a change")
    func pushCenter() {
        let streams = FakeStreams()
        let center = PushCenter { url, updates in streams.open(url, updates) }
        let (eventsA, eventsB, status) = (PushCallCounter(), PushCallCounter(), PushCallCounter())
        var a: PushCenter.Subscription? = center.subscribe(url: events, key: "a", onEvent: { eventsA.add() }, onStatus: { status.add() })
        var b: PushCenter.Subscription? = center.subscribe(url: events, key: "b", onEvent: { eventsB.add() }, onStatus: {})
        // The same panel rebuilt (a config reload): subscribed again before the old one lets go.
        var rebuilt: PushCenter.Subscription? = center.subscribe(url: events, key: "a", onEvent: { eventsA.add() }, onStatus: { status.add() })
        #expect(streams.urls == [events])
        #expect(!center.isLive(events))
        streams.send(.connected)
        #expect(center.isLive(events))
        streams.send(.event(ServerSentEvent(type: "board", data: "{}", lastEventID: "2"), collapsed: 1))
        #expect((eventsA.count, eventsB.count) == (1, 1))
        streams.send(.disconnected(reason: "the server closed the stream", retryIn: .seconds(2)))
        streams.send(.disconnected(reason: "cannot connect", retryIn: .seconds(4)))
        #expect(!center.isLive(events))
        #expect(status.count == 2, "up, then down once")

        // The old "a" lets go: the rebuilt one still holds the key, one handler per key.
        a = nil
        streams.send(.event(ServerSentEvent(type: "board", data: "{}", lastEventID: "3"), collapsed: 1))
        #expect((eventsA.count, eventsB.count) == (2, 2))
        // A config change removes the "a" panel (its provider goes): "b" stays, so the stream
        // stays; then "b" goes too, and the stream is closed.
        rebuilt = nil
        #expect(streams.closed.isEmpty)
        streams.send(.event(ServerSentEvent(type: "board", data: "{}", lastEventID: "4"), collapsed: 1))
        #expect((eventsA.count, eventsB.count) == (2, 3))
        b = nil
        #expect(streams.closed == [events])
        #expect(center.urls.isEmpty)
        withExtendedLifetime((a, b, rebuilt)) {}
    }

    @Test("while the stream is live polling slows to the safety interval and the footer says live; down: refreshSeconds and polling")
    func liveAndPolling() async throws {
        let dir = TemporaryStateDirectory()
        let streams = FakeStreams()
        var context = WidgetContext(stateDirectory: dir.path)
        context.push = PushCenter { url, updates in streams.open(url, updates) }
        let store = LeaderboardStore(context: context)
        var state = LeaderboardState()
        state.received(LeaderboardDecoder.Result(board: rosterBoard, skipped: 0), at: at(0))
        #expect(store.save(state, session: "leaderboard"))
        let subscription = LeaderboardWidget.subscribe(push: URL(string: events)!, url: URL(string: "http://127.0.0.1:9/leaderboard")!,
                                                       session: "leaderboard", context: context)
        defer { withExtendedLifetime(subscription) {} }
        let provider = LeaderboardProvider(push: URL(string: events)!, url: URL(string: "http://127.0.0.1:9/leaderboard")!,
                                           refreshSeconds: 10, session: "leaderboard", maxRows: 10, host: context,
                                           now: { at(0) })

        let polling = try await provider.timeline(in: largeContext)
        #expect(polling.policy == .after(at(10)))
        #expect(polling.entries.allSatisfy { $0.push == .polling })

        streams.send(.connected)
        let live = try await provider.timeline(in: largeContext)
        #expect(live.policy == .after(at(LeaderboardProvider.pushSafetyInterval)))
        #expect(live.entries.allSatisfy { $0.push == .live })

        let frame = render(live.entries[0], family: .large, width: 52, height: 21)
        // Sessions are off in this test, so the footer is the warning line; it still ends `· live`.
        #expect(TextBackend.lines(frame).last?.hasSuffix("board <1m old · live") == true, "\(TextBackend.lines(frame))")
        var fine = live.entries[0]
        fine.fetchError = nil
        #expect(TextBackend.lines(render(fine, family: .large, width: 52, height: 21)).last == "updated <1m ago · live")
    }

    @Test("without a push center (snapshot, preview) the footer says neither")
    func noPushCenter() async throws {
        let dir = TemporaryStateDirectory()
        let context = WidgetContext(stateDirectory: dir.path)
        let provider = LeaderboardProvider(push: URL(string: events)!, url: URL(string: "http://127.0.0.1:9/leaderboard")!,
                                           refreshSeconds: 10, session: "leaderboard", maxRows: 10, host: context,
                                           now: { at(0) })
        #expect(try await provider.timeline(in: largeContext).entries.allSatisfy { $0.push == nil })
    }
}
