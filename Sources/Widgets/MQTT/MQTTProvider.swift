import FoundationEssentials
import WidgetCore

/// The `mqtt` provider: answers on the loop from what its connection has received (nothing to
/// fetch: the client reloads the kind as messages come, under the push budget), one entry,
/// policy `never`.
struct MQTTProvider: TimelineProvider {
    let connection: MQTTConnection
    let now: @Sendable () -> Date

    func placeholder(in context: Context) -> MQTTEntry {
        MQTTEntry(date: .distantPast, rows: [.init(label: "topic", value: "21.5")], listsTopics: false, topicCount: 0,
                  droppedMessages: 0, link: .connecting)
    }

    func snapshot(in context: Context) async -> MQTTEntry { entry() }

    func timeline(in context: Context) async throws -> Timeline<MQTTEntry> {
        Timeline(entries: [entry()], policy: .never)
    }

    func timelineOnLoop(in context: Context) -> Timeline<MQTTEntry>? {
        Timeline(entries: [entry()], policy: .never)
    }

    private func entry() -> MQTTEntry {
        let date = now()
        guard let client = connection.client else {
            return MQTTEntry(date: date, rows: [], listsTopics: true, topicCount: 0, droppedMessages: 0,
                             link: .unavailable("live data only in the dashboard"))
        }
        return MQTTEntry.make(client.state, date: date)
    }
}
