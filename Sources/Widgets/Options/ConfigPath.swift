import JSONTree

/// Where a value sits in a config document, e.g. `panels[2].options.refreshSeconds`.
///
/// Keys that are not plain identifiers print quoted: `options["time zone"]`; long keys are
/// cut to 40 characters. The empty path
/// (the document itself) prints as `(top level)`.
public struct ConfigPath: Sendable, Hashable, CustomStringConvertible {
    /// One step into an object (by key) or an array (by index).
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document itself.
    public static let root = ConfigPath()

    /// This path followed by an object key.
    public func appending(key: String) -> ConfigPath {
        ConfigPath(components + [.key(key)])
    }

    /// This path followed by an array index.
    public func appending(index: Int) -> ConfigPath {
        ConfigPath(components + [.index(index)])
    }

    public var description: String {
        if components.isEmpty { return "(top level)" }
        var out = ""
        for component in components {
            switch component {
            case .index(let index):
                out += "[\(index)]"
            case .key(let key) where ConfigPath.isIdentifier(key) && key.utf8.count <= ConfigPath.keyLimit:
                out += out.isEmpty ? key : "." + key
            case .key(let key):
                out += "[\(JSONValue.quoted(key, limit: ConfigPath.keyLimit))]"
            }
        }
        return out
    }

    /// Keys longer than this print quoted and cut (a hostile file's 10,000-character key must
    /// not fill the terminal).
    static let keyLimit = 40

    static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }
}
