import Synchronization

/// What the widgets bound with one `WidgetContext` share: one object of each type, made on
/// first use. The leaderboard's panels register their sessions in a registry `hero` reads;
/// keeping it here means neither `WidgetDefinition` nor the host names a widget's type.
public final class WidgetSharedObjects: Sendable {
    private let objects = Mutex<[ObjectIdentifier: any Sendable]>([:])

    public init() {}

    /// The one `T` of this context, made by `make` the first time it is asked for.
    public func object<T: AnyObject & Sendable>(_ type: T.Type = T.self, make: () -> T) -> T {
        objects.withLock { objects in
            if let existing = objects[ObjectIdentifier(type)] as? T { return existing }
            let made = make()
            objects[ObjectIdentifier(type)] = made
            return made
        }
    }
}
