import BackgroundSessions
import FoundationEssentials
import Glibc
import Synchronization

/// Keeps each leaderboard session's state (last board, the one before, last error) in the
/// leaderboard's container, `board-<session>.json`, written atomically.
///
/// Read by the leaderboard's provider and by the hero widget; written by the session delegate.
///
/// **A write that fails** (disk full, read-only file system) must not lose the board the
/// session delivered: the state is then held in memory (`load` returns it, with `saveError`
/// set, so the panel shows the board and why it is not saved) and the session's completion is
/// held too (`holdUntilSaved`), so the journal keeps the events for a re-delivery after a crash
/// instead of acknowledging them. `retryUnsaved` (the provider calls it on every reload) writes
/// the held state again and, once it is on disk, calls the held completions.
///
/// **Not fsynced** (`WidgetContainer.write(durable: false)`): the state is a cache of the
/// server's board. A kill loses nothing (the file is renamed into place, whole, before the
/// completion acknowledges the events); a power loss may leave it old, empty or short, which
/// loads as no board, and the next fetch — at once, as nothing says when the last one was —
/// brings the board back: the same cost as the journal's, which a power loss can roll back to
/// its last checkpoint. An fsync here was the last one of a fetch, on the loop's thread.
///
/// **A change of the check times only** (a 304: `fetchedAt` and `lastAttempt` move, nothing
/// else) is not written: it is held in memory the same way, with no error, and goes to disk
/// with the next change. A 304 then costs no file write (a 4 KiB page and an fsync a fetch);
/// a host killed or quit loses only the time of its last check, so the next start may fetch
/// at once and says "updated" as of the last change written.
public struct LeaderboardStore: Sendable {
    public static let kind = "leaderboard"
    public let container: WidgetContainer?

    public init(container: WidgetContainer?) {
        self.container = container
    }

    public init(context: WidgetContext) {
        container = context.container(kind: Self.kind)
    }

    static func fileName(session: String) -> String { "board-\(session).json" }

    /// A state that could not be written (`error`), or whose only change is not worth a write
    /// (no error: `isTimesOnly`), and the completions waiting for it to be written.
    private struct Unsaved {
        var state: LeaderboardState
        var error: String?
        var completions: [@Sendable () -> Void] = []
    }

    /// True when `new` differs from `old` in the check times only (what a 304 changes).
    static func isTimesOnly(_ old: LeaderboardState, _ new: LeaderboardState) -> Bool {
        var old = old, new = new
        for state in [\LeaderboardState.fetch.fetchedAt, \LeaderboardState.fetch.lastAttempt] {
            old[keyPath: state] = nil
            new[keyPath: state] = nil
        }
        return old == new
    }

    /// Unsaved states by file path, shared by every store of the process (the provider, the hero
    /// widget and the delegate each make their own). The lock also serialises writes, so a
    /// retry never overwrites a newer state with an older one.
    private static let unsaved = Mutex<[String: Unsaved]>([:])

    /// The last state written of each file, while it is small (`inMemoryLimit` bytes encoded):
    /// what `loadFromMemory` answers, so a reload on the loop reads and decodes no file.
    private static let written = Mutex<[String: LeaderboardState]>([:])
    /// The largest state (encoded) kept in `written`: a larger board is read from its file, off
    /// the loop, rather than kept twice in memory.
    static let inMemoryLimit = 64 << 10

    private func key(_ session: String) -> String { (container?.path ?? "") + "/" + Self.fileName(session: session) }

    /// The saved state of `session` (the one held in memory when it could not be saved, with
    /// `saveError`); an empty state when none (or unreadable). Sanitised: a damaged file cannot
    /// bring values the views do not expect. The last state this process wrote is answered
    /// from memory while small, without reading the file.
    public func load(session: String) -> LeaderboardState {
        if let held = Self.unsaved.withLock({ $0[key(session)] }) {
            var state = held.state
            state.saveError = held.error
            return state
        }
        return Self.written.withLock({ $0[key(session)] }) ?? loadFromDisk(session: session)
    }

