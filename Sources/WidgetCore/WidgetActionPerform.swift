import FoundationEssentials

/// How a widget performs one of its manifest's actions (`WidgetAction`).
///
/// The host runs a perform off its loop with the action's timeout, shows it running in the
/// panel, shows a failure there (and changes nothing else), and after a success reloads the
/// panel's timeline as a user's reload would (DESIGN.md §8 "Actions").
///
/// ```swift
/// widget.action("+") { context in try await heal(context.options.string("name")!) }
/// ```
public enum WidgetActionPerform: Sendable {
    /// Work off the loop: `perform` returns when the action is done and throws when it failed
    /// (the error's description is shown in the panel).
    case task(@Sendable (WidgetActionContext) async throws -> Void)
    /// A program that needs the terminal (`$EDITOR` on a file): the host gives the screen back
    /// as for Ctrl-Z, runs the program in the foreground, waits for it, then redraws. The
    /// closure returns its arguments (`argv[0]` is looked up in `PATH`) or throws why it cannot.
    case terminal(@Sendable (WidgetActionContext) throws -> [String])
}

/// What a perform knows: the key and the panel's options (what the host lends, the widget's
/// definition captured when it was bound).
public struct WidgetActionContext: Sendable {
    /// The key pressed.
    public var key: String
    /// The panel's validated options.
    public var options: WidgetOptions

    public init(key: String, options: WidgetOptions) {
        self.key = key
        self.options = options
    }
}

/// An action that failed, with the words the panel shows.
public struct WidgetActionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension WidgetConfiguration {
    /// Performs the manifest's action `key` with `perform`.
    public func action(_ key: String, _ perform: WidgetActionPerform) -> Self {
        var copy = self
        copy.actionPerformers[key] = perform
        return copy
    }

    /// Performs the manifest's action `key` off the loop with `perform`.
    public func action(_ key: String, _ perform: @escaping @Sendable (WidgetActionContext) async throws -> Void) -> Self {
        action(key, .task(perform))
    }

    /// The manifest's actions the focused panel answers to: those with a perform, and the
    /// reload key's title.
    public var availableActions: [WidgetAction] {
        manifest.actions.filter { actionPerformers[$0.key] != nil || $0.key == WidgetAction.reloadKey }
    }
}
