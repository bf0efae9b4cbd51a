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

    @Test("a spare that is not a plain file of ours (a FIFO, read-only, a hard link to another file) is replaced, never written through or waited on")
    func foreignSpareReplaced() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        try container.write(Array("first".utf8), to: "board.json", durable: false)  // makes the directory
        let spare = container.path + "/.board.json.spare"
        let other = container.path + "/other.json"
        try container.write(Array("other".utf8), to: "other.json")
        let plants: [(String, () -> Void)] = [
            ("a FIFO", { _ = mkfifo(spare, 0o600) }),
            ("read-only", { let fd = open(spare, O_WRONLY | O_CREAT, 0o400); close(fd) }),
            ("a hard link", { _ = link(other, spare) }),
        ]
        for (number, (what, plant)) in plants.enumerated() {
            unlink(spare)
            plant()
            let text = "write \(number)"
            try container.write(Array(text.utf8), to: "board.json", durable: false)
            #expect(try container.read("board.json") == Array(text.utf8), "\(what)")
            #expect(try container.read("other.json") == Array("other".utf8), "\(what): the other file is untouched")
        }
    }

    @Test("a cache write (not durable) fills a spare file and swaps it in: whole old or new bytes for a reader, no new file after the first two")
    func cacheWriteSwapsSpare() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        func inode(_ name: String) -> ino_t {
            var info = stat()
            return stat(container.path + "/" + name, &info) == 0 ? info.st_ino : 0
        }
        try container.write(Array("first, the longest".utf8), to: "board.json", durable: false)  // nothing to swap with
        #expect(try container.read("board.json") == Array("first, the longest".utf8))
        let first = inode("board.json")
        let reader = open(container.path + "/board.json", O_RDONLY)
        #expect(reader >= 0)
        defer { close(reader) }
        try container.write(Array("second".utf8), to: "board.json", durable: false)
        #expect(try container.read("board.json") == Array("second".utf8))
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(reader, $0.baseAddress, 32, 0) }
        #expect(Array(buffer[0..<max(n, 0)]) == Array("first, the longest".utf8), "a reader of the old file still sees it whole")
        #expect(filesUnder(container.path) == [".board.json.spare", "board.json"])
        #expect(container.list() == ["board.json"], "the spare is hidden")
        let second = inode("board.json")
        #expect(second != first && inode(".board.json.spare") == first, "swapped, not rewritten")
        try container.write(Array("3rd".utf8), to: "board.json", durable: false)
        #expect(try container.read("board.json") == Array("3rd".utf8), "a shorter write leaves no old tail")
        #expect(inode("board.json") == first && inode(".board.json.spare") == second, "the two files take turns: no new inode")
        try container.remove("board.json")
        #expect(filesUnder(container.path) == [], "removing a file removes its spare")
    }

    @Test("the host's start removes temporary files that killed writes left in containers, and nothing else")
    func unfinishedWritesRemoved() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: state)
        let other = try WidgetContainer(kind: "hero", stateDirectory: state)
        try container.write([1], to: "board.json")
        try other.write([2], to: "card.json")
        for name in [".board.json.Ab3xZ9", ".card.json.q_q-q."] {
            let fd = open((name.hasPrefix(".board") ? container.path : other.path) + "/" + name, O_CREAT | O_WRONLY, 0o600)
            close(fd)
        }
        // Not ours to remove: other hidden names, a directory and a link shaped like one.
        for name in [".hidden", ".board.json.short", ".notes", ".board.json.spare"] {
            close(open(container.path + "/" + name, O_CREAT | O_WRONLY, 0o600))
        }
        #expect(mkdir(container.path + "/.dir.json.AAAAAA", 0o700) == 0)
        #expect(symlink(container.path + "/board.json", container.path + "/.link.json.BBBBBB") == 0)
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        defer { manager.close() }
        #expect(filesUnder(container.path) == [".board.json.short", ".board.json.spare", ".hidden", ".link.json.BBBBBB", ".notes", "board.json"])
        #expect(FilePaths.list(container.path).contains(".dir.json.AAAAAA"))
        #expect(filesUnder(other.path) == ["card.json"])
        #expect(try container.read("board.json") == [1])
        #expect(WidgetContainer.removeUnfinishedWrites(stateDirectory: state) == 0)
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
        #expect(throws: WidgetContainerError.fileSystem(FileSystemError(operation: "rename into", path: container.path + "/blocked",
                                                                        errno: EISDIR)), "a cache write does not swap a directory in") {
            try container.write([2], to: "blocked", durable: false)
        }
        #expect(FilePaths.list(container.path + "/blocked") == ["inside"])
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
