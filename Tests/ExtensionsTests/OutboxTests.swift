#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import Testing

/// The `Outbox` against a real pipe (64 KiB): it never waits, keeps messages whole and in
/// order, and closes at once.
@Suite("Outbox")
struct OutboxTests {
    @Test("messages larger than the pipe: what fits goes at once, the rest on flush, in order, nothing lost")
    func ordersAndKeepsEverything() throws {
        let (reader, writer) = try Self.pipe()
        defer { close(reader) }
        var outbox = Outbox(descriptor: writer)
        let messages = (0..<3).map { index in String(repeating: Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index))), count: 100_000) + "\n" }
        for message in messages {
            let accepted = outbox.send(message)  // never blocks: the pipe holds 64 KiB
            #expect(accepted)
        }
        #expect(!outbox.isEmpty)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while received.count < 300_003 {
            let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if count > 0 { received += chunk[..<count] }
            outbox.flush()
            if count <= 0 && outbox.isEmpty { break }
        }
        #expect(outbox.isEmpty)
        #expect(received == Array(messages.joined().utf8))
        outbox.close()
    }

    @Test("full: a message past maximumBytes is refused, unless the outbox is empty; close drops what waits and closes stdin")
    func boundedAndClosable() throws {
        let (reader, writer) = try Self.pipe()
        defer { close(reader) }
        var outbox = Outbox(descriptor: writer)
        let big = String(repeating: "x", count: 2 * Outbox.maximumBytes) + "\n"
        let first = outbox.send(big)
        #expect(first, "an empty outbox takes any message")
        let second = outbox.send("{}\n")
        #expect(!second, "past maximumBytes")
        outbox.close()
        #expect(outbox.closed && outbox.isEmpty)
        let afterClose = outbox.send("{}\n")
        #expect(!afterClose)
        #expect(fcntl(writer, F_GETFD) == -1 && errno == EBADF, "stdin closed")
    }

    @Test("the extension closed its stdin: the outbox stops writing and refuses, without SIGPIPE")
    func brokenPipe() throws {
        ExtensionLauncher.ignoreSIGPIPE()
        let (reader, writer) = try Self.pipe()
        close(reader)
        var outbox = Outbox(descriptor: writer)
        let accepted = outbox.send("{}\n")
        #expect(!accepted)
        #expect(outbox.closed)
        outbox.close()
    }

    /// A pipe whose write end is non-blocking, as a connection's stdin.
    private static func pipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&fds) == 0)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }
}
