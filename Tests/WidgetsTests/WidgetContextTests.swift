import BackgroundSessions
import FoundationEssentials
import HostProcesses
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// The streams a push center opened and closed (URLs only).
private final class OpenedStreams: Sendable {
    private let state = Mutex<(opened: [String], closed: [String])>(([], []))
    var opened: [String] { state.withLock { $0.opened } }
    var closed: [String] { state.withLock { $0.closed } }

    func center() -> PushCenter {
        PushCenter { [self] url, _ in
            state.withLock { $0.opened.append(url) }
            return { [self] in state.withLock { $0.closed.append(url) } }
        }
    }
}

/// The context a definition's `build` was given.
private final class Received: Sendable {
    let context = Mutex<WidgetContext?>(nil)
}

private let board = "http://127.0.0.1:9/board"
private let events = "http://127.0.0.1:9/events"

@Suite("One context: what a widget receives, and the uses its definition declares")
struct WidgetContextTests {
    /// A context holding every handle the host can lend.
    private func everything(push: PushCenter = OpenedStreams().center()) -> WidgetContext {
        WidgetContext(stateDirectory: "/nonexistent", push: push, environment: ["TZ": "UTC"], processes: ProcessSpawner(),
                      transport: FakeTransport(), watchesFiles: true)
    }

    private func probe(uses: Set<WidgetUse>, received: Received) -> WidgetDefinition {
        let manifest = WidgetManifest(kind: "probe", displayName: "Probe", description: "", supportedFamilies: [.small], defaultFamily: .small)
        return WidgetDefinition(manifest: manifest, uses: uses) { context in
            received.context.withLock { $0 = context }
            return TerminalWidget(manifest: manifest, makeProvider: { _ in throw OptionError("probe") },
                                  view: { _, _ in PanelView(node: .spacer) })
        }
    }

    @Test("a definition's context holds only the handles of the uses it declares; the rest is everyone's")
    func grantsDeclaredUsesOnly() throws {
        let none = Received()
        _ = probe(uses: [], received: none).widget(everything())
        let bare = try #require(none.context.withLock { $0 })
        #expect(bare.push == nil && bare.transport == nil && bare.processes == nil && bare.sessions == nil)
        #expect(!bare.watchesFiles, "no file watching without .fileWatching")
        #expect(bare.environment == ["TZ": "UTC"] && bare.stateDirectory == "/nonexistent", "clock, center, state, environment: always")

        let all = Received()
        let push = OpenedStreams().center()
        _ = probe(uses: Set(WidgetUse.allCases), received: all).widget(everything(push: push))
        let granted = try #require(all.context.withLock { $0 })
        #expect(granted.push === push && granted.transport != nil && granted.processes != nil && granted.watchesFiles)
    }

    @Test("each built-in definition declares the side effects its panels have on the host")
    func builtinDeclarations() {
        #expect(LeaderboardWidget.definition.uses == [.backgroundSessions, .push])
        #expect(HTTPJSONWidget.definition.uses == [.backgroundSessions])
        #expect(HeroWidget.definition.uses == [.network], "heal: a POST through the host's transport")
        #expect(TextWidget.definition.uses == [.fileWatching])
        #expect(CommandWidget.definition.uses == [.processes])
        for local in [ClockWidget.definition, CountdownWidget.definition, SystemWidget.definition] {
            #expect(local.uses.isEmpty, "\(local.manifest.kind) computes locally")
        }
    }

    @Test("a leaderboard subscribes to its push source through the context only because its definition says .push")
    func pushIsDeclared() throws {
        let streams = OpenedStreams()
        let options: WidgetOptions = ["url": .string(board), "push": .string(events)]
        var provider: AnyTimelineProvider? = try LeaderboardWidget.definition.widget(everything(push: streams.center()))
            .makeProvider(options)
        #expect(streams.opened == [events], "the provider holds the subscription")
        provider = nil
        #expect(streams.closed == [events], "and lets it go with itself")

        var undeclared = LeaderboardWidget.definition
        undeclared.uses.remove(.push)
        let quiet = OpenedStreams()
        let silent = try undeclared.widget(everything(push: quiet.center())).makeProvider(options)
        #expect(quiet.opened.isEmpty, "without the declaration the context has no push center to subscribe to")
        withExtendedLifetime((provider, silent)) {}
    }

    @Test("the leaderboard's session leases live in the context its definition was bound with, released with the provider")
    func sessionLeasesThroughTheContext() throws {
        let context = WidgetContext.none
        let leaderboard = LeaderboardWidget.definition.widget(context)
        let options: WidgetOptions = ["url": .string(board), "session": .string("main")]
        var first: AnyTimelineProvider? = try leaderboard.makeProvider(options)
        #expect(context.leaderboardSessions.url(for: "main")?.absoluteString == board)
        #expect(WidgetContext.none.leaderboardSessions.url(for: "main") == nil, "another context shares nothing")
        // A rebuilt panel registers before the old one lets go: the newest URL wins and stays.
        var rebuilt: AnyTimelineProvider? = try leaderboard.makeProvider(["url": .string(board + "2"), "session": .string("main")])
        first = nil
        #expect(context.leaderboardSessions.url(for: "main")?.absoluteString == board + "2")
        rebuilt = nil
        #expect(!context.leaderboardSessions.contains("main"), "the panel removed: no panel's session any more")
        withExtendedLifetime((first, rebuilt)) {}
    }

    @Test("hero's heal finds the board of a leaderboard bound with the same context, and only that one")
    func heroReadsTheSharedRegistry() async throws {
        let context = WidgetContext.none
        let panel = try LeaderboardWidget.definition.widget(context).makeProvider(["url": .string(board), "session": .string("main")])
        let heal = WidgetActionContext(key: "+", options: ["name": .string("Spouty"), "session": .string("main")])
        func failure(_ hero: TerminalWidget) async -> String {
            guard case .task(let perform)? = hero.actionPerformers["+"] else { return "no + action" }
            do { try await perform(heal); return "healed" } catch { return "\(error)" }
        }
        // Same context: the board's URL is found, and the POST is refused only for want of a transport.
        #expect(await failure(HeroWidget.definition.widget(context)) == "no network in this mode")
        #expect(await failure(HeroWidget.definition.widget(.none)) == "no leaderboard panel fetches session 'main'")
        withExtendedLifetime(panel) {}
    }
}
