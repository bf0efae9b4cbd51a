import WidgetCore
import Widgets

/// The widget kinds this host offers, each a `WidgetDefinition` (manifest + how to build it).
///
/// Made once in `main` (`Catalog.builtin()`) and passed to every command: the config
/// validator, `widgets`, `check-config`, `preview`, `--help` and the dashboard all read the
/// kinds from here. A repeated kind keeps the first.
public struct Catalog: Sendable {
    public let definitions: [WidgetDefinition]
    /// The container kind (the Smart Stack): its manifest and config rules.
    public let stack: StackDefinition

    public init(_ definitions: [WidgetDefinition], stack: StackDefinition = BuiltinWidgets.stack) {
        var seen: Set<String> = []
        self.definitions = definitions.filter { seen.insert($0.manifest.kind).inserted }
        self.stack = stack
    }

    /// The built-in widgets and the stack (`BuiltinWidgets`, in the Widgets module: adding a
    /// kind is its folder there and one line in that list), then the host's own panels
    /// (`HostPanels`: `activities`, `events`).
    public static func builtin() -> Catalog {
        Catalog(BuiltinWidgets.definitions + HostPanels.definitions, stack: BuiltinWidgets.stack)
    }

    /// This catalogue followed by `more` (extension kinds, `NAME/KIND`); a kind already
    /// present keeps the first.
    public func adding(_ more: [WidgetDefinition]) -> Catalog {
        Catalog(definitions + more, stack: stack)
    }

    /// The manifests, in catalogue order.
    public var manifests: [WidgetManifest] { definitions.map(\.manifest) }

    public func manifest(kind: String) -> WidgetManifest? {
        definitions.first { $0.manifest.kind == kind }?.manifest
    }

    /// The validator for configs of this catalogue's kinds.
    ///
    /// - Parameter isKnownTimeZone: nil uses the system's tz database.
    public func validator(isKnownTimeZone: (@Sendable (String) -> Bool)? = nil) -> ConfigValidator {
        ConfigValidator(manifests: manifests, stack: stack, isKnownTimeZone: isKnownTimeZone)
    }

    /// Every widget bound to the host's context, each granted its definition's uses; they
    /// share the one context (what widgets share with each other, such as the sessions the
    /// leaderboard's panels hold, is the context's: the host names none of it).
    public func bind(_ context: WidgetContext = .none) -> BoundWidgets {
        BoundWidgets(widgets: definitions.map { $0.widget(context) })
    }
}

/// The catalogue's widgets bound to one host's context (sessions, state, center, clock).
public struct BoundWidgets: Sendable {
    public var widgets: [TerminalWidget]

    public init(widgets: [TerminalWidget]) { self.widgets = widgets }

    public func widget(kind: String) -> TerminalWidget? { widgets.first { $0.kind == kind } }
}

extension BoundWidgets: Equatable {
    /// Bound widgets are the same when they hold the same kinds in the same order (a widget
    /// is closures, with no equality of its own): what a `.widgetsFound` message compares by.
    public static func == (a: Self, b: Self) -> Bool { a.widgets.map(\.kind) == b.widgets.map(\.kind) }
}
