import FoundationEssentials
import TerminalUI
import WidgetCore

/// An extension's entry in a replayable message log: its view in the view description format
/// it came in (`ViewNode.jsonText`), read back with the same bounded decoder
/// (`ViewNode.decode`), so a log's view is held to an extension's limits.
extension ExtensionEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case date, relevance, view, failure, url, alert
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .view)
        let view: ViewNode
        do {
            view = try ViewNode.decode(Array(text.utf8))
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .view, in: c, debugDescription: "\(error)")
        }
        self.init(date: try c.decode(Date.self, forKey: .date),
                  relevance: try c.decodeIfPresent(TimelineEntryRelevance.self, forKey: .relevance),
                  view: view, failure: try c.decodeIfPresent(ExtensionError.self, forKey: .failure),
                  url: try c.decodeIfPresent(String.self, forKey: .url).flatMap { Hyperlink.isAllowed($0) ? $0 : nil },
                  alert: try c.decodeIfPresent(EntryAlert.self, forKey: .alert))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(date, forKey: .date)
        try c.encodeIfPresent(relevance, forKey: .relevance)
        try c.encode(view.jsonText, forKey: .view)
        try c.encodeIfPresent(failure, forKey: .failure)
        try c.encodeIfPresent(url, forKey: .url)
        try c.encodeIfPresent(alert, forKey: .alert)
    }
}
