/// `widgethost widgets`: lists the registered widget kinds, their families and options.
public enum WidgetsCommand {
    /// The listing for `descriptors`, in registration order, followed by the built-in stack.
    public static func run(descriptors: [WidgetKindDescriptor]) -> CommandOutput {
        var out = ""
        for descriptor in descriptors {
            out += "\(descriptor.kind): \(descriptor.displayName). \(descriptor.summary)\n"
            let families = descriptor.supportedFamilies.map {
                $0 == descriptor.defaultFamily ? "\($0.rawValue) (default)" : $0.rawValue
            }
            out += "  families: \(families.joined(separator: ", "))\n"
            let width = descriptor.options.map(\.name.count).max() ?? 0
            for option in descriptor.options {
                let padding = String(repeating: " ", count: width - option.name.count)
                var line = "  \(option.name)\(padding)  \(option.type.expectation)"
                if option.required { line += ", required" }
                if let value = option.defaultValue { line += ", default \(value.jsonText)" }
                out += line + "\n" + "  \(String(repeating: " ", count: width))  \(option.help)\n"
            }
        }
        out += "\(ConfigValidator.stackKind): Stack. Several widgets in one panel, one above the other.\n"
        out += "  families: all (default \(ConfigValidator.defaultStackFamily.rawValue)); \"panels\": the widgets, each with kind and options\n"
        return CommandOutput(exitCode: 0, standardOutput: out)
    }
}
