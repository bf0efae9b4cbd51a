import JSONTree
import WidgetCore

/// Writes a config document as the file the user reads: 2-space JSON in a stable key order.
///
/// Keys go in one fixed order whatever order they came in — the dashboard's settings before
/// its panels; a panel's `kind`, `family`, `title`, `area`, then `options` (in the order its
/// manifest declares them) and a stack's `panels` — so formatting a formatted file changes
/// nothing, and two saves of the same dashboard are the same bytes. Keys of values the config
/// does not describe (a header map, an `http-json` field) keep their document order. Arrays of
/// numbers and booleans (`"columns": [2, 1]`) stay on one line; the rest is one value a line.
///
/// ```swift
/// let text = ConfigFormatter(manifests: catalog.manifests).text(document)
/// ```
public struct ConfigFormatter: Sendable {
    private let optionOrder: [String: [String]]

    static let rootOrder = ["theme", "minimumReloadSeconds", "dailyReloadBudget", "rotateSeconds", "mouse", "notify",
                            "grid", "columns", "rows", "panels", "pages"]
    static let pageOrder = ["title", "grid", "columns", "rows", "panels"]
    static let panelOrder = ["kind", "family", "title", "area", "options", "smartRotate", "panels"]

    /// - Parameter manifests: the kinds whose options are put in their declared order.
    public init(manifests: [WidgetManifest]) {
        var order: [String: [String]] = [:]
        for manifest in manifests where order[manifest.kind] == nil {
            order[manifest.kind] = manifest.options.map(\.name)
        }
        optionOrder = order
    }

    /// What a key's value is in the config, which decides the order of its keys.
    private enum Role {
        case root, page, panel, options(kind: String?), plain
    }

    /// The document as file text, ending with a newline.
    public func text(_ document: JSONValue) -> String {
        var out = ""
        write(document, role: .root, indent: "", into: &out)
        return out + "\n"
    }

    private func write(_ value: JSONValue, role: Role, indent: String, into out: inout String) {
        switch value {
        case .object(let object):
            guard object.count > 0 else { out += "{}"; return }
            let inner = indent + "  "
            out += "{\n"
            for (index, member) in ordered(object, role: role).enumerated() {
                out += inner + JSONValue.quoted(member.key, limit: nil) + ": "
                write(member.value, role: childRole(of: member.key, in: role, object: object), indent: inner, into: &out)
                out += index == object.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            if elements.allSatisfy(Self.isShortScalar) {
                out += "[" + elements.map(\.jsonText).joined(separator: ", ") + "]"
                return
            }
            let inner = indent + "  "
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += inner
                write(element, role: role, indent: inner, into: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        default:
            out += value.jsonText
        }
    }

    private static func isShortScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .integer, .number, .bool, .null: true
        default: false
        }
    }

    /// The role of `key`'s value inside an object of `role` (array elements keep it).
    private func childRole(of key: String, in role: Role, object: JSONObject) -> Role {
        switch (role, key) {
        case (.root, "panels"), (.page, "panels"), (.panel, "panels"): return .panel
        case (.root, "pages"): return .page
        case (.panel, "options"):
            if case .string(let kind)? = object["kind"] { return .options(kind: kind) }
            return .options(kind: nil)
        default: return .plain
        }
    }

    private func ordered(_ object: JSONObject, role: Role) -> [(key: String, value: JSONValue)] {
        let order: [String]
        switch role {
        case .root: order = Self.rootOrder
        case .page: order = Self.pageOrder
        case .panel: order = Self.panelOrder
        case .options(let kind): order = kind.flatMap { optionOrder[$0] } ?? []
        case .plain: return object.members
        }
        let known = order.compactMap { key in object[key].map { (key: key, value: $0) } }
        return known + object.members.filter { !order.contains($0.key) }
    }
}
