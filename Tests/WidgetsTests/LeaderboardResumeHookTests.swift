import BackgroundSessions
import FoundationEssentials
import Testing
import WidgetCore
import Widgets

@Suite("Leaderboard: the URL a crashed host resumes its download with")
struct LeaderboardResumeHookTests {
    @Test("the leaderboard answers with the URL its session is configured with now, and nil for sessions it does not use")
    func resumeURL() throws {
        let registry = LeaderboardSessionRegistry()
        let widget = LeaderboardWidget.configuration(context: .none, registry: registry)
        let urlFor = BackgroundSessionManager.resumeURL(for: [widget])
        #expect(urlFor("leaderboard.main", "board") == nil, "no panel uses it yet")
        var lease: LeaderboardSessionRegistry.Lease? = registry.register(session: "leaderboard.main",
                                                                          url: try #require(URL(string: "http://127.0.0.1:9/board")))
        #expect(urlFor("leaderboard.main", "board")?.absoluteString == "http://127.0.0.1:9/board")
        #expect(urlFor("other", "board") == nil)
        // The panel rebuilt with another URL (a config reload): the newest registration wins;
        // once the old provider lets go, the new one's stays.
        var rebuilt: LeaderboardSessionRegistry.Lease? = registry.register(session: "leaderboard.main",
                                                                            url: try #require(URL(string: "http://127.0.0.1:9/new")))
        #expect(urlFor("leaderboard.main", "board")?.absoluteString == "http://127.0.0.1:9/new")
        lease = nil
        #expect(registry.contains("leaderboard.main") && urlFor("leaderboard.main", "board")?.absoluteString == "http://127.0.0.1:9/new")
        // The panel removed (its provider gone): the session is no panel's any more.
        rebuilt = nil
        #expect(!registry.contains("leaderboard.main") && urlFor("leaderboard.main", "board") == nil)
        withExtendedLifetime((lease, rebuilt)) {}
    }

    @Test("a panel's provider holds its session for its life: made, the session is the leaderboard's; dropped, it is not")
    func providerHoldsItsSession() throws {
        let registry = LeaderboardSessionRegistry()
        let widget = LeaderboardWidget.configuration(context: .none, registry: registry)
        var provider: AnyTimelineProvider? = try widget.makeProvider(["url": .string("http://127.0.0.1:9/board"), "session": .string("mine")])
        #expect(registry.contains("mine"))
        provider = nil
        #expect(!registry.contains("mine"))
        withExtendedLifetime(provider) {}
    }
}
