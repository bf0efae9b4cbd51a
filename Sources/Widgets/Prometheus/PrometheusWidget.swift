import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `prometheus` widget: a PromQL query's series from a Prometheus server, as a value, a
/// sparkline per series or a table (DESIGN.md §12), fetched through the `prometheus`
/// background session so a query in flight survives a restart of the host.
///
/// Options: `PrometheusOptions`. Prometheus's own errors (a query that does not parse, one
/// that fails to run) show on the panel; at most `PrometheusResult.maximumSeries` series of
/// `maximumPoints` values are kept, and the panel says how many the query matched.
public enum PrometheusWidget {
    public static let kind = "prometheus"
    /// The one background session of every `prometheus` panel (panels are told apart by
    /// their query's URL).
    static let session = "prometheus"

    /// The store of the answers: `http-json`'s, in the `prometheus` container.
    static func store(_ context: WidgetContext) -> HTTPJSONStore {
        HTTPJSONStore(container: context.container(kind: kind))
    }

    /// The widget, bound to the host's sessions, state directory and environment.
    public static func configuration(context: WidgetContext) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let panel = try PrometheusPanel(try PrometheusOptions(options), environment: context.environment)
                return AnyTimelineProvider(PrometheusProvider(panel: panel, host: context, now: context.now))
            },
            view: PanelView.typed(PrometheusView.view)
        )
        .alerting { entry, _ in (entry as? PrometheusEntry).flatMap(alert) }
        .onBackgroundSessionEvents(matching: { $0 == session }) { identifier, completion in
            guard let manager = context.sessions else { return completion() }
            let recorder = PrometheusSessionRecorder(store: store(context), center: context.center)
            let delegate = FetchSessionDelegate(recorder, intents: context.fetchIntents, now: context.now, completion: completion)
            _ = manager.session(identifier: identifier, delegate: delegate)
        }
    }
}

extension PrometheusWidget {
    /// A warning while a series' latest value is past `alertAbove` or `alertBelow`: the first
    /// such series named, with how many more.
    static func alert(_ entry: PrometheusEntry) -> EntryAlert? {
        let over = entry.rows.filter { entry.isAlerting($0.latest) }
        guard let first = over.first else { return nil }
        let more = over.count > 1 ? " (+\(over.count - 1) more)" : ""
        return EntryAlert(level: .warning, text: "\(first.label) \(entry.text(first.latest))" + more)
    }
}
