import TerminalUI
import WidgetCore

/// Options of `widgethost extension run NAME/KIND`, which launches an extension, asks it for a
/// timeline (or a snapshot) and prints it.
public struct ExtensionRunOptions: Sendable, Equatable {
    /// `NAME/KIND` (checked against the discovered extensions later).
    public var kind: String
    /// `--family`; nil means the kind's default family.
    public var family: WidgetFamily?
    /// `--size COLSxROWS`: the content area sent as `size`; nil: the family's preview size.
    public var size: TerminalSize?
    /// `--count N`: entries drawn; nil: every entry up to `PreviewCommand.defaultCount`.
    public var count: Int?
    /// `--option K=V`, in command-line order, each name at most once.
    public var options: [OptionAssignment]
    /// `--snapshot`: send `snapshot` instead of `timeline`.
    public var snapshot: Bool
    /// `--extensions-dir DIR`: searched for extensions first.
    public var extensionsDirectory: String?
    /// `--debug`: echo every JSON-RPC message, both ways, to stderr.
    public var debug: Bool

    public init(kind: String, family: WidgetFamily? = nil, size: TerminalSize? = nil, count: Int? = nil,
                options: [OptionAssignment] = [], snapshot: Bool = false, extensionsDirectory: String? = nil,
                debug: Bool = false) {
        self.kind = kind
        self.family = family
        self.size = size
        self.count = count
        self.options = options
        self.snapshot = snapshot
        self.extensionsDirectory = extensionsDirectory
        self.debug = debug
    }
}
