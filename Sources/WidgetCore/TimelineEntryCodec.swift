import FoundationEssentials

/// How one widget kind's timeline entries are written to a replayable message log and read
/// back (`--record-messages FILE`, `snapshot --replay FILE`).
///
/// Entries travel as `any TimelineEntry`, which nothing can decode: the log writes the codec's
/// `name` next to an answer's entries and finds the codec by that name to read them again.
/// A widget's definition names its entry type once (`WidgetDefinition.entryType(_:)`); the
/// host's own minute timeline has `minute`.
public struct TimelineEntryCodec: Sendable {
    /// Written with the entries; the kind for a widget's, `host.minute` for the host's own.
    public let name: String
    private let isEntry: @Sendable (any TimelineEntry) -> Bool
    private let encodeEntry: @Sendable (any TimelineEntry, any Encoder) throws -> Void
    private let decodeEntry: @Sendable (any Decoder) throws -> any TimelineEntry

    public init<Entry: TimelineEntry & Codable>(name: String, _: Entry.Type) {
        self.name = name
        isEntry = { $0 is Entry }
        encodeEntry = { entry, encoder in
            guard let entry = entry as? Entry else {
                throw EncodingError.invalidValue(entry, .init(codingPath: encoder.codingPath,
                                                              debugDescription: "not an entry of \(name)"))
            }
            try entry.encode(to: encoder)
        }
        decodeEntry = { decoder in
            let entry = try Entry(from: decoder)
            return (entry as? any BoundedEntry)?.bounded() ?? entry
        }
    }

    /// Whether `entry` is of this codec's type.
    public func handles(_ entry: any TimelineEntry) -> Bool { isEntry(entry) }

    public func encode(_ entry: any TimelineEntry, to encoder: any Encoder) throws { try encodeEntry(entry, encoder) }

    public func decode(from decoder: any Decoder) throws -> any TimelineEntry { try decodeEntry(decoder) }

    /// The host's minute timeline (the status bar's clock).
    public static let minute = TimelineEntryCodec(name: "host.minute", MinuteEntry.self)
}

/// An entry type with values its provider never makes but a file can say (a count below
/// zero, a board the decoder would refuse): a message log's entries are brought back in
/// bounds (`bounded()`) before a view draws them.
public protocol BoundedEntry: TimelineEntry {
    /// The entry with every value a view relies on brought back in bounds.
    func bounded() -> Self
}
