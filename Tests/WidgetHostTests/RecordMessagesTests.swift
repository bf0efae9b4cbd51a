#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport
@testable import WidgetHost

@Suite("--record-messages", .serialized)
@MainActor
struct RecordMessagesTests {
    @Test("the dashboard takes --record-messages FILE, and its help says so")
    func option() throws {
        #expect(try CommandLineParser.parse(["--record-messages", "/tmp/run.log"]) == .dashboard(DashboardOptions(recordMessages: "/tmp/run.log")))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--record-messages"]) }
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--record-messages FILE"))
    }

    @Test("each message applied is one line: seconds since the start, then the message, answers summarised")
    func lines() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/messages.log"
        let recorder = try #require(MessageRecorder(path: path))
        recorder.start = at(0)
        recorder.record(.key(.character("r")), at: at(0.25))
        let request = ReloadRequest(instance: WidgetInstanceID(rawValue: 3), generation: 7, reason: .user)
        recorder.record(.providerAnswered(ProviderAnswer(request: request, result: .success(AnyTimeline(entries: [], policy: .never)))),
                        at: at(61))
        recorder.record(.reloadsRequested([.kind("leaderboard"), .all]), at: at(61.5))
        let text = try #require(readText(path))
        #expect(text == """
            0.250\tkey character("r")
            61.000\tproviderAnswered #3 generation 7 user: 0 entries, policy never
            61.500\treloadsRequested leaderboard,all

            """)
    }
}

extension RecordMessagesTests {
    @Test("only a regular file is taken: a FIFO (read or not), a terminal and a symbolic link are refused with a clear message, exit 2")
    func refusesWhatWouldFreezeTheLoop() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(MessageRecorder(path: fifo) == nil, "a FIFO with no reader")
        #expect(MessageRecorder.failure(fifo).standardError == "widgethost: --record-messages \(fifo): cannot write it: not a regular file\n")
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        #expect(MessageRecorder(path: fifo) == nil, "a FIFO someone reads")
        #expect(MessageRecorder.failure(fifo) == CommandOutput(exitCode: 2, standardError: "widgethost: --record-messages \(fifo): cannot write it: not a regular file\n"))
        #expect(MessageRecorder(path: "/dev/null") == nil)
        let target = directory.path + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Array("keep me".utf8).withUnsafeBytes { Data($0) }))
        let link = directory.path + "/link"
        #expect(symlink(target, link) == 0)
        #expect(MessageRecorder(path: link) == nil)
        #expect(MessageRecorder.failure(link).standardError.hasSuffix("cannot write it: it is a symbolic link\n"))
        #expect(readText(target) == "keep me", "the link's target is not emptied")
    }

    @Test("lines are printable (a newline or an escape in a message shows as its escape, never as itself) and the record stops at its limit with a line saying so; a time before the start keeps its sign")
    func boundedAndPrintable() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/messages.log"
        let recorder = try #require(MessageRecorder(path: path, maximumBytes: 120))
        recorder.start = at(1)
        recorder.record(.configRejected(notice: "bad\nline \u{1B}[31m"), at: at(0.5))
        for _ in 0..<10 { recorder.record(.key(.character("r")), at: at(2)) }
        let text = try #require(readText(path))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let expected = "-0.500\t" + #"configRejected(notice: Optional("bad\nline \u{1B}[31m"))"#
        #expect(lines.first.map(String.init) == expected, "\(Array((lines.first ?? "").utf8)) vs \(Array(expected.utf8))")
        #expect(text.utf8.count <= 120 + 80 && text.hasSuffix("recording stopped: the file reached its limit of 120 bytes\n"), "\(text)")
        #expect(!text.contains("\u{1B}"))
    }
}

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = read(fd, &buffer, buffer.count), count > 0 { bytes += buffer[0..<count] }
    return String(decoding: bytes, as: UTF8.self)
}
