import BackgroundSessions
import FoundationEssentials
import Testing
import Widgets

@Suite("Leaderboard: the URL a crashed host resumes its download with")
struct LeaderboardResumeHookTests {
    @Test("the leaderboard answers with the URL its session is configured with now, and nil for sessions it does not use")
    func resumeURL() throws {
        let registry = LeaderboardSessionRegistry()
        let widget = LeaderboardWidget.configuration(services: .none, registry: registry)
        let urlFor = BackgroundSessionManager.resumeURL(for: [widget])
        #expect(urlFor("leaderboard.main", "board") == nil, "no panel uses it yet")
        registry.register(session: "leaderboard.main", url: try #require(URL(string: "http://127.0.0.1:9/board")))
        #expect(urlFor("leaderboard.main", "board")?.absoluteString == "http://127.0.0.1:9/board")
        #expect(urlFor("other", "board") == nil)
    }
}
