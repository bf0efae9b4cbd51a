/// What a widget takes from its host beyond a clock, a center and its container: each use is a
/// side effect of building its panels (a session registered, a stream subscribed, a file
/// watched, a process started, a request sent), declared in its `WidgetDefinition` so a
/// reader of the definition sees all of them, and `widgets` can list them. A definition's
/// `WidgetContext` holds only the handles of the uses it declares (`WidgetContext.granting`).
public enum WidgetUse: String, Sendable, CaseIterable, Comparable {
    /// Background sessions: downloads in the host's session manager, registrations held by the
    /// panel's provider for its life.
    case backgroundSessions = "background sessions"
    /// Push sources: an event stream subscribed for as long as a provider holds it.
    case push
    /// File watching (inotify): a lease on a file for as long as a provider holds it.
    case fileWatching = "file watching"
    /// Child processes, started through the host's spawner.
    case processes
    /// Requests through the host's transport outside background sessions (an action's POST).
    case network

    public static func < (a: WidgetUse, b: WidgetUse) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
