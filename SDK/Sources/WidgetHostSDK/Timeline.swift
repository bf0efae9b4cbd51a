import ExtensionProtocol
import FoundationEssentials

/// A widget's size class, as WidgetKit's `WidgetFamily`: the families of the protocol.
public typealias WidgetFamily = Family

/// One moment of a widget's timeline (WidgetKit's `TimelineEntry`): shown from `date` until
/// the next entry's.
public protocol TimelineEntry: Sendable {
    var date: Date { get }
    /// How much this entry matters now, for a Smart Stack (nil: not at all).
    var relevance: TimelineEntryRelevance? { get }
}

extension TimelineEntry {
    public var relevance: TimelineEntryRelevance? { nil }
}

/// WidgetKit's `TimelineEntryRelevance`: a score, held for `duration` seconds after the date.
public struct TimelineEntryRelevance: Sendable, Equatable {
    public var score: Double
    public var duration: Double

    public init(score: Double, duration: Double = 0) {
        self.score = score
        self.duration = duration
    }
}

/// When the host asks for the next timeline (WidgetKit's `TimelineReloadPolicy`).
public enum TimelineReloadPolicy: Sendable, Equatable {
    /// After the last entry's date.
    case atEnd
    /// Only when something asks (`r`, `WidgetCenter.reloadTimelines`).
    case never
    /// At that date.
    case after(Date)
}

/// Entries and a reload policy (WidgetKit's `Timeline`).
public struct Timeline<Entry: TimelineEntry>: Sendable {
    public var entries: [Entry]
    public var policy: TimelineReloadPolicy

    public init(entries: [Entry], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// What a provider is asked with (WidgetKit's `TimelineProviderContext`, plus the panel's
/// options and instance, which WidgetKit keeps in an intent).
public struct TimelineProviderContext: Sendable {
    public var family: WidgetFamily
    /// The panel's content area in cells.
    public var displaySize: (columns: Int, rows: Int)
    /// True for `widgethost preview` and every snapshot.
    public var isPreview: Bool
    /// True when the user asked (`r`, `R`, the reload after an action).
    public var isUserInitiated: Bool
    /// The panel's options, validated by the host against the manifest, defaults filled.
    public var options: Options
    /// Names the panel by its options (`hello#2`): key per-panel state by it.
    public var instance: String
    /// How the host draws colours (WidgetKit's `widgetRenderingMode`): `fullColor`,
    /// `accented` (mark what matters `.widgetAccentable()`) or `mono` (attributes only).
    public var renderingMode: WidgetRenderingMode

    public init(family: WidgetFamily, displaySize: (columns: Int, rows: Int), isPreview: Bool = false, isUserInitiated: Bool = false,
                options: Options = Options([:]), instance: String = "", renderingMode: WidgetRenderingMode = .fullColor) {
        self.renderingMode = renderingMode
        self.family = family
        self.displaySize = displaySize
        self.isPreview = isPreview
        self.isUserInitiated = isUserInitiated
        self.options = options
        self.instance = instance
    }
}

/// How the host draws colours, as the request's `renderingMode` says (an older host sends
/// none: `fullColor`).
public enum WidgetRenderingMode: String, Sendable, CaseIterable {
    case fullColor, accented, mono
}

/// A panel's options by name.
public struct Options: Sendable {
    public let values: JSON

    public init(_ values: JSON) { self.values = values }

    public subscript(name: String) -> JSON? { values[name] }
    public func string(_ name: String) -> String? { values[name]?.string }
    public func int(_ name: String) -> Int? { values[name]?.int }
    public func double(_ name: String) -> Double? { values[name]?.double }
    public func bool(_ name: String) -> Bool? { values[name]?.bool }
}

/// Supplies a widget's entries (WidgetKit's `TimelineProvider`, in its async form).
///
/// `placeholder` is not asked for by the host (the manifest holds the placeholder, drawn
/// without launching anything): run the extension with `--placeholder KIND` to print the
/// view to paste there.
public protocol TimelineProvider: Sendable {
    associatedtype Entry: TimelineEntry
    typealias Context = TimelineProviderContext

    /// A representative entry with no real data, drawn redacted while loading.
    func placeholder(in context: Context) -> Entry
    /// One entry that shows what the kind looks like, quickly (sample data is fine).
    func snapshot(in context: Context) async -> Entry
    /// The entries from now on and when to ask again.
    func timeline(in context: Context) async -> Timeline<Entry>
}
