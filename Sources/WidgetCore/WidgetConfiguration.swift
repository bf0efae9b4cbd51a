import FoundationEssentials

/// Everything the host needs to know about one widget kind, as WidgetKit's
/// `StaticConfiguration`: its kind, name, families, how to make its provider and its view.
///
/// WidgetCore knows nothing of terminals, so the view's output type is a parameter: the
/// terminal front end uses a type that draws into its cell buffer. `makeProvider` receives
/// the panel's options (already validated by the config layer) and may throw (with a message
/// for the user) for options that only make sense together. What the host lends a widget
/// (clock, center, state, sessions) is not WidgetCore's: the widget's definition receives it
/// once, as one `WidgetContext` (module Widgets), and its factory closes over it
/// (docs/decisions.md, "One context").
public struct WidgetConfiguration<View: Sendable>: Sendable {
    /// What the widget declares about itself: kind, names, families, options, pausing.
    public var manifest: WidgetManifest
    public var makeProvider: @Sendable (WidgetOptions) throws -> AnyTimelineProvider
    /// Turns an entry into what the front end shows.
    public var view: @Sendable (any TimelineEntry, WidgetViewContext) -> View
    /// Handlers for background-session events, tried in order (see `onBackgroundSessionEvents`).
    public var backgroundSessionHandlers: [BackgroundSessionEventsHandler] = []
    /// How the manifest's actions are performed, by key (see `action(_:_:)`).
    public var actionPerformers: [String: WidgetActionPerform] = [:]
    /// What alert an entry carries (`alerting(_:)`, EntryAlert.swift); nil: none ever.
    public var alertRule: (@Sendable (any TimelineEntry, WidgetOptions) -> EntryAlert?)?
    /// The URL a restarted host resumes this widget's unfinished background task with (see
    /// `resumingBackgroundTasks(with:)`); nil: its tasks stay suspended.
    public var backgroundTaskResumeURL: (@Sendable (_ sessionIdentifier: String, _ taskDescription: String?) -> URL?)?
    /// The values of its `dynamic` options, for the Edit Widget form's picker (see
    /// `dynamicOptions(_:)`); nil: none.
    public var optionsProvider: DynamicOptionsProvider?

    /// Stable identifier used in configs and by `WidgetCenter.reloadTimelines(ofKind:)`.
    public var kind: String { manifest.kind }
    public var displayName: String { manifest.displayName }
    public var description: String { manifest.description }
    public var supportedFamilies: [WidgetFamily] { manifest.supportedFamilies }
    /// False for a widget whose timelines are computed locally (a clock): its reloads go on
    /// while the user pauses automatic reloads.
    public var pausesWithAutomaticReloads: Bool {
        get { manifest.pausesWithAutomaticReloads }
        set { manifest.pausesWithAutomaticReloads = newValue }
    }

    public init(
        manifest: WidgetManifest,
        makeProvider: @escaping @Sendable (WidgetOptions) throws -> AnyTimelineProvider,
        view: @escaping @Sendable (any TimelineEntry, WidgetViewContext) -> View
    ) {
        self.manifest = manifest
        self.makeProvider = makeProvider
        self.view = view
    }

    /// A widget without options (tests, probes): the manifest is made of these fields.
    public init(
        kind: String,
        displayName: String,
        description: String = "",
        supportedFamilies: [WidgetFamily] = WidgetFamily.allCases,
        makeProvider: @escaping @Sendable (WidgetOptions) throws -> AnyTimelineProvider,
        view: @escaping @Sendable (any TimelineEntry, WidgetViewContext) -> View
    ) {
        self.init(manifest: WidgetManifest(kind: kind, displayName: displayName, description: description,
                                           supportedFamilies: supportedFamilies,
                                           defaultFamily: supportedFamilies.first ?? .small),
                  makeProvider: makeProvider, view: view)
    }
}

extension WidgetConfiguration {
    /// Handles the events of background sessions whose identifier is `identifier`, as
    /// WidgetKit's `onBackgroundURLSessionEvents(matching:_:)`.
    ///
    /// The handler receives the session identifier and a completion. It should get (or
    /// re-create) its session by that identifier so the session manager can deliver the
    /// delegate callbacks, save what it needs, reload through `WidgetCenter`, and then call the
    /// completion — only then are the events acknowledged in the journal. A host killed before
    /// the completion delivers the events again on its next start.
    public func onBackgroundSessionEvents(
        matching identifier: String,
        _ handler: @escaping BackgroundSessionEventsHandler.Handler
    ) -> Self {
        var copy = self
        copy.backgroundSessionHandlers.append(BackgroundSessionEventsHandler(matcher: .identifier(identifier), handler: handler))
        return copy
    }

