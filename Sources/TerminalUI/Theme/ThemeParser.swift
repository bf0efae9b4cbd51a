import FoundationEssentials
import JSONTree

/// Validates theme JSON and builds a `Theme`, collecting every problem with its key path.
enum ThemeParser {
    static let colourExpectation = #"expected #rrggbb, a colour name, 0-255 or "default""#

    /// Parses theme text; `fallback` supplies roles the file leaves out.
    static func parse(_ text: String, file: String, fallback: Theme? = .default) throws(ThemeError) -> Theme {
        try parse(Data(text.utf8), file: file, fallback: fallback)
    }

    static func parse(_ data: Data, file: String, fallback: Theme? = .default) throws(ThemeError) -> Theme {
        let root: JSONValue
        do {
            root = try JSONParser(maximumBytes: 256 * 1024, maximumDepth: 8).parse([UInt8](data))
        } catch {
            throw ThemeError(file: file, message: "not valid JSON (\(error))")
        }
        guard case let .object(top) = root else {
            throw ThemeError(file: file, message: "expected a JSON object, found \(root.shortDescription)")
        }
        var issues: [ThemeError.Issue] = []
        var name = (file.split(separator: "/").last.map(String.init) ?? file)
        if name.hasSuffix(".json") { name.removeLast(5) }
        var colors: [StyleRole: ThemeColor] = [:]
        var attributes: [StyleRole: CellAttributes] = [:]
        for (key, value) in top.members {
            switch key {
            case "name", "description":
                guard case let .string(s) = value else {
                    issues.append(.init(keyPath: key, message: "expected a string, found \(value.shortDescription)"))
                    continue
                }
                if key == "name" { name = s }
            case "colors":
                for (role, item) in roles(value, key: key, issues: &issues) {
                    if case let .string(s) = item, let color = ThemeColor(parsing: s) {
                        colors[role] = color
                    } else if case let .integer(n) = item, (0...255).contains(n) {
                        colors[role] = .indexed(n)
                    } else {
                        issues.append(.init(keyPath: "\(key).\(role.rawValue)", message: "\(item.shortDescription) is not a colour (\(colourExpectation))"))
                    }
                }
            case "attributes":
                for (role, item) in roles(value, key: key, issues: &issues) {
                    let path = "\(key).\(role.rawValue)"
                    guard case let .array(list) = item else {
                        issues.append(.init(keyPath: path, message: "expected an array of attribute names, found \(item.shortDescription)"))
                        continue
                    }
                    var set: CellAttributes = []
                    for (i, entry) in list.enumerated() {
                        if case let .string(s) = entry, let found = CellAttributes.named.first(where: { $0.name == s }) {
                            set.insert(found.value)
                        } else {
                            issues.append(.init(keyPath: "\(path)[\(i)]", message: "\(entry.shortDescription) is not an attribute (expected bold, dim, reverse or underline)"))
                        }
                    }
                    attributes[role] = set
                }
            default:
                issues.append(.init(keyPath: printable(key), message: "unknown key (expected name, description, colors, attributes)"))
            }
        }
        guard issues.isEmpty else { throw ThemeError(file: file, issues: issues) }
        return Theme(name: name, colors: colors, attributes: attributes, fallback: fallback)
    }

    /// A key from the file as it may be printed: plain identifiers as they are, anything else
    /// (controls, bidi overrides, a 10,000-character key) quoted, escaped and cut to 40.
    static func printable(_ key: String) -> String {
        let plain = key.utf8.count <= 40 && !key.isEmpty
            && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
        return plain ? key : JSONValue.quoted(key, limit: 40)
    }

    /// The entries of an object keyed by role names, reporting non-objects and unknown roles.
    private static func roles(_ value: JSONValue, key: String, issues: inout [ThemeError.Issue]) -> [(StyleRole, JSONValue)] {
        guard case let .object(entries) = value else {
            issues.append(.init(keyPath: key, message: "expected an object keyed by role, found \(value.shortDescription)"))
            return []
        }
        var result: [(StyleRole, JSONValue)] = []
        for (roleName, item) in entries.members {
            if let role = StyleRole(rawValue: roleName) {
                result.append((role, item))
            } else {
                issues.append(.init(keyPath: "\(key).\(printable(roleName))", message: "unknown role (expected one of \(StyleRole.allCases.map(\.rawValue).joined(separator: ", ")))"))
            }
        }
        return result
    }
}
