import BackgroundSessions
import FoundationEssentials
import Glibc
import Testing
import WidgetTestSupport
@testable import Widgets

/// What a fetch costs the leaderboard's state file (README "Performance", figure 8).
@Suite("Leaderboard store: writes per fetch")
struct LeaderboardStoreCostTests {
    private func inode(_ path: String) -> ino_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_ino : nil
    }

    @Test("a 304 that moves only the check times is held in memory, not written; the next change writes it with them")
    func notModifiedIsNotWritten() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: dir.path)
        let store = LeaderboardStore(container: container)
        let file = container.path + "/" + LeaderboardStore.fileName(session: "s")
        let board = LeaderboardBoard(updated: Date(timeIntervalSince1970: 1000), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)])
        #expect(store.update(session: "s") { $0.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: Date(timeIntervalSince1970: 1000)) })
        let written = try #require(inode(file))  // each write is a new file renamed into place

        #expect(store.update(session: "s") { $0.confirmed(at: Date(timeIntervalSince1970: 2000)) })
        #expect(inode(file) == written, "not written")
        #expect(store.load(session: "s").fetchedAt == Date(timeIntervalSince1970: 2000), "the check time is seen")
        #expect(store.load(session: "s").saveError == nil)
        #expect(!store.retryUnsaved(session: "s"), "nothing is held back: fetches go on")
        #expect(!store.holdUntilSaved(session: "s") {}, "the completion is not held")
        #expect(LeaderboardStore(container: container).load(session: "s").lastAttempt == Date(timeIntervalSince1970: 2000),
                "every store of the process sees it")

        // A change of anything else is written, with the times held so far.
        #expect(store.update(session: "s") { $0.failed("boom", at: Date(timeIntervalSince1970: 3000)) })
        #expect(inode(file) != written)
        let onDisk = try JSONDecoder().decode(LeaderboardState.self, from: Data(try #require(try container.read(LeaderboardStore.fileName(session: "s")))))
        #expect(onDisk.fetchedAt == Date(timeIntervalSince1970: 2000) && onDisk.lastError == "boom")
    }

    @Test("a 304 that clears an error is written")
    func notModifiedClearingAnErrorIsWritten() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: dir.path)
        let store = LeaderboardStore(container: container)
        let file = container.path + "/" + LeaderboardStore.fileName(session: "s")
        let board = LeaderboardBoard(updated: Date(timeIntervalSince1970: 1000), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)])
        store.update(session: "s") { $0.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: Date(timeIntervalSince1970: 1000)) }
        store.update(session: "s") { $0.failed("boom", at: Date(timeIntervalSince1970: 1500)) }
        let written = try #require(inode(file))
        store.update(session: "s") { $0.confirmed(at: Date(timeIntervalSince1970: 2000)) }
        #expect(inode(file) != written)
        #expect(store.load(session: "s").lastError == nil)
    }

    @Test("a state file a power loss left empty or cut short (it is not fsynced) loads as no board, and the next fetch is due at once")
    func powerLossLeftovers() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: dir.path)
        let store = LeaderboardStore(container: container)
        let board = LeaderboardBoard(updated: Date(timeIntervalSince1970: 1000), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)])
        #expect(store.update(session: "s") { $0.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: Date(timeIntervalSince1970: 1000)) })
        let whole = try #require(try container.read(LeaderboardStore.fileName(session: "s")))
        for leftover in [[], Array(whole.prefix(whole.count / 2))] {
            try container.write(leftover, to: LeaderboardStore.fileName(session: "s"))
            let state = LeaderboardStore(container: container).load(session: "s")
            #expect(state.board == nil && state.lastAttempt == nil)
            #expect(state.fetch.nextFetch(url: URL(string: "http://127.0.0.1:9/leaderboard")!, refresh: 3600,
                                          now: Date(timeIntervalSince1970: 2000)) == nil, "fetched again at once")
        }
    }
}
