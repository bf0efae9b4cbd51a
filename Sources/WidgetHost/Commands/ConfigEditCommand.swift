import JSONTree
import WidgetCore
import Widgets

/// `widgethost config add KIND … | remove N`: the edits of edit mode, from a shell.
///
/// Opens the config the dashboard would read (`EditableConfig`; the default dashboard when
/// there is no file), makes the change on its document, and saves it — checked as
/// `check-config` checks a file, atomic, with a `.bak`. A bad option is listed as `check-config`
/// would list it in the saved file (`PATH: panels[4].options.to: …`), exit 2, nothing written.
enum ConfigEditCommand {
    static func run(_ options: ConfigEditOptions, environment: HostEnvironment, validator: ConfigValidator) -> CommandOutput {
        guard let path = EditableConfig.path(explicitPath: options.configPath, environment: environment) else {
            return failure(2, EditableConfig.Failure.noPath.lines(path: ""))
        }
        do throws(EditableConfig.Failure) {
            let file = try EditableConfig.open(path: path, validator: validator)
            var document = file.document
            let said: String
            switch options.action {
            case .add(let kind, let family, let assignments, let page):
                let panel = panelValue(kind: kind, family: family, options: assignments, validator: validator)
                let pages = document.pages.count
                var target = (page ?? pages) - 1
                if target == pages {
                    target = document.addPage(title: "Page \(pages + 1)")
                } else if target > pages {
                    return failure(2, "\(path): there is no page \(target + 1): the config has \(pages) (--page \(pages + 1) adds one)\n")
                }
                let index = document.insert(panel, page: target)
                said = "added \(kind) as panel \(index + 1)"
            case .remove(let number):
                let count = document.panels.count
                guard let removed = document.remove(panel: number - 1) else {
                    return failure(2, "\(path): there is no panel \(number): the config has \(count)\n")
                }
                let kind = if case .object(let object) = removed, case .string(let name)? = object["kind"] { name } else { "?" }
                said = "removed panel \(number) (\(kind))"
            }
            _ = try file.save(document, validator: validator)
            let created = file.original == nil ? "\(path): created from the default dashboard\n" : ""
            return CommandOutput(exitCode: 0, standardOutput: created + "\(path): \(said)\n")
        } catch {
            switch error {
            case .invalid: return CommandOutput(exitCode: 2, standardError: error.lines(path: path))
            case .notWritten, .changedOnDisk: return failure(1, error.lines(path: path))
            default: return failure(2, error.lines(path: path))
            }
        }
    }

    /// The panel as a config file holds it: `kind`, `family` when given, the options given.
    ///
    /// A value that does not read as its option's type stays text, so the validator names it
    /// as it would in a file (`expected an integer ≥ 1, got "ten"`).
    static func panelValue(kind: String, family: WidgetFamily?, options: [OptionAssignment],
                           validator: ConfigValidator) -> JSONValue {
        let manifest = validator.manifests.first { $0.kind == kind }
        var members: [(key: String, value: JSONValue)] = [("kind", .string(kind))]
        if let family { members.append(("family", .string(family.rawValue))) }
        if !options.isEmpty {
            let values = options.map { assignment in
                let type = manifest?.option(named: assignment.name)?.type
                return (key: assignment.name, value: type?.value(fromCommandLine: assignment.value) ?? .string(assignment.value))
            }
            members.append(("options", .object(JSONObject(members: values))))
        }
        return .object(JSONObject(members: members))
    }

    private static func failure(_ status: Int32, _ lines: String) -> CommandOutput {
        CommandOutput(exitCode: status, standardError: lines.split(separator: "\n").map { "widgethost config: \($0)\n" }.joined())
    }
}
