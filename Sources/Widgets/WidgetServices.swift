import BackgroundSessions
import FoundationEssentials
import HostProcesses
import WidgetCore

/// The system as widgets may see it, passed in from the host's `HostIO` (DESIGN.md §6 "Host
/// I/O"): where `/proc` and the tz database are, the processes they may start, and the
/// environment. Tests replace any part (a fake `/proc` tree, a private spawner).
public struct WidgetIO: Sendable {
    /// The proc file system (the `system` widget).
    public var proc: String
    /// The tz database (TZif files; the clock, `countdown`'s local dates).
    public var zoneinfo: String
    /// Starts child processes (the `command` widget, `$EDITOR`); the dashboard's loop reaps them.
    public var processes: ProcessSpawner
    /// The host's whole environment: `"$NAME"` header values of `http-json`, the environment a
    /// `command` runs with, `$EDITOR`.
    public var environment: [String: String]
    /// Where short-lived files go (an action's answer): the host's temporary root.
    public var temporary: String
    /// The host's HTTP transport for requests outside background sessions (an action's POST);
    /// nil when the host has none (previews).
    public var transport: (any HTTPTransport)?

    public init(proc: String = "/proc", zoneinfo: String = "/usr/share/zoneinfo", processes: ProcessSpawner = ProcessSpawner(),
                environment: [String: String] = [:], temporary: String = "/tmp", transport: (any HTTPTransport)? = nil) {
        self.proc = proc
        self.zoneinfo = zoneinfo
        self.processes = processes
        self.environment = environment
        self.temporary = temporary
        self.transport = transport
    }
}

/// What the host lends widgets beyond WidgetCore's environment: its background-session
/// manager (nil, or unavailable, when sessions are off) and the state directory for containers.
public struct WidgetServices: Sendable {
    public var sessions: BackgroundSessionManager?
    public var stateDirectory: String?
    public var center: WidgetCenter
    /// The host's clock, for times recorded outside provider calls (session events).
    public var now: @Sendable () -> Date
    /// Push sources (event streams), or nil when the host has none (previews, snapshots).
    public var push: PushCenter?
    /// Files, processes and environment.
    public var io: WidgetIO

    public init(sessions: BackgroundSessionManager?, stateDirectory: String?, center: WidgetCenter,
                now: @escaping @Sendable () -> Date = { Date() }, push: PushCenter? = nil, io: WidgetIO = WidgetIO()) {
        self.sessions = sessions
        self.push = push
        self.io = io
        self.stateDirectory = stateDirectory
        self.center = center
        self.now = now
    }

    /// No sessions, no state: widgets answer from what they are given (previews, tests).
    public static let none = WidgetServices(sessions: nil, stateDirectory: nil, center: WidgetCenter())

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