    /// The state of `session` when it is in memory — held unsaved without an error (a 304's
    /// times), or the last one written while small — without reading the file; nil otherwise
    /// (nothing written yet by this process, a large board, or a state that failed to save).
    public func loadFromMemory(session: String) -> LeaderboardState? {
        let key = key(session)
        switch Self.unsaved.withLock({ $0[key].map { ($0.state, $0.error) } }) {
        case (let state, nil)?: return state
        case _?: return nil
        case nil: return Self.written.withLock { $0[key] }
        }
    }

    private func loadFromDisk(session: String) -> LeaderboardState {
        guard let container, let bytes = try? container.read(Self.fileName(session: session)),
              let state = try? JSONDecoder().decode(LeaderboardState.self, from: Data(bytes)) else { return LeaderboardState() }
        return state.sanitized()
    }

    /// Saves `state` for `session`; false when there is no container or the write failed.
    @discardableResult
    public func save(_ state: LeaderboardState, session: String) -> Bool {
        Self.unsaved.withLock { unsaved in
            if unsaved[key(session)]?.error == nil { unsaved[key(session)] = nil }  // a held 304's times: replaced
            return write(state, session: session) == nil
        }
    }

    /// Writes `state`; the reason when it could not be written. Called with `unsaved` locked,
    /// so a retry never overwrites a newer state with an older one.
    private func write(_ state: LeaderboardState, session: String) -> String? {
        let key = key(session)
        Self.written.withLock { $0[key] = nil }
        guard let container else { return "cannot save the board: no state directory" }
        guard let data = try? JSONEncoder().encode(state) else { return "cannot save the board: cannot encode it" }
        do {
            try container.write([UInt8](data), to: Self.fileName(session: session), durable: false)
            if data.count <= Self.inMemoryLimit {
                Self.written.withLock { $0[key] = state.asStored }  // as `load` would read it back
            }
            return nil
        } catch .fileSystem(let error) {
            return "cannot save the board: \(String(cString: strerror(error.errno)))"
        } catch {
            return "cannot save the board: \(error)"
        }
    }

    /// Applies `change` to the state of `session` (the unsaved one, if any) and saves it;
    /// returns false when it could not be saved — the state is then held in memory.
    @discardableResult
    public func update(session: String, _ change: (inout LeaderboardState) -> Void) -> Bool {
        let key = key(session)
        let (saved, completions) = Self.unsaved.withLock { unsaved -> (Bool, [@Sendable () -> Void]) in
            // The last state written is in memory while small: no file read on the loop.
            let before = unsaved[key]?.state ?? Self.written.withLock({ $0[key] }) ?? loadFromDisk(session: session)
            var state = before
            change(&state)
            state.saveError = nil
            if unsaved[key]?.error == nil, Self.isTimesOnly(before, state) {
                unsaved[key] = Unsaved(state: state, error: nil)
                return (true, [])
            }
            if let error = write(state, session: session) {
                unsaved[key, default: Unsaved(state: state, error: error)].state = state
                unsaved[key]?.error = error
                return (false, [])
            }
            // Saved: what was held (older changes included in `state`) is on disk too.
            return (true, unsaved.removeValue(forKey: key)?.completions ?? [])
        }
        for completion in completions { completion() }
        return saved
    }

    /// Keeps `completion` until the held state of `session` is saved; false (and `completion`
    /// not kept) when nothing is held: call it now.
    public func holdUntilSaved(session: String, completion: @escaping @Sendable () -> Void) -> Bool {
        Self.unsaved.withLock { unsaved in
            guard unsaved[key(session)]?.error != nil else { return false }
            unsaved[key(session)]?.completions.append(completion)
            return true
        }
    }

    /// Writes the held state of `session` again, if there is one; once it is saved, calls the
    /// completions held for it. Returns whether a state is still held (not saved).
    @discardableResult
    public func retryUnsaved(session: String) -> Bool {
        let key = key(session)
        let (held, completions) = Self.unsaved.withLock { unsaved -> (Bool, [@Sendable () -> Void]) in
            guard let entry = unsaved[key], entry.error != nil else { return (false, []) }
            if let error = write(entry.state, session: session) {
                unsaved[key]?.error = error
                return (true, [])
            }
            return (false, unsaved.removeValue(forKey: key)?.completions ?? [])
        }
        for completion in completions { completion() }
        return held
    }
}
