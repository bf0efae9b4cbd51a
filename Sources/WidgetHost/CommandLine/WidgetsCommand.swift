import JSONTree
import WidgetCore

/// `widgethost widgets`: lists the catalogue's widget kinds from their manifests — families,
/// options (type, default, doc, example), pause behaviour, actions and push source.
public enum WidgetsCommand {
    /// The listing for `catalog`, in catalogue order, followed by the built-in stack.
    public static func run(catalog: Catalog) -> CommandOutput {
        var out = ""
        for manifest in catalog.manifests {
            out += "\(manifest.kind): \(manifest.displayName). \(manifest.description)\n"
            let families = manifest.supportedFamilies.map {
                $0 == manifest.defaultFamily ? "\($0.rawValue) (default)" : $0.rawValue
            }
            out += "  families: \(families.joined(separator: ", "))\n"
            out += "  " + behaviour(of: manifest) + "\n"
            out += options(manifest.options, indent: "  ")
            for action in manifest.actions {
                out += "  key \(action.key): \(action.title)\n"
            }
        }
        out += "\(ConfigValidator.stackKind): Smart Stack. Several widgets in one panel, the most relevant shown; [ and ] flip through them.\n"
        out += "  families: all (default \(ConfigValidator.defaultStackFamily.rawValue)); \"panels\": the widgets, each with kind and options\n"
        return CommandOutput(exitCode: 0, standardOutput: out)
    }

    static func behaviour(of manifest: WidgetManifest) -> String {
        var parts = [manifest.usesNetwork ? "fetches over the network" : "computed locally",
                     manifest.pausesWithAutomaticReloads ? "pauses with p" : "keeps running when paused"]
        if let push = manifest.pushSourceOption { parts.append("push updates from option \(push)") }
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
            var doc = option.doc
            if case .seconds(_, refreshInterval: true) = option.type { doc += ", raised to minimumReloadSeconds" }
            if let example = option.example { doc += " (e.g. \(example))" }
            out += line + "\n" + "\(indent)\(String(repeating: " ", count: width))  \(doc)\n"
            if case .objectList(let fields) = option.type {
                out += options(fields, indent: indent + "    ")
            }
        }
        return out
    }
}
