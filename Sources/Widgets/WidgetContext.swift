import BackgroundSessions
import FoundationEssentials
import HostProcesses
import WidgetCore

/// Everything a widget receives from its host, in one value (DESIGN.md §6 "Host I/O").
///
/// The host makes one when it binds the catalogue (`WidgetDefinition.widget(_:)`); each
/// definition gets it with only the handles it declared (`WidgetUse`), builds its
/// configuration with it, and its provider factory, session-event handlers and actions close
/// over it. There is no second, per-provider value: the clock, the center and the state
/// directory a provider sees are the ones its definition was bound with. "Environment" means
/// the process environment variables only. Tests replace any part (a fake `/proc`, a
/// private spawner, a manual clock).
public struct WidgetContext: Sendable {
    /// The host's background-session manager; nil when sessions are off (previews, tests) or
    /// the definition does not declare `.backgroundSessions`.
    public var sessions: BackgroundSessionManager?
    /// The state directory (widget containers live under it); nil when the host has none.
    public var stateDirectory: String?
    /// Lets a widget ask for reloads (its own kind, or another's).
    public var center: WidgetCenter
    /// The host's clock: a fixed moment for snapshots, the wall clock when running.
    public var now: @Sendable () -> Date
    /// Push sources (event streams); nil when the host has none (previews, snapshots) or the
    /// definition does not declare `.push`.
    public var push: PushCenter?
    /// The process environment variables: `TZ`, `HOME`, `"$NAME"` header values of
    /// `http-json`, the environment a `command` runs with, `$EDITOR`.
    public var environment: [String: String]
    /// The proc file system (the `system` widget).
    public var proc: String
    /// The tz database (TZif files; the clock, `countdown`'s local dates).
    public var zoneinfo: String
    /// Where short-lived files go (an action's answer): the host's temporary root.
    public var temporary: String
    /// Starts child processes (the `command` widget, extensions); the dashboard's loop reaps
    /// them. Nil unless the definition declares `.processes`.
    public var processes: ProcessSpawner?
    /// The host's HTTP transport for requests outside background sessions (an action's POST);
    /// nil when the host has none (previews) or the definition does not declare `.network`.
    public var transport: (any HTTPTransport)?
    /// Whether the widget may watch files (`.fileWatching`): false leaves a `text` panel
    /// unwatched, as in a preview.
    public var watchesFiles: Bool
    /// What the widgets bound with this context share (the sessions the leaderboard's panels
    /// hold, read by `hero`): one of each type, made on first use.
    public let shared: WidgetSharedObjects

    public init(sessions: BackgroundSessionManager? = nil, stateDirectory: String? = nil, center: WidgetCenter = WidgetCenter(),
                now: @escaping @Sendable () -> Date = { Date() }, push: PushCenter? = nil, environment: [String: String] = [:],
                proc: String = "/proc", zoneinfo: String = "/usr/share/zoneinfo", temporary: String = "/tmp",
                processes: ProcessSpawner? = ProcessSpawner(), transport: (any HTTPTransport)? = nil, watchesFiles: Bool = true,
                shared: WidgetSharedObjects = WidgetSharedObjects()) {
        self.sessions = sessions
        self.stateDirectory = stateDirectory
        self.center = center
        self.now = now
        self.push = push
        self.environment = environment
        self.proc = proc
        self.zoneinfo = zoneinfo
        self.temporary = temporary
        self.processes = processes
        self.transport = transport
        self.watchesFiles = watchesFiles
        self.shared = shared
    }

    /// No sessions, no state, no push: widgets answer from what they are given (previews,
    /// tests). A new value each time, so tests share no registrations.
    public static var none: WidgetContext { WidgetContext() }

    /// This context with only the handles `uses` names: what a definition that did not
    /// declare a use would need it for is a side effect nobody reading it would see.
    public func granting(_ uses: Set<WidgetUse>) -> WidgetContext {
        var granted = self
        if !uses.contains(.backgroundSessions) { granted.sessions = nil }
        if !uses.contains(.push) { granted.push = nil }
        if !uses.contains(.processes) { granted.processes = nil }
        if !uses.contains(.network) { granted.transport = nil }
        if !uses.contains(.fileWatching) { granted.watchesFiles = false }
        return granted
    }

    /// The container of `kind`, or nil without a state directory.
    public func container(kind: String) -> WidgetContainer? {
        guard let stateDirectory else { return nil }
        return try? WidgetContainer(kind: kind, stateDirectory: stateDirectory)
    }

    /// Why sessions cannot be used, or nil when they can.
    public var sessionsUnavailableReason: String? {
        guard let sessions else { return "background sessions are off in this mode" }
        if case .unavailable(let message) = sessions.availability { return message }
        return nil
    }
}
