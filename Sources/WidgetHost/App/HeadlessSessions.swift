#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import WidgetCore
import Widgets

/// Background sessions for a headless command (`snapshot`, `preview`): a session manager on a
/// temporary state directory, so the command can fetch live data without touching — or
/// taking the lock of — the dashboard's own state. `close()` removes everything.
final class HeadlessSessions: Sendable {
    let directory: String
    let manager: BackgroundSessionManager?

    /// Nil when no temporary directory can be made.
    init?(clock: any WidgetClock) {
        var template = Array("/tmp/widgethost-headless-XXXXXX".utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } }) else {
            return nil
        }
        directory = path
        manager = try? BackgroundSessionManager.open(stateDirectory: path, transport: try CurlTransport(), clock: clock)
    }

    /// The services widgets get: these sessions, this directory for containers.
    func services(center: WidgetCenter, now: @escaping @Sendable () -> Date) -> WidgetServices {
        WidgetServices(sessions: manager, stateDirectory: directory, center: center, now: now)
    }

    /// Routes session events to the catalogue's widgets.
    func route(to catalog: WidgetCatalog) {
        let widgets = catalog.entries.map(\.widget)
        manager?.eventRouter = BackgroundSessionManager.router(for: { widgets })
    }

    /// True when no download runs and no event waits.
    var isIdle: Bool { manager?.isIdle ?? true }

    func close() {
        manager?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
