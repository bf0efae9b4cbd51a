import FoundationEssentials

/// One row of an `mqtt` panel, checked: its label, the topics it reads (nil: any of the
/// panel's), where its value is and how it is shown.
struct MQTTField: Sendable, Equatable {
    var label: String
    var topic: MQTTTopicFilter?
    var pointer: JSONPointer
    var format: HTTPJSONFormat

    func reads(_ topic: String) -> Bool { self.topic?.matches(topic) ?? true }
}
