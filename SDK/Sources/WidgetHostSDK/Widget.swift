import ExtensionProtocol
import FoundationEssentials

/// One widget kind of the extension, as the runner serves it (made by `StaticConfiguration`).
public protocol WidgetConfiguration: Sendable {
    var handler: WidgetHandler { get }
}

/// What the runner calls for one kind: its timeline, snapshot and placeholder as JSON, its
/// actions and its session events.
public struct WidgetHandler: Sendable {
    let kind: String
    let timeline: @Sendable (TimelineProviderContext) async -> JSON
    let snapshot: @Sendable (TimelineProviderContext) async -> JSON
    let placeholder: @Sendable (TimelineProviderContext) -> JSON
    var actions: [(key: String?, perform: @Sendable (ActionContext) async throws -> Void)] = []
    var sessions: [(matching: @Sendable (String) -> Bool, handle: @Sendable (String, [SessionEvent]) async -> Void)] = []
    /// The pickers of its dynamic options, by option name (`onOptions`).
    var options: [String: @Sendable (OptionsQuery) async throws -> [OptionItem]] = [:]
}

/// An action key pressed on a panel of the kind.
public struct ActionContext: Sendable {
    /// The key (`c`).
    public var key: String
    public var instance: String
    public var options: Options
}

/// A kind served by a `TimelineProvider`, its entries drawn by `content` (WidgetKit's
/// `StaticConfiguration(kind:provider:content:)`).
///
/// ```swift
/// StaticConfiguration(kind: "hello", provider: Provider()) { entry in
///     Text("Hello").role(.accent).bold()
///     Text(entry.date.ISO8601Format()).role(.muted)
/// }
/// .onAction("c") { action in … }
/// ```
public struct StaticConfiguration<Provider: TimelineProvider>: WidgetConfiguration {
    public var handler: WidgetHandler

    /// - Parameter content: the entry's view; several views are stacked top to bottom.
    public init(kind: String, provider: Provider,
                @ViewBuilder content: @escaping @Sendable (Provider.Entry, TimelineProviderContext) -> [any View]) {
        @Sendable func entry(_ entry: Provider.Entry, _ context: TimelineProviderContext) -> JSON {
            Self.entryJSON(entry, view: Self.single(content(entry, context)))
        }
        handler = WidgetHandler(
            kind: kind,
            timeline: { context in
                let timeline = await provider.timeline(in: context)
                return .object([
                    (TimelineResultMember.entries.rawValue, .array(timeline.entries.prefix(ExtensionProtocol.maximumEntries).map { entry($0, context) })),
                    (TimelineResultMember.policy.rawValue, Self.policyJSON(timeline.policy)),
                ])
            },
            snapshot: { context in
                .object([(SnapshotResultMember.entry.rawValue, entry(await provider.snapshot(in: context), context))])
            },
            placeholder: { context in Self.single(content(provider.placeholder(in: context), context)) })
    }

    /// `content` without the context: `{ entry in … }`.
    public init(kind: String, provider: Provider, @ViewBuilder content: @escaping @Sendable (Provider.Entry) -> [any View]) {
        self.init(kind: kind, provider: provider) { entry, _ in content(entry) }
    }

    /// Handles the manifest's action `key` (nil: every key without a handler of its own).
    /// Throwing answers with an error, shown on the panel as the action's failure; after a
    /// success the host asks the panel for a new timeline.
    public func onAction(_ key: String? = nil, perform: @escaping @Sendable (ActionContext) async throws -> Void) -> Self {
        var copy = self
        copy.handler.actions.append((key, perform))
        return copy
    }

    /// Handles the events of the downloads this kind started (WidgetKit's
    /// `onBackgroundURLSessionEvents`): the host relaunches the extension for them if needed.
    /// Return once the files are read: the answer is the completion handler, after which the
    /// host removes them.
    public func onBackgroundSessionEvents(matching: @escaping @Sendable (String) -> Bool = { _ in true },
                                          _ handle: @escaping @Sendable (_ identifier: String, _ events: [SessionEvent]) async -> Void) -> Self {
        var copy = self
        copy.handler.sessions.append((matching, handle))
        return copy
    }

    static func single(_ views: [any View]) -> JSON {
        views.count == 1 ? views[0].json : VStack { views }.json
    }

    static func entryJSON(_ entry: Provider.Entry, view: JSON) -> JSON {
        var members: [(String, JSON)] = [(EntryMember.date.rawValue, .string(entry.date.ISO8601Format()))]
        if let relevance = entry.relevance {
            // Finite and within what the host accepts, or the whole timeline would be refused.
            let score = relevance.score.isFinite ? min(max(relevance.score, -1e9), 1e9) : 0
            let duration = relevance.duration.isFinite ? min(max(0, relevance.duration), 1e9) : 0
            members.append((EntryMember.relevance.rawValue, ["score": .double(score), "duration": .double(duration)]))
        }
        members.append((EntryMember.view.rawValue, view))
        return .object(members)
    }

    static func policyJSON(_ policy: TimelineReloadPolicy) -> JSON {
        switch policy {
        case .atEnd: .string(PolicyWord.atEnd.rawValue)
        case .never: .string(PolicyWord.never.rawValue)
        case .after(let date): .object([(PolicyWord.after.rawValue, .string(date.ISO8601Format()))])
        }
    }
}

/// The kinds of an extension (WidgetKit's `WidgetBundle`): mark the type `@main` and it
/// speaks the protocol on stdin and stdout.
///
/// ```swift
/// @main
/// struct Clocks: WidgetBundle {
///     var body: [any WidgetConfiguration] {
///         StaticConfiguration(kind: "hello", provider: Provider()) { entry in Text("Hello") }
///     }
/// }
/// ```
public protocol WidgetBundle {
    init()
    @WidgetBundleBuilder var body: [any WidgetConfiguration] { get }
}

extension WidgetBundle {
    /// Serves the kinds until stdin ends or the host asks to `shutdown`; with `--placeholder
    /// KIND`, prints the kind's placeholder view (for the manifest) and exits.
    public static func main() {
        ExtensionRunner(widgets: Self().body.map(\.handler)).run(arguments: CommandLine.arguments)
    }
}

@resultBuilder
public enum WidgetBundleBuilder {
    public static func buildExpression(_ widget: any WidgetConfiguration) -> [any WidgetConfiguration] { [widget] }
    public static func buildBlock(_ parts: [any WidgetConfiguration]...) -> [any WidgetConfiguration] { parts.flatMap { $0 } }
}
