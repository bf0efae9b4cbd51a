#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import TerminalUI
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

    @Test("the file is a header line, then one JSON line per message applied, read back to the same records")
    func lines() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/messages.log"
        let recorder = try #require(MessageRecorder(path: path, coding: coding))
        let header = MessageLogHeader(start: at(0), size: TerminalSize(columns: 80, rows: 24), config: .defaultDashboard,
                                      theme: "mono", variables: ["TZ": "UTC", "HOME": "/home/me"])
        recorder.begin(header)
        let request = ReloadRequest(instance: WidgetInstanceID(rawValue: 3), generation: 7, reason: .user)
        let records: [MessageLog.Record] = [
            MessageLog.Record(date: at(0.25), message: .key(.character("r"))),
            MessageLog.Record(date: at(61), message: .providerAnswered(ProviderAnswer(
                request: request, result: .success(AnyTimeline(entries: [MinuteEntry(date: at(60))], policy: .never))))),
            MessageLog.Record(date: at(61.5), message: .reloadsRequested([.kind("leaderboard"), .all])),
        ]
        for record in records { recorder.record(record.message, at: record.date) }
        let text = try #require(readText(path))
        #expect(text.split(separator: "\n").count == 4 && text.hasSuffix("\n"))
        let read = try MessageLogFile.parse(Array(text.utf8), path: path, coding: coding)
        #expect(read.header == header, "only the frame's variables are kept: \(read.header.environment)")
        #expect(read.header.environment == ["TZ": "UTC"])
        #expect(read.records.map(\.message) == records.map(\.message))
        #expect(read.records.map(\.date) == records.map(\.date))
        #expect(!read.wasStopped)
    }
}

extension RecordMessagesTests {
    @Test("only a regular file is taken: a FIFO (read or not), a terminal and a symbolic link are refused with a clear message, exit 2")
    func refusesWhatWouldFreezeTheLoop() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(MessageRecorder(path: fifo, coding: coding) == nil, "a FIFO with no reader")
        #expect(MessageRecorder.failure(fifo).standardError == "widgethost: --record-messages \(fifo): cannot write it: not a regular file\n")
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        #expect(MessageRecorder(path: fifo, coding: coding) == nil, "a FIFO someone reads")
        #expect(MessageRecorder.failure(fifo) == CommandOutput(exitCode: 2, standardError: "widgethost: --record-messages \(fifo): cannot write it: not a regular file\n"))
        #expect(MessageRecorder(path: "/dev/null", coding: coding) == nil)
        let target = directory.path + "/target"
        #expect(FileManager.default.createFile(atPath: target, contents: Array("keep me".utf8).withUnsafeBytes { Data($0) }))
        let link = directory.path + "/link"
        #expect(symlink(target, link) == 0)
        #expect(MessageRecorder(path: link, coding: coding) == nil)
        #expect(MessageRecorder.failure(link).standardError.hasSuffix("cannot write it: it is a symbolic link\n"))
        #expect(readText(target) == "keep me", "the link's target is not emptied")
    }

    @Test("a newline or an escape in a message stays inside its JSON string (one line each, no ESC byte) and the record stops at its limit with a last line that a read takes as its end")
    func boundedAndPrintable() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/messages.log"
        let recorder = try #require(MessageRecorder(path: path, coding: coding, maximumBytes: 400))
        recorder.begin(MessageLogHeader(start: at(1), size: TerminalSize(columns: 80, rows: 24), config: .defaultDashboard,
                                        theme: nil, variables: [:]))
        recorder.record(.configRejected(notice: "bad\nline \u{1B}[31m"), at: at(0.5))
        for _ in 0..<10 { recorder.record(.key(.character("r")), at: at(2)) }
        let text = try #require(readText(path))
        #expect(text.utf8.count <= 400 + 100 && text.hasSuffix("{\"type\":\"stopped\",\"reason\":\"the file reached its limit of 400 bytes\"}\n"), "\(text)")
        #expect(!text.contains("\u{1B}"))
        let read = try MessageLogFile.parse(Array(text.utf8), path: path, coding: coding)
        #expect(read.wasStopped)
        #expect(read.records.first?.message == .configRejected(notice: "bad\nline \u{1B}[31m"))
        #expect(read.records.first?.date == at(0.5), "a time before the start is kept")
        #expect(read.records.count == text.split(separator: "\n").count - 2)
    }
}

extension RecordMessagesTests {
    @Test("an answer whose entries no codec writes is a line saying so, and a read stops there with the reason and the line")
    func unrecordable() throws {
        struct Probe: TimelineEntry { var date: Date }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/messages.log"
        let recorder = try #require(MessageRecorder(path: path, coding: coding))
        recorder.begin(MessageLogHeader(start: at(0), size: TerminalSize(columns: 80, rows: 24), config: .defaultDashboard,
                                        theme: nil, variables: [:]))
        let request = ReloadRequest(instance: WidgetInstanceID(rawValue: 1), generation: 1, reason: .initial)
        recorder.record(.providerAnswered(ProviderAnswer(request: request, result: .success(AnyTimeline(entries: [Probe(date: at(1))],
                                                                                                       policy: .atEnd)))), at: at(1))
        recorder.record(.quit, at: at(2))
        let text = try #require(readText(path))
        #expect(text.split(separator: "\n").count == 3)
        #expect(throws: MessageLogError(path: path, line: 2, reason: "a message the recorder could not write: no codec for entries of type Probe at type")) {
            try MessageLogFile.parse(Array(text.utf8), path: path, coding: coding)
        }
    }
}

private let coding = MessageLogCoding(codecs: [.minute])

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = read(fd, &buffer, buffer.count), count > 0 { bytes += buffer[0..<count] }
    return String(decoding: bytes, as: UTF8.self)
}
