import BackgroundSessions
import Glibc
import Testing
import WidgetTestSupport

@Suite("Widget containers")
struct WidgetContainerTests {
    @Test("writes are atomic replacements readable by any kind; no temporary file stays")
    func writeReadList() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let board = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        #expect(board.path == state + "/containers/leaderboard")
        #expect(try board.read("board.json") == nil)
        #expect(board.list().isEmpty)
        try board.write(Array("one".utf8), to: "board.json")
        try board.write(Array("two".utf8), to: "board.json")
        try board.write([], to: "empty")
        let reader = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        #expect(try reader.read("board.json") == Array("two".utf8))
        #expect(try reader.read("empty") == [])
        #expect(board.list() == ["board.json", "empty"])
        #expect(filesUnder(board.path) == ["board.json", "empty"])
        try board.remove("empty")
        try board.remove("empty")
        #expect(board.list() == ["board.json"])
    }

    @Test("a replace that cannot rename (a directory in the way) says so and leaves no temporary file")
    func renameFails() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        try container.write([1], to: "kept")
        #expect(mkdir(container.path + "/blocked", 0o700) == 0)
        #expect(mkdir(container.path + "/blocked/inside", 0o700) == 0)
        #expect(throws: WidgetContainerError.fileSystem(FileSystemError(operation: "rename into", path: container.path + "/blocked",
                                                                        errno: EISDIR))) {
            try container.write([2], to: "blocked")
        }
        #expect(filesUnder(container.path).filter { $0.hasPrefix(".") } == [], "no temporary file stays")
        #expect(try container.read("kept") == [1])
    }

    @Test("kinds and names that could leave the container are refused", arguments: ["", "..", ".", "../x", "a/b", ".hidden", "sp ace"])
    func invalidNames(name: String) throws {
        #expect(throws: WidgetContainerError.invalidName(name)) { try WidgetContainer(kind: name, stateDirectory: "/tmp") }
        let ok = try WidgetContainer(kind: "hero", stateDirectory: "/tmp/never-written")
        #expect(throws: WidgetContainerError.invalidName(name)) { try ok.write([1], to: name) }
        #expect(throws: WidgetContainerError.invalidName(name)) { try ok.read(name) }
    }

    @Test("a file larger than the read limit is refused, not loaded whole")
    func readLimit() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        try container.write([UInt8](repeating: 1, count: 40_000), to: "big")
        #expect(try container.read("big", limit: 40_000)?.count == 40_000)
        #expect(throws: WidgetContainerError.fileSystem(FileSystemError(operation: "read", path: container.path + "/big", errno: EFBIG))) {
            try container.read("big", limit: 39_999)
        }
    }
}
