import FoundationEssentials
import WidgetCore

/// One moment of an `mqtt` panel: its rows (a field's value, or a topic's payload text), how
/// many topics are kept and how many messages were not, the last payload problem, and how the
/// connection stands.
public struct MQTTEntry: TimelineEntry, Equatable, Codable {
    public struct Row: Sendable, Equatable, Codable {
        public var label: String
        /// The formatted value; nil when nothing has come (or the pointer names nothing).
        public var value: String?
    }

    /// How the broker connection stands.
    public enum Link: Sendable, Equatable, Codable {
        case connecting
        case live
        case down(String)
        /// No connection in this mode (a preview, a snapshot).
        case unavailable(String)
    }

    public var date: Date
    public var rows: [Row]
    /// Whether the rows are the topics received (no `fields`).
    public var listsTopics: Bool
    /// Topics kept (at most `MQTTTopicTable.maximumTopics`).
    public var topicCount: Int
    /// Messages on topics not kept (the table was full).
    public var droppedMessages: Int
    /// The last payload that could not be shown as sent, with its topic.
    public var notice: String?
    public var link: Link
    public var receivedAt: Date?

    /// The entry for `state` at `date`.
    static func make(_ state: MQTTClient.State, date: Date) -> MQTTEntry {
        let table = state.table
        let rows: [Row]
        let listsTopics = table.fields.isEmpty
        if listsTopics {
            rows = table.sortedTopics.map { Row(label: MQTTText.clean($0.topic, limit: 80), value: $0.message.text) }
        } else {
            rows = zip(table.fields, table.fieldValues).map { field, value in
                Row(label: field.label, value: value?.value.map { MQTTText.clean(field.format.format($0, now: date)) })
            }
        }
        let link: Link = switch state.link {
        case .connecting: .connecting
        case .live: .live
        case .down(let reason): .down(reason)
        }
        return MQTTEntry(date: date, rows: rows, listsTopics: listsTopics, topicCount: table.messages.count,
                         droppedMessages: table.droppedMessages, notice: table.notice, link: link, receivedAt: table.lastReceived)
    }
}
