import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost widgets`: lists the catalogue's widget kinds from their definitions — families,
/// options (type, default, doc, example), pause behaviour, push source, what each uses of the
/// host (`WidgetDefinition.uses`) and actions.
///
/// Lines are wrapped at spaces to `width` columns (a word longer than that stands alone).
public enum WidgetsCommand {
    /// The widest line of the listing, in columns.
    public static let width = 100

    /// The listing for `catalog`, in catalogue order, followed by its stack (`StackDefinition`).
    public static func run(catalog: Catalog) -> CommandOutput {
        var out = ""
        for definition in catalog.definitions {
            let manifest = definition.manifest
            out += wrapped("\(manifest.kind): \(manifest.displayName). \(manifest.description)", indent: "    ")
            let families = manifest.supportedFamilies.map {
                $0 == manifest.defaultFamily ? "\($0.rawValue) (default)" : $0.rawValue
            }
            out += "  families: \(families.joined(separator: ", "))\n"
            out += wrapped("  " + behaviour(of: manifest, uses: definition.uses), indent: "    ")
            out += options(manifest.options, indent: "  ")
            for action in manifest.actions {
                out += wrapped("  key \(action.key): \(action.title)", indent: "    ")
            }
        }
        let stack = catalog.stack.manifest
        out += wrapped("\(stack.kind): \(stack.displayName). \(stack.description)", indent: "    ")
        let families = stack.supportedFamilies == WidgetFamily.allCases ? "all" : stack.supportedFamilies.map(\.rawValue).joined(separator: ", ")
        out += wrapped("  families: \(families) (default \(stack.defaultFamily.rawValue)); \(catalog.stack.membersDoc)", indent: "    ")
        return CommandOutput(exitCode: 0, standardOutput: out)
    }

    static func behaviour(of manifest: WidgetManifest, uses: Set<WidgetUse>) -> String {
        var parts = [manifest.usesNetwork ? "fetches over the network" : "computed locally",
                     manifest.pausesWithAutomaticReloads ? "pauses with p" : "keeps running when paused"]
        if let push = manifest.pushSourceOption { parts.append("push updates from option \(push)") }
        if !uses.isEmpty { parts.append("uses the host's " + uses.sorted().map(\.rawValue).joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    /// Two lines per option: name, type, required or default; then its doc and example.
    /// The fields of a list of objects follow, indented.
    static func options(_ specs: [OptionSpec], indent: String) -> String {
        var out = ""
        let width = specs.map(\.name.count).max() ?? 0
        for option in specs {
            let padding = String(repeating: " ", count: width - option.name.count)
            var line = "\(indent)\(option.name)\(padding)  \(option.type.expectation)"
            if option.required { line += ", required" }
            if let value = option.defaultValue { line += ", default \(JSONValue(value).jsonText)" }
            // The doc, then what the host adds; no line at all when there is nothing to say.
            var notes = [option.doc].filter { !$0.isEmpty }
            if case .seconds(_, refreshInterval: true) = option.type { notes.append("raised to minimumReloadSeconds") }
            var doc = notes.joined(separator: ", ")
            if let example = option.example { doc += (doc.isEmpty ? "" : " ") + "(e.g. \(example))" }
            let docIndent = indent + String(repeating: " ", count: width) + "  "
            out += wrapped(line, indent: docIndent + "  ") + (doc.isEmpty ? "" : wrapped(docIndent + doc, indent: docIndent))
            if case .objectList(let fields) = option.type {
                out += options(fields, indent: indent + "    ")
            }
        }
        return out
    }

    /// `line` and a newline, or, when it is wider than `width` columns, the line broken at
    /// spaces into as many lines as it takes, each after the first starting with `indent`.
    /// Spaces inside a piece stay as they are (option names are padded to line up).
    static func wrapped(_ line: String, indent: String, width: Int = width) -> String {
        var out = ""
        var lead = ""
        var rest = Substring(line)
        while DisplayWidth.of(lead + rest) > width {
            // The last space where the piece before it still fits; past the piece's leading
            // spaces, so a line never breaks into nothing. A word too long for the width
            // stands alone: its piece ends at the first space after it.
            let start = rest.firstIndex { $0 != " " } ?? rest.endIndex
            var used = DisplayWidth.of(lead + rest[..<start])
            var cut: Substring.Index?
            var index = start
            while index < rest.endIndex {
                if rest[index] == " " {
                    if used <= width || cut == nil { cut = index }
                    if used > width { break }
                }
                used += DisplayWidth.of(String(rest[index]))
                index = rest.index(after: index)
            }
            guard let cut else { break }
            var piece = rest[..<cut]
            while piece.last == " " { piece = piece.dropLast() }
            out += lead + piece + "\n"
            rest = rest[cut...].drop { $0 == " " }
            lead = indent
        }
        return out + lead + rest + "\n"
    }
}
