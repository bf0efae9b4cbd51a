import JSONTree
import TerminalUI
import WidgetCore

/// Reads an `extension.json` strictly: unknown keys, wrong types, out-of-range limits,
/// unknown families, option types or view nodes are errors with their key path. Nothing in
/// a manifest is trusted: every string is bounded, every number range-checked.
///
/// ```swift
/// let manifest = try ExtensionManifestParser.parse(bytes, file: "/x/weather/extension.json",
///                                                  directory: "/x/weather")
/// ```
public enum ExtensionManifestParser {
    /// A manifest file is at most this big.
    public static let maximumBytes = 256 * 1024
    /// Names of extensions and kinds: a letter or digit, then letters, digits, `-`, `_`, `.`; 1…40.
    public static let maximumNameLength = 40
    public static let maximumWidgets = 32
    public static let maximumOptions = 64
    public static let maximumExecArguments = 64
    /// Longest string anywhere in a manifest (doc lines, paths, names).
    public static let maximumStringLength = 4096

    /// Parses and checks a manifest.
    ///
    /// - Parameters:
    ///   - file: the manifest's path, named in every error.
    ///   - directory: where it lies (the extension's working directory).
    /// - Throws: `ExtensionManifestError` with every problem found.
    public static func parse(_ bytes: [UInt8], file: String, directory: String) throws(ExtensionManifestError) -> ExtensionManifest {
        let value: JSONValue
        do {
            value = try JSONParser(maximumBytes: maximumBytes, maximumDepth: 2 * ViewNode.maximumDepth + 16).parse(bytes)
        } catch {
            throw ExtensionManifestError(file: file, issues: [.init(path: "", message: error.description)])
        }
        var reader = ManifestReader()
        let manifest = reader.manifest(value, file: file, directory: directory)
        guard let manifest, reader.issues.isEmpty else {
            throw ExtensionManifestError(file: file, issues: reader.reported)
        }
        return manifest
    }

    /// Whether `name` may name an extension or a kind.
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength else { return false }
        for (index, byte) in name.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                if index == 0 { return false }
            default:
                return false
            }
        }
        return true
    }
}

/// Walks a manifest's JSON, collecting every problem with its path.
struct ManifestReader {
    var issues: [ExtensionManifestError.Issue] = []
    var extra = 0

    var reported: [ExtensionManifestError.Issue] {
        guard extra > 0, !issues.isEmpty else { return issues }
        var kept = issues
        kept[kept.count - 1] = .init(path: kept[kept.count - 1].path, message: "and \(extra + 1) more problems")
        return kept
    }

    static let optionTypes = ["string", "integer", "number", "boolean", "enum", "url", "seconds", "timeZone",
                              "stringList", "stringMap", "objectList"]

    mutating func fail(_ path: String, _ message: String) {
        if issues.count < ExtensionManifestError.maximumIssues { issues.append(.init(path: path, message: message)) }
        else { extra += 1 }
    }

    static func join(_ path: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.count <= 40 && key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        if plain { return path.isEmpty ? key : path + "." + key }
        return path + "[" + JSONValue.quoted(key, limit: 40) + "]"
    }

    // MARK: Manifest

    mutating func manifest(_ value: JSONValue, file: String, directory: String) -> ExtensionManifest? {
        guard let top = object(value, path: "", known: ["name", "exec", "protocol", "description", "widgets", "limits"]) else {
            return nil
        }
        let name = self.name(top, "name", path: "")
        _ = string(top, "description", path: "")
        var exec: [String]?
        if top["exec"] == nil { fail("exec", "is required (the program and its arguments, e.g. [\"python3\", \"main.py\"])") }
        else if let list = strings(top, "exec", path: "", limit: ExtensionManifestParser.maximumExecArguments) {
            if list.isEmpty || list[0].isEmpty { fail("exec", "needs a program: a non-empty first element") }
            else { exec = list }
        }
        var protocolVersion: Int?
        switch top["protocol"] {
        case nil: fail("protocol", "is required (\(ExtensionManifest.supportedProtocols.upperBound) for this host)")
        case .integer(let version)? where ExtensionManifest.supportedProtocols.contains(version): protocolVersion = version
        case let other?:
            fail("protocol", "this host speaks protocol \(ExtensionManifest.supportedProtocols.lowerBound)…\(ExtensionManifest.supportedProtocols.upperBound), found \(other.shortDescription)")
        }
        let limits = top["limits"].map { self.limits($0) } ?? ExtensionLimits()
        var widgets: [ExtensionWidgetManifest] = []
        switch top["widgets"] {
        case nil: fail("widgets", "is required (at least one widget kind)")
        case .array(let elements)?:
            if elements.isEmpty { fail("widgets", "declares no widget kind") }
            if elements.count > ExtensionManifestParser.maximumWidgets {
                fail("widgets", "has \(elements.count) kinds; at most \(ExtensionManifestParser.maximumWidgets)")
            } else {
                var kinds: Set<String> = []
                for (index, element) in elements.enumerated() {
                    guard let widget = self.widget(element, path: "widgets[\(index)]", extensionName: name ?? "?") else { continue }
                    if !kinds.insert(widget.kind).inserted { fail("widgets[\(index)].kind", "kind '\(widget.kind)' is declared twice") }
                    widgets.append(widget)
                }
            }
        case let other?: fail("widgets", "expected an array of widget kinds, found \(other.shortDescription)")
        }
        guard let name, let exec, let protocolVersion, issues.isEmpty else { return nil }
        return ExtensionManifest(name: name, exec: exec, protocolVersion: protocolVersion, directory: directory, path: file,
                                 widgets: widgets, limits: limits)
    }

