import BackgroundSessions
import Extensions
import FoundationEssentials
import Synchronization
import WidgetCore
import Widgets

/// The running dashboard's background work outside the loop: the session manager (or why it
/// is off), the push streams, and the extensions' processes.
///
/// Opened once at start-up (`open`); `configApplied` keeps them in step with a reloaded config.
@MainActor
final class DashboardSessions {
    let manager: BackgroundSessionManager?
    let push: PushCenter?
    let extensions: ExtensionRuntime
    /// What widgets get of the host's I/O, with the transport, the sessions and push in it.
    private let widgetIO: WidgetContext
    /// Why background sessions are off (or the journal was damaged); nil when all is well.
    let notice: String?
    /// The widgets the session router asks (read on the delivery queue): those bound now,
    /// extensions found again at a config reload included.
    private let routed = RoutedWidgets()

    private init(manager: BackgroundSessionManager?, push: PushCenter?, extensions: ExtensionRuntime, widgetIO: WidgetContext,
                 notice: String?) {
        self.manager = manager
        self.push = push
        self.extensions = extensions
        self.widgetIO = widgetIO
        self.notice = notice
    }

    /// Makes the transport and opens the manager on `stateDirectory` (taking its lock); a
    /// failure turns sessions off with a notice rather than failing the dashboard.
    static func open(io: HostIO, stateDirectory: String, clock: any WidgetClock, extensions: ExtensionRuntime,
                     log: HostLog?) -> DashboardSessions {
        var notice: String?
        var widgetIO = io.widgetContext(variables: io.environment.variables)
        var manager: BackgroundSessionManager?
        var push: PushCenter?
        do {
            let transport = try io.makeTransport()
            widgetIO.transport = transport
            // Event streams run on libcurl's loop: push needs the real transport.
            push = (transport as? CurlTransport).map { PushCenter(transport: $0) }
            let opened = try BackgroundSessionManager.open(stateDirectory: stateDirectory, transport: transport,
                                                           clock: clock, deliveryQueue: .main)
            if case .unavailable(let message) = opened.availability { notice = message }
            if let recovered = opened.recoveryNotice {  // a journal moved aside: the log says where
                log?.error(recovered)
                notice = "sessions journal was damaged: moved aside, a new one started (see widgethost.log)"
            }
            manager = opened
        } catch {
            notice = "background sessions are off: \(error)"
        }
        if let notice { log?.error(notice) }
        extensions.setLog { [log] level, message in
            switch level {
            case .debug: log?.debug("extension \(message)")
            case .info: log?.info("extension \(message)")
            case .error: log?.error("extension \(message)")
            }
        }
        widgetIO.sessions = manager
        widgetIO.push = push
        return DashboardSessions(manager: manager, push: push, extensions: extensions, widgetIO: widgetIO, notice: notice)
    }

    /// The context the catalogue is bound with: the host's I/O, these sessions and streams,
    /// `stateDirectory` for containers, the loop's center and clock.
    func widgetContext(stateDirectory: String, center: WidgetCenter, now: @escaping @Sendable () -> Date) -> WidgetContext {
        var context = widgetIO
        context.stateDirectory = stateDirectory
        context.center = center
        context.now = now
        return context
    }

    private var isAvailable: Bool { manager?.availability == .available }
    /// This dashboard holds the state directory's lock: it alone may own what is the
    /// directory's (the control socket).
    var holdsStateDirectory: Bool { isAvailable }

    /// Routes session events to `widgets` and resumes the transfers a crash cut short.
    func start(widgets: BoundWidgets, log: HostLog?) {
        guard let manager, isAvailable else { return }
        // Events of transfers that finished while no host ran are delivered now, and
        // transfers cut short by a crash start again with the URL configured now.
        routed.widgets = widgets.widgets
        manager.eventRouter = BackgroundSessionManager.router(for: { [routed] in routed.widgets })
        resumeTasks(widgets: widgets, log: log)
    }

    /// A reloaded config is in use: failed extensions get another chance, sessions no panel
    /// uses any more are neither resumed nor routed, and the others resume.
    func configApplied(_ config: DashboardConfig, widgets: BoundWidgets, log: HostLog?) {
        extensions.resetFailures()
        routed.widgets = widgets.widgets
        resumeTasks(widgets: widgets, log: log)
    }

    /// Starts again the downloads a crashed host left, for the sessions configured now, with the
    /// URL configured now (and routes events waiting for a widget). Tasks of sessions no panel
    /// uses stay suspended until a config names them again.
    func resumeTasks(widgets: BoundWidgets, log: HostLog?) {
        guard let manager, isAvailable else { return }
        // Each widget names the URL its sessions resume with (the URL configured now); an
        // extension's downloads resume with the URL it asked for, while it is installed.
        let widgetURL = BackgroundSessionManager.resumeURL(for: widgets.widgets)
        let extensionURLs = Dictionary(manager.suspendedTasks.compactMap { task -> (String, URL)? in
            guard extensions.hosts.contains(where: { $0.ownsSession(task.sessionIdentifier) }) else { return nil }
            return ("\(task.sessionIdentifier)\n\(task.taskDescription ?? "")", task.url)
        }, uniquingKeysWith: { first, _ in first })
        let resumed = manager.resumeTasks { session, description in
            widgetURL(session, description) ?? extensionURLs["\(session)\n\(description ?? "")"]
        }
        if !resumed.isEmpty { log?.info("resumed \(resumed.count) background transfer(s)") }
    }

    func close() {
        extensions.stopAll()
        manager?.close()
    }
}

/// The widgets a session router asks, replaced as the config changes.
final class RoutedWidgets: Sendable {
    private let list = Mutex<[TerminalWidget]>([])

    var widgets: [TerminalWidget] {
        get { list.withLock { $0 } }
        set { list.withLock { $0 = newValue } }
    }
}
