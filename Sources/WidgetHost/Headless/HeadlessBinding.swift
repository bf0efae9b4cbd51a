import FoundationEssentials
import WidgetCore
import Widgets

/// The one headless path's base: a manual clock, background sessions on a temporary state
/// directory (`HeadlessSessions`), and the catalogue's widgets bound to them and to a
/// `WidgetCenter`. `HeadlessDashboard` (snapshot, the benchmark, the pilot) and `preview` start here.
@MainActor
struct HeadlessBinding {
    let clock: ManualClock
    let sessions: HeadlessSessions
    let center: WidgetCenter
    let widgets: BoundWidgets

    /// Nil when no temporary directory can be made.
    ///
    /// - Parameters:
    ///   - seed: a dashboard's state directory whose cached widget data is copied in (read only).
    ///   - io: where the temporary directory goes and how the transport is made.
    ///   - variables: the command's environment variables (`TZ`…), in the widgets' context.
    init?(catalog: Catalog, now: Date, seed: String? = nil, io: HostIO? = nil, variables: [String: String] = [:],
          center: WidgetCenter = WidgetCenter()) {
        let clock = ManualClock(now: now)
        guard let sessions = HeadlessSessions(clock: clock, seed: seed, io: io, variables: variables) else { return nil }
        self.clock = clock
        self.sessions = sessions
        self.center = center
        widgets = catalog.bind(sessions.widgetContext(center: center, now: { clock.now }))
        sessions.route(to: widgets)
    }
}