    mutating func limits(_ value: JSONValue) -> ExtensionLimits {
        var limits = ExtensionLimits()
        guard let object = object(value, path: "limits", known: ["requestSeconds", "idleExitSeconds", "memoryMiB", "cpuSeconds"]) else {
            return limits
        }
        if let n = integer(object, "requestSeconds", path: "limits", in: ExtensionLimits.requestSecondsRange) { limits.requestSeconds = n }
        if let n = integer(object, "idleExitSeconds", path: "limits", in: ExtensionLimits.idleExitSecondsRange) { limits.idleExitSeconds = n }
        if let n = integer(object, "memoryMiB", path: "limits", in: ExtensionLimits.memoryMiBRange) { limits.memoryMiB = n }
        if let n = integer(object, "cpuSeconds", path: "limits", in: ExtensionLimits.cpuSecondsRange) { limits.cpuSeconds = n }
        return limits
    }

    mutating func widget(_ value: JSONValue, path: String, extensionName: String) -> ExtensionWidgetManifest? {
        guard let object = object(value, path: path, known: [
            "kind", "displayName", "description", "families", "defaultFamily", "options", "titleOption",
            "usesNetwork", "pausesWithAutomaticReloads", "actions", "placeholder"]) else { return nil }
        let before = issues.count + extra
        let kind = name(object, "kind", path: path)
        let displayName = string(object, "displayName", path: path, required: true)
        let description = string(object, "description", path: path) ?? ""
        var families = WidgetFamily.allCases
        if let names = strings(object, "families", path: path, limit: 8) {
            var parsed: [WidgetFamily] = []
            for (index, name) in names.enumerated() {
                guard let family = WidgetFamily(rawValue: name) else {
                    fail("\(path).families[\(index)]", "unknown family \(JSONValue.string(name).shortDescription) (expected one of \(WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")))")
                    continue
                }
                if !parsed.contains(family) { parsed.append(family) }
            }
            if names.isEmpty { fail("\(path).families", "lists no family") }
            families = parsed
        }
        var defaultFamily = families.first ?? .small
        if let name = string(object, "defaultFamily", path: path) {
            if let family = WidgetFamily(rawValue: name), families.contains(family) { defaultFamily = family }
            else { fail("\(path).defaultFamily", "\(JSONValue.string(name).shortDescription) is not one of the kind's families") }
        }
        var options: [OptionSpec] = []
        if let value = object["options"] { options = self.options(value, path: path + ".options", nested: false) }
        let titleOption = string(object, "titleOption", path: path)
        if let titleOption, !options.contains(where: { $0.name == titleOption }) {
            fail("\(path).titleOption", "'\(titleOption)' is not one of the kind's options")
        }
        let usesNetwork = bool(object, "usesNetwork", path: path) ?? false
        let pauses = bool(object, "pausesWithAutomaticReloads", path: path) ?? true
        if usesNetwork, !pauses { fail("\(path).pausesWithAutomaticReloads", "a widget that uses the network pauses with automatic reloads") }
        var actions: [WidgetAction] = []
        switch object["actions"] {
        case nil: break
        case .array(let elements)? where elements.count <= 16:
            for (index, element) in elements.enumerated() {
                let at = "\(path).actions[\(index)]"
                guard let action = self.object(element, path: at, known: ["key", "title"]) else { continue }
                let key = string(action, "key", path: at, required: true)
                let title = string(action, "title", path: at, required: true)
                guard let key, let title else { continue }
                if key.count != 1 || key.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) {
                    fail(at + ".key", "expected one printable character, found \(JSONValue.string(key).shortDescription)")
                } else if actions.contains(where: { $0.key == key }) {
                    fail(at + ".key", "key '\(key)' is listed twice")
                } else if WidgetAction.reservedKeys.contains(key), key != WidgetAction.reloadKey {
                    fail(at + ".key", "'\(key)' is one of the host's own keys (q ? h j k l r R t p [ ] o 1-9); 'r' may only title the panel's reload")
                } else {
                    actions.append(WidgetAction(key: key, title: title))
                }
            }
        case let other?: fail("\(path).actions", "expected an array of at most 16 actions, found \(other.shortDescription)")
        }
        var placeholder: ViewNode?
        if let value = object["placeholder"] {
            do {
                placeholder = try ViewNode.decode(value, path: path + ".placeholder")
            } catch {
                for issue in error.issues { fail(issue.path, issue.message) }
            }
        }
        guard let kind, let displayName, issues.count + extra == before else { return nil }
        let manifest = WidgetManifest(
            kind: "\(extensionName)/\(kind)", displayName: displayName, description: description,
            supportedFamilies: families, defaultFamily: defaultFamily, options: options, titleOption: titleOption,
            pausesWithAutomaticReloads: pauses, usesNetwork: usesNetwork, actions: actions)
        return ExtensionWidgetManifest(kind: kind, manifest: manifest, placeholder: placeholder)
    }
}
