import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `mqtt` widget: live values from an MQTT broker (DESIGN.md §12) — a row per field (a
/// JSON Pointer into the latest payload of a topic) or per topic received, retained values
/// at once, each message a push reload under the push budget.
///
/// Options: `MQTTOptions`. On libmosquitto, its socket driven by the transport's network
/// thread (`MQTTClient`): no thread of its own. What a broker sends is bounded
/// (`MQTTTopicTable`: 256 topics, 64 KiB payloads read) and cleaned before it is kept.
public enum MQTTWidget {
    public static let kind = "mqtt"

    /// The widget, bound to the host's push center (its network loop), clock and environment.
    public static func configuration(context: WidgetContext) -> TerminalWidget {
        configuration(context: context, settings: MQTTClient.Settings())
    }

    static func configuration(context: WidgetContext, settings: MQTTClient.Settings) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let panel = try MQTTPanel(try MQTTOptions(options), environment: context.environment)
                return AnyTimelineProvider(MQTTProvider(connection: MQTTConnection(panel: panel, context: context, settings: settings),
                                                        now: context.now))
            },
            view: PanelView.typed(MQTTView.view)
        )
    }
}
