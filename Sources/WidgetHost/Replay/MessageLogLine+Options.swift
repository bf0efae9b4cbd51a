import WidgetCore
import Widgets

/// A picker's answer in a message log: `kind`, `option`, `query`, `items` (`{value, title,
/// subtitle?}`) or `failure`; read back bounded as the host bounds a provider's.
extension MessageLogLine {
    private struct Item: Codable {
        var value: String
        var title: String
        var subtitle: String?
    }

    func encode(_ answer: OptionsAnswer, into c: inout KeyedEncodingContainer<CodingKeys>) throws {
        try c.encode(answer.kind, forKey: .kind)
        try c.encode(answer.option, forKey: .option)
        try c.encode(answer.query, forKey: .query)
        try c.encodeIfPresent(answer.failure, forKey: .failure)
        try c.encode(answer.items.map { Item(value: $0.value, title: $0.title, subtitle: $0.subtitle) }, forKey: .items)
    }

    static func optionsAnswer(from c: KeyedDecodingContainer<CodingKeys>) throws -> OptionsAnswer {
        let items = try c.decodeIfPresent([Item].self, forKey: .items) ?? []
        return OptionsAnswer(kind: try c.decode(String.self, forKey: .kind), option: try c.decode(String.self, forKey: .option),
                             query: try c.decode(String.self, forKey: .query),
                             items: DynamicOptionsBounds.bounded(items.map { DynamicOptionItem(value: $0.value, title: $0.title, subtitle: $0.subtitle) }),
                             failure: try c.decodeIfPresent(String.self, forKey: .failure))
    }
}
