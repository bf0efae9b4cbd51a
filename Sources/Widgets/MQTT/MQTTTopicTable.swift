import FoundationEssentials
import JSONTree

/// The latest message of each topic a panel receives, bounded whatever the broker sends: at
/// most `maximumTopics` topics (a message on another topic once the table is full is counted,
/// not kept), each payload read once into `MQTTPayload` (at most 64 KiB decoded, its row text
/// cut) and each field's value resolved at arrival, so no payload is kept whole. A pure value;
/// the client keeps it under a lock.
struct MQTTTopicTable: Sendable, Equatable {
    static let maximumTopics = 256

    struct Message: Sendable, Equatable {
        /// The payload's text for a row (clean, cut).
        var text: String
        /// Why the payload is not shown as sent (too large, not UTF-8).
        var problem: String?
        var retained: Bool
        var receivedAt: Date
    }

    struct FieldValue: Sendable, Equatable {
        /// nil: the latest message has nothing at the field's pointer.
        var value: JSONValue?
        var receivedAt: Date
    }

    let fields: [MQTTField]
    private(set) var messages: [String: Message] = [:]
    private(set) var fieldValues: [FieldValue?]
    /// Messages on topics not kept because the table was full.
    private(set) var droppedMessages = 0
    private(set) var messageCount = 0
    /// The last message's problem, with its topic ("home/big: payload of 1 MiB is over …").
    private(set) var notice: String?
    private var noticeTopic: String?
    private(set) var lastReceived: Date?

    init(fields: [MQTTField]) {
        self.fields = fields
        fieldValues = Array(repeating: nil, count: fields.count)
    }

    /// Takes one message. `topic` is the broker's (valid UTF-8: libmosquitto checks it).
    mutating func record(topic: String, payload bytes: UnsafeRawBufferPointer, retained: Bool, at date: Date) {
        messageCount += 1
        lastReceived = date
        let key = topic.utf8.count <= MQTTTopicFilter.maximumBytes ? topic : MQTTText.clean(topic, limit: 300)
        let payload = MQTTPayload(bytes)
        let shownTopic = MQTTText.clean(topic, limit: 80)
        if let problem = payload.problem {
            notice = "\(shownTopic): \(problem)"
            noticeTopic = key
        } else if noticeTopic == key {
            notice = nil
            noticeTopic = nil
        }
        for (index, field) in fields.enumerated() where field.reads(topic) {
            fieldValues[index] = FieldValue(value: payload.value(at: field.pointer), receivedAt: date)
        }
        let message = Message(text: payload.text, problem: payload.problem, retained: retained, receivedAt: date)
        if messages[key] != nil || messages.count < Self.maximumTopics {
            messages[key] = message
        } else {
            droppedMessages += 1
        }
    }

    /// The kept topics, sorted, with their messages.
    var sortedTopics: [(topic: String, message: Message)] {
        messages.sorted { $0.key < $1.key }.map { (topic: $0.key, message: $0.value) }
    }
}
