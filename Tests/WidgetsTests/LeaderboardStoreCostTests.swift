import BackgroundSessions
import FoundationEssentials
import Glibc
import JSONTree
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

    @Test("the state kept in memory after a write is the one its file reads back: fields not stored at their defaults")
    func keptAsStored() throws {
        var state = LeaderboardState(board: LeaderboardBoard(updated: Date(timeIntervalSince1970: 1000), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)]),
                                     fetchedAt: Date(timeIntervalSince1970: 1000), lastError: "boom", isFetching: true)
        state.saveError = "cannot save the board: disk full"
        state.push = .live
        state.consecutiveFailures = 2
        let readBack = try JSONDecoder().decode(LeaderboardState.self, from: try JSONEncoder().encode(state))
        #expect(state.asStored == readBack)
        #expect(state.asStored != state)
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
        let board = LeaderboardBoard(updated: Date(timeIntervalSince1970: 1000), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)])
        // The file a host wrote before the power loss (this process keeps no copy of it).
        var saved = LeaderboardState()
        saved.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: Date(timeIntervalSince1970: 1000))
        let whole = Array(try JSONEncoder().encode(saved))
        try container.write(whole, to: LeaderboardStore.fileName(session: "s"))
        #expect(LeaderboardStore(container: container).load(session: "s").board == board, "read whole")
        for leftover in [[], Array(whole.prefix(whole.count / 2))] {
            try container.write(leftover, to: LeaderboardStore.fileName(session: "s"))
            let state = LeaderboardStore(container: container).load(session: "s")
            #expect(state.board == nil && state.lastAttempt == nil)
            #expect(state.fetch.nextFetch(url: URL(string: "http://127.0.0.1:9/leaderboard")!, refresh: 3600,
                                          now: Date(timeIntervalSince1970: 2000)) == nil, "fetched again at once")
        }
    }
}

/// What a fetch costs an `http-json` panel's files.
@Suite("http-json store: writes per fetch")
struct HTTPJSONStoreCostTests {
    @Test("body and state are cache writes (no fsync): each filled in its spare and swapped in whole")
    func cacheWrites() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: HTTPJSONStore.kind, stateDirectory: dir.path)
        let store = HTTPJSONStore(container: container)
        let url = URL(string: "http://127.0.0.1:9/status")!
        let stem = HTTPJSONStore.stem(session: "s", url: url)
        for (number, text) in [(1, #"{"n": 1}"#), (2, #"{"n": 22}"#)] {
            let bytes = Array(text.utf8)
            store.update(session: "s", url: url, body: (bytes, try JSONParser().parse(bytes))) {
                $0.succeeded(at: Date(timeIntervalSince1970: Double(number)))
            }
        }
        #expect(try container.read(stem + ".body.json") == Array(#"{"n": 22}"#.utf8))
        // A cache write leaves the previous bytes in `.NAME.spare`; a durable one leaves none.
        #expect(try FileContents.bytes(at: container.path + "/.\(stem).body.json.spare") == Array(#"{"n": 1}"#.utf8))
        #expect(access(container.path + "/.\(stem).state.json.spare", F_OK) == 0)
        #expect(store.load(session: "s", url: url).saveError == nil)
    }
    @Test("a state whose body a power loss left empty or short loads without its fetch times: the next fetch is due at once")
    func powerLossLeftovers() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: HTTPJSONStore.kind, stateDirectory: dir.path)
        let url = URL(string: "http://127.0.0.1:9/status")!
        for (session, body) in [("empty", ""), ("short", #"{"n": 1"#)] {
            let stem = HTTPJSONStore.stem(session: session, url: url)
            var state = FetchRecord(fetchedAt: Date(timeIntervalSince1970: 1000), lastAttempt: Date(timeIntervalSince1970: 1000))
            state.attemptURL = url.absoluteString
            try container.write(Array(try JSONEncoder().encode(state)), to: stem + ".state.json")
            try container.write(Array(body.utf8), to: stem + ".body.json")
            let loaded = HTTPJSONStore(container: container).load(session: session, url: url)
            #expect(loaded.body == nil && loaded.state.fetchedAt == nil)
            #expect(loaded.state.nextFetch(url: url, refresh: 3600, now: Date(timeIntervalSince1970: 1001)) == nil, "due at once")
        }
    }
}