    /// Handles the events of background sessions whose identifier satisfies `predicate`.
    public func onBackgroundSessionEvents(
        matching predicate: @escaping @Sendable (String) -> Bool,
        _ handler: @escaping BackgroundSessionEventsHandler.Handler
    ) -> Self {
        var copy = self
        copy.backgroundSessionHandlers.append(BackgroundSessionEventsHandler(matcher: .predicate(predicate), handler: handler))
        return copy
    }

    /// Gives the URL to resume an unfinished task of a session with (the one the widget is
    /// configured with now), or nil when the session is not this widget's: a host restarted
    /// after a crash asks each widget (`BackgroundSessionManager.resumeURL(for:)`).
    public func resumingBackgroundTasks(
        with url: @escaping @Sendable (_ sessionIdentifier: String, _ taskDescription: String?) -> URL?
    ) -> Self {
        var copy = self
        copy.backgroundTaskResumeURL = url
        return copy
    }

    /// The first handler that matches `identifier`, if any.
    public func backgroundSessionHandler(for identifier: String) -> BackgroundSessionEventsHandler? {
        backgroundSessionHandlers.first { $0.matches(identifier) }
    }
}

/// A widget's handler for the events of matching background sessions.
public struct BackgroundSessionEventsHandler: Sendable {
    /// Receives the session identifier and the completion to call once the events are handled.
    public typealias Handler = @Sendable (_ identifier: String, _ completion: @escaping @Sendable () -> Void) -> Void

    public enum Matcher: Sendable {
        case identifier(String)
        case predicate(@Sendable (String) -> Bool)
    }

    public var matcher: Matcher
    public var handler: Handler

    public init(matcher: Matcher, handler: @escaping Handler) {
        self.matcher = matcher
        self.handler = handler
    }

    public func matches(_ identifier: String) -> Bool {
        switch matcher {
        case .identifier(let id): id == identifier
        case .predicate(let p): p(identifier)
        }
    }
}

/// A panel's options, as validated values keyed by option name (the config validator makes
/// them from the widget's manifest; lists, maps and lists of objects keep their shape).
public struct WidgetOptions: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case number(Double)
        case bool(Bool)
        /// A list (`stringList`: strings; `objectList`: objects).
        case list([Value])
        /// An object (`stringMap`: string values; an element of an `objectList`).
        case object([String: Value])
    }

    public var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public subscript(name: String) -> Value? { values[name] }

    public func string(_ name: String) -> String? {
        if case .string(let s) = values[name] { return s }
        return nil
    }

    public func integer(_ name: String) -> Int? {
        switch values[name] {
        case .integer(let i): i
        case .number(let d) where d.rounded() == d && abs(d) < 1e15: Int(d)
        default: nil
        }
    }

    public func number(_ name: String) -> Double? {
        switch values[name] {
        case .number(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }

    public func bool(_ name: String) -> Bool? {
        if case .bool(let b) = values[name] { return b }
        return nil
    }

    /// A `stringList` option's strings.
    public func strings(_ name: String) -> [String]? {
        guard case .list(let items) = values[name] else { return nil }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// A `stringMap` option's entries.
    public func stringMap(_ name: String) -> [String: String]? {
        guard case .object(let members) = values[name] else { return nil }
        return members.compactMapValues { if case .string(let s) = $0 { s } else { nil } }
    }

    /// An `objectList` option's objects, each as the options of its own schema.
    public func objects(_ name: String) -> [WidgetOptions]? {
        guard case .list(let items) = values[name] else { return nil }
        return items.compactMap { if case .object(let members) = $0 { WidgetOptions(members) } else { nil } }
    }
}

/// What a view knows when it renders an entry.
public struct WidgetViewContext: Sendable, Equatable {
    public var family: WidgetFamily
    public var size: CellSize
    /// True while the placeholder is shown: the view should draw its redacted look.
    public var isPlaceholder: Bool
    /// How the host draws colours (WidgetKit's `widgetRenderingMode`): a view may mark
    /// what matters accentable, or say with a glyph what colour says in `fullColor`.
    public var renderingMode: WidgetRenderingMode

    public init(family: WidgetFamily, size: CellSize, isPlaceholder: Bool = false, renderingMode: WidgetRenderingMode = .fullColor) {
        self.family = family
        self.size = size
        self.isPlaceholder = isPlaceholder
        self.renderingMode = renderingMode
    }
}
