import WidgetCore

/// Options of `widgethost preview KIND`, which shows a widget's timeline entry by entry.
public struct PreviewOptions: Sendable, Equatable {
    /// Most entries `--count` may ask for.
    public static let countBounds = 1...1000

    /// The widget kind to preview (checked against the registered kinds later).
    public var kind: String
    /// `--family`; nil means the kind's default family.
    public var family: WidgetFamily?
    /// `--count N`: how many entries to show; nil lets the host decide.
    public var count: Int?
    /// `--option K=V`, in command-line order, each name at most once.
    public var options: [OptionAssignment]
    /// `--snapshot`: show the one entry a gallery shows (the provider's snapshot), not the timeline.
    public var snapshot: Bool
    /// `--extensions-dir DIR`: searched for extensions first.
    public var extensionsDirectory: String?

    public init(kind: String, family: WidgetFamily? = nil, count: Int? = nil, options: [OptionAssignment] = [],
                snapshot: Bool = false, extensionsDirectory: String? = nil) {
        self.kind = kind
        self.snapshot = snapshot
        self.extensionsDirectory = extensionsDirectory
        self.family = family
        self.count = count
        self.options = options
    }
}
