import BackgroundSessions
import FoundationEssentials
import Glibc
import JSONTree
import Synchronization

/// Keeps each `http-json` panel's fetch state and last good body in the `http-json`
/// container, per session and URL: `<session>-<hash of the URL>.state.json` and `.body.json`,
/// each written atomically.
///
/// Written by the session delegate, read by the provider. What was last stored is also kept
/// in memory for the life of the process, so a write that fails (disk full) loses nothing
/// the panel shows; the panel then says "cannot save: <reason>".
///
/// **Not fsynced** (`WidgetContainer.write(durable: false)`), as the leaderboard's board: both
/// files are a cache of the server's answer. A kill loses nothing (each file is swapped in
/// whole); a power loss may leave one old, empty or short, which loads as no body or no state
/// (a state without its body loads without its fetch times), so the next start fetches at once
/// and unconditionally (the transport remembers validators in memory only): the body comes back. An fsync per file per fetch (two for a 200, one
/// for a 304) bought nothing more.
public struct HTTPJSONStore: Sendable {
    public static let kind = "http-json"
    /// The largest body kept and parsed (the transport may deliver more: it is refused).
    public static let maximumBodyBytes = 1 << 20

    public let container: WidgetContainer?

    public init(container: WidgetContainer?) { self.container = container }
    public init(context: WidgetContext) { container = context.container(kind: Self.kind) }

    /// What the panel needs: the state, the body (parsed), and why it could not be saved.
    public struct Stored: Sendable {
        public var state = FetchRecord()
        public var body: JSONValue?
        public var saveError: String?
    }

    private static let memory = Mutex<[String: Stored]>([:])

    /// The file name stem of `session` and `url`: the session (a safe name) and 64 bits of
    /// FNV-1a of the URL, so two panels on one session with different URLs keep apart.
    static func stem(session: String, url: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.absoluteString.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return session + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private func key(_ stem: String) -> String { (container?.path ?? "") + "/" + stem }

    /// The stored state and body for `session` and `url` (empty when none, or unreadable).
    public func load(session: String, url: URL) -> Stored {
        let stem = Self.stem(session: session, url: url)
        if let held = Self.memory.withLock({ $0[key(stem)] }) { return held }
        var stored = Stored()
        guard let container else { return stored }
        if let bytes = try? container.read(stem + ".state.json"),
           let state = try? JSONDecoder().decode(FetchRecord.self, from: Data(bytes)) {
            stored.state = state.sanitized()
        }
        if let bytes = try? container.read(stem + ".body.json", limit: Self.maximumBodyBytes) {
            stored.body = try? Self.parser.parse(bytes)
        }
        if stored.body == nil, stored.state.fetchedAt != nil, !stored.state.lastBodyRejected {
            // The body the state vouches for is gone or short (a power loss, a hand): the state
            // no longer says when the last fetch was, so the next one is due at once.
            stored.state.fetchedAt = nil
            stored.state.lastAttempt = nil
        }
        Self.memory.withLock { $0[key(stem)] = stored }
        return stored
    }

    /// The strict parser for bodies: at most `maximumBodyBytes`, 64 levels deep.
    static let parser = JSONParser(maximumBytes: maximumBodyBytes, maximumDepth: 64)

    /// Applies `change` to the state of `session` and `url`, with `body` (raw bytes and its
    /// parsed value) as the new body when given, and saves both.
    public func update(session: String, url: URL, body: (bytes: [UInt8], value: JSONValue)? = nil,
                       _ change: (inout FetchRecord) -> Void) {
        let stem = Self.stem(session: session, url: url)
        var stored = load(session: session, url: url)
        change(&stored.state)
        if let body { stored.body = body.value }
        stored.saveError = nil
        if let container {
            do {
                if let body { try container.write(body.bytes, to: stem + ".body.json", durable: false) }
                try container.write([UInt8](try JSONEncoder().encode(stored.state)), to: stem + ".state.json", durable: false)
            } catch let error as WidgetContainerError {
                if case .fileSystem(let failure) = error {
                    stored.saveError = "cannot save: \(String(cString: strerror(failure.errno)))"
                } else {
                    stored.saveError = "cannot save: \(error)"
                }
            } catch {
                stored.saveError = "cannot save: \(error)"
            }
        }
        Self.memory.withLock { $0[key(stem)] = stored }
    }
}
