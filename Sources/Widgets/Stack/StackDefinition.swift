import JSONTree
import WidgetCore

/// A container kind as the host sees it: its manifest (`widgets`, `check-config`, kind hints)
/// and its config rules — where its members are written, how many, which keys they may not
/// have, the family they share, what a stack of one is. `ConfigValidator` walks the config
/// and asks; the messages are the stack's own.
///
/// One meaning of "is a stack" (`isStack(memberCount:)`): a panel showing more than one
/// widget, one at a time. A configured stack of one is validated into its widget, with a
/// warning (`folds`), so the config, `snapshot` and the live dashboard agree on it.
public struct StackDefinition: Sendable {
    public var manifest: WidgetManifest
    /// Most widgets one stack holds.
    public var maximumMembers: Int
    /// The config key holding its members.
    public var membersKey = "panels"
    /// The config key that turns relevance rotation off (`"smartRotate": false`, WidgetKit's
    /// Smart Rotate switch): the stack shows its first member until flipped by hand.
    public var smartRotateKey = "smartRotate"

    public init(manifest: WidgetManifest, maximumMembers: Int) {
        self.manifest = manifest
        self.maximumMembers = maximumMembers
    }

    /// Whether a panel of `memberCount` widgets is a stack: shown one at a time under the
    /// shown one's title row, with its position ("2/3"), rotated by relevance, flipped by
    /// `[` `]`. A panel of one widget is that widget.
    public static func isStack(memberCount: Int) -> Bool { memberCount > 1 }

    /// The keys a stack panel may have; a member may not have `family` or `membersKey`.
    public var keys: [String] { ["kind", "family", "title", membersKey, smartRotateKey] }

    /// What `widgets` says of its members.
    public var membersDoc: String { "\"\(membersKey)\": the widgets, each with kind and options" }

    /// The title of a stack without one: its members' titles (each its `title`, else its
    /// kind's title option, else its display name) joined by " · ": "Top rangers · Asia/Tokyo".
    public static func title(ofMembers titles: [String]) -> String { titles.joined(separator: " · ") }

    /// The member elements written at `path` (`membersKey`); none, and the reason added to
    /// `problems`, when they are missing, empty, too many or not an array.
    public func members(_ value: JSONValue?, at path: ConfigPath, problems: inout [ConfigDiagnostic]) -> [JSONValue] {
        let problem: String
        switch value {
        case nil:
            problem = "missing required key: the panels of the stack"
        case .array(let elements)? where elements.isEmpty:
            problem = "expected at least one panel in the stack, got an empty array"
        case .array(let elements)? where elements.count > maximumMembers:
            problem = "expected at most \(maximumMembers) panels in a stack, got \(elements.count)"
        case .array(let elements)?:
            return elements
        case let other?:
            problem = "expected an array of panels, got \(other.shortDescription)"
        }
        problems.append(ConfigDiagnostic(path: path, message: problem))
        return []
    }

    /// A stack of `count` valid members becomes its only member (the stack's family, its
    /// title if it has one): the warning to give, at the members' `path`; nil for a stack.
    public func folds(memberCount count: Int, at path: ConfigPath) -> ConfigDiagnostic? {
        guard count == 1 else { return nil }
        return ConfigDiagnostic(path: path,
            message: "a stack of one panel is shown as that panel; add panels to rotate, or write it without the stack")
    }

    // MARK: The stack's messages

    /// A stack (its kind, or its members key) inside a stack.
    public func nested(at path: ConfigPath) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, message: "a stack cannot contain another stack")
    }

    /// `options` on a stack.
    public func options(at path: ConfigPath) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, message: "a stack has no options; put options on the panels inside it")
    }

    /// `family` on a member.
    public func memberFamily(at path: ConfigPath) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, message: "a panel in a stack takes the stack's family; remove 'family'")
    }

    /// `membersKey` on a panel that is not a stack.
    public func membersOutside(at path: ConfigPath) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, message: "only a stack has '\(membersKey)'; use \"kind\": \"\(manifest.kind)\"")
    }

    /// A member whose kind does not support the stack's family.
    public func unsupported(_ member: WidgetManifest, family: WidgetFamily, at path: ConfigPath) -> ConfigDiagnostic {
        ConfigDiagnostic(path: path, message: "'\(member.kind)' does not support its stack's family '\(family)'; it supports "
                         + member.supportedFamilies.map(\.rawValue).joined(separator: ", "))
    }
}
