#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ExtensionProtocol
import Synchronization

/// The extension's end of the protocol's channel: stdout, one message per line (written whole,
/// under a lock, so concurrent answers never interleave), and the requests the extension sent
/// (`download`) waiting for the host's answers.
final class Channel: Sendable {
    static let shared = Channel()

    private struct Waiting {
        var next = 1_000_000
        var answers: [Int: CheckedContinuation<Result<JSON, RemoteError>, Never>] = [:]
    }

    private let writing = Mutex<Void>(())
    private let waiting = Mutex(Waiting())
    /// Where messages go: stdout (tests pass a pipe).
    private let output: Int32

    init(output: Int32 = 1) { self.output = output }

    /// Writes one message (and its newline) to stdout.
    func send(_ message: JSON) {
        let bytes = Array((message.text + "\n").utf8)
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    func answer(_ id: JSON, result: JSON) {
        send(.object([("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", id), ("result", result)]))
    }

    func answer(_ id: JSON, code: Int, message: String) {
        send(.object([("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", id),
                      ("error", .object([("code", .int(code)), ("message", .string(message))]))]))
    }

    func notify(_ method: ExtensionMethod, _ params: JSON) {
        send(.object([("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("method", .string(method.rawValue)), ("params", params)]))
    }

    /// Sends a request of the extension's and waits for the host's answer.
    func request(_ method: ExtensionMethod, _ params: JSON) async -> Result<JSON, RemoteError> {
        await withCheckedContinuation { continuation in
            let id = waiting.withLock { waiting in
                defer { waiting.next += 1 }
                waiting.answers[waiting.next] = continuation
                return waiting.next
            }
            send(.object([("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", .int(id)),
                          ("method", .string(method.rawValue)), ("params", params)]))
        }
    }

    /// An answer from the host to one of ours; false when no request of ours has that id.
    func deliver(id: Int, _ answer: Result<JSON, RemoteError>) -> Bool {
        guard let continuation = waiting.withLock({ $0.answers.removeValue(forKey: id) }) else { return false }
        continuation.resume(returning: answer)
        return true
    }
}

/// A JSON-RPC error answer from the host (to `download`), or one to send (thrown from an
/// action: its code and message go back to the host).
public struct RemoteError: Error, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int = 1, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "error \(code): \(message)" }
}

/// WidgetKit's `WidgetCenter`: ask the host for new timelines (it applies its budget and
/// spacing, as for any reload).
public final class WidgetCenter: Sendable {
    public static let shared = WidgetCenter(channel: .shared)

    let channel: Channel

    init(channel: Channel) { self.channel = channel }

    public func reloadTimelines(ofKind kind: String) {
        channel.notify(.reloadTimelines, ["kind": .string(kind)])
    }

    public func reloadAllTimelines() {
        channel.notify(.reloadTimelines, [:])
    }
}

/// Lines in the host's log (`widgethost.log`): `debug` only with `--debug`.
public enum ExtensionLog {
    public static func debug(_ message: String) { write("debug", message) }
    public static func info(_ message: String) { write("info", message) }
    public static func error(_ message: String) { write("error", message) }

    private static func write(_ level: String, _ message: String) {
        Channel.shared.notify(.log, ["level": .string(level), "message": .string(message)])
    }
}
