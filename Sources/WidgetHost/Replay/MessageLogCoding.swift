import FoundationEssentials
import WidgetCore
import Widgets

/// What writing and reading a message log's lines needs beyond the lines: the codecs of the
/// entry types (by the name written next to an answer's entries) and, to read panels back,
/// the widgets of each kind (their views draw the entries).
///
/// Passed to the coders in `userInfo` (`key`); the catalogue gives both.
struct MessageLogCoding: Sendable {
    static let key = CodingUserInfoKey(rawValue: "widgethost.messageLog")!

    let codecs: [TimelineEntryCodec]
    /// The widget of a kind, bound to no host (a replay never calls a provider; the views
    /// draw what the log holds); nil for a kind this catalogue lacks.
    let widget: @Sendable (String) -> TerminalWidget?

    /// Checks a log's configs as config files are checked (nil: a config cannot be read back).
    let validator: ConfigValidator?

    init(codecs: [TimelineEntryCodec], widget: @escaping @Sendable (String) -> TerminalWidget? = { _ in nil },
         validator: ConfigValidator? = nil) {
        self.codecs = codecs
        self.widget = widget
        self.validator = validator
    }

    /// The catalogue's entry types (and the host's minute), its widgets bound to nothing, its
    /// validator.
    init(catalog: Catalog) {
        self.init(codecs: catalog.definitions.compactMap(\.entryCodec) + [.minute], widget: { kind in
            catalog.definitions.first { $0.manifest.kind == kind }?.widget(.none)
        }, validator: catalog.validator())
    }

    /// The codec for `entry` (the first that takes its type).
    func codec(for entry: any TimelineEntry) -> TimelineEntryCodec? { codecs.first { $0.handles(entry) } }

    func codec(named name: String) -> TimelineEntryCodec? { codecs.first { $0.name == name } }

    /// The coding found in `userInfo`; a coder made without it is a programming error, said as
    /// a coding error rather than a crash.
    static func from(_ userInfo: [CodingUserInfoKey: Any], codingPath: [any CodingKey]) throws -> MessageLogCoding {
        guard let coding = userInfo[key] as? MessageLogCoding else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "no message log coding given"))
        }
        return coding
    }
}
