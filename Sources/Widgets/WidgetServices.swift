import BackgroundSessions
import FoundationEssentials
import WidgetCore

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

    public init(sessions: BackgroundSessionManager?, stateDirectory: String?, center: WidgetCenter,
                now: @escaping @Sendable () -> Date = { Date() }, push: PushCenter? = nil) {
        self.sessions = sessions
        self.push = push
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
