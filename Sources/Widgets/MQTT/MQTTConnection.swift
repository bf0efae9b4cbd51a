import BackgroundSessions
import FoundationEssentials

/// A panel's hold on its broker connection: the client, driven on the transport's network
/// thread for as long as this lives (the provider holds it; a config reload that drops the
/// panel drops the connection). Without push (a preview, a snapshot) there is no client.
final class MQTTConnection: Sendable {
    let client: MQTTClient?
    private let lease: PushCenter.Lease?

    init(panel: MQTTPanel, context: WidgetContext, settings: MQTTClient.Settings = MQTTClient.Settings()) {
        guard let push = context.push else {
            client = nil
            lease = nil
            return
        }
        let center = context.center
        let client = MQTTClient(panel: panel, settings: settings, now: context.now) {
            center.reloadTimelines(ofKind: MQTTWidget.kind, cause: .push)
        }
        lease = push.watch(client)
        self.client = lease == nil ? nil : client
    }
}
