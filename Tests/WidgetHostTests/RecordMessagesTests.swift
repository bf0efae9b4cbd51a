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

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = read(fd, &buffer, buffer.count), count > 0 { bytes += buffer[0..<count] }
    return String(decoding: bytes, as: UTF8.self)
}
