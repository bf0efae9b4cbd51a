/// What an entry asks the user to look at (DESIGN.md §11): a level and a short text. An
/// extension sends it in an entry (`"alert": {"level": "warning", "text": "disk 93% full"}`);
/// a built-in computes it from its entry and options (`WidgetConfiguration.alerting`).
///
/// The host acts on a panel's alert when it starts or its level rises (edge-triggered): the
/// border takes the level's role, an event is recorded, the config's `notify` settings act.
public struct EntryAlert: Sendable, Equatable, Codable {
    public enum Level: String, Sendable, Equatable, Codable, CaseIterable, Comparable {
        case warning, critical

        public static func < (a: Level, b: Level) -> Bool { a == .warning && b == .critical }
    }

    /// The longest text kept (characters); longer is cut.
    public static let maximumText = 200

    public var level: Level
    public var text: String

    public init(level: Level, text: String) {
        self.level = level
        self.text = String(text.prefix(Self.maximumText))
    }
}

extension WidgetConfiguration {
    /// This widget with `rule` deciding the alert of each entry it shows, from the entry and
    /// the panel's options (nil: none). Runs on the loop for the entry shown: keep it cheap.
    public func alerting(_ rule: @escaping @Sendable (any TimelineEntry, WidgetOptions) -> EntryAlert?) -> Self {
        var copy = self
        copy.alertRule = rule
        return copy
    }

    /// The alert the entry carries, by this widget's rule.
    public func alert(for entry: any TimelineEntry, options: WidgetOptions) -> EntryAlert? { alertRule?(entry, options) }
}
