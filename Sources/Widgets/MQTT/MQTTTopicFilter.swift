/// A subscription's topic filter (MQTT 3.1.1 §4.7): levels split by `/`, `+` a whole level
/// (any one), `#` the last level (that level's parent and everything under it). A topic that
/// starts with `$` (`$SYS/…`) is matched by no wildcard in the first level.
struct MQTTTopicFilter: Sendable, Equatable {
    /// The longest filter or topic accepted (MQTT allows 65,535 bytes; a panel needs no more).
    static let maximumBytes = 1_024

    let text: String
    private let levels: [Substring]

    init(_ text: String) throws {
        guard !text.isEmpty, text.utf8.count <= Self.maximumBytes else {
            throw OptionError("a topic is 1 to \(Self.maximumBytes) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw OptionError("topic \(MQTTText.clean(text, limit: 60).debugDescription): holds a control character")
        }
        let levels = text.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#"), level != "#" || index != levels.count - 1 {
                throw OptionError("topic \(text.debugDescription): '#' must be a whole level, the last")
            }
            if level.contains("+"), level != "+" {
                throw OptionError("topic \(text.debugDescription): '+' must be a whole level")
            }
        }
        self.text = text
        self.levels = levels
    }

    var hasWildcard: Bool { levels.contains { $0 == "+" || $0 == "#" } }

    func matches(_ topic: String) -> Bool {
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = levels.first, first == "+" || first == "#" { return false }
        var index = 0
        for level in levels {
            if level == "#" { return true }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
            index += 1
        }
        return index == topicLevels.count
    }
}
