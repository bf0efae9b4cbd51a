import WidgetCore

extension TextWidget {
    /// The text widget's kind and options (DESIGN.md §4). Local work: `p` does not stop it.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Text",
        description: "Static text or a file's contents, wrapped; reloaded when the file changes.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: [
            OptionSpec(name: "text", type: .string, doc: "the text to show (or file)", example: "Hello"),
            OptionSpec(name: "file", type: .string,
                       doc: "a file to show (~ for HOME), reloaded on change (or text)", example: "~/notes.txt"),
            OptionSpec(name: "wrap", type: .bool, defaultValue: .bool(true),
                       doc: "wrap long lines to the panel; false cuts them", example: "false"),
        ],
        titleOption: "file",
        pausesWithAutomaticReloads: false, usesNetwork: false,
        exactlyOneOf: [["text", "file"]])

    public static let definition = WidgetDefinition(manifest: manifest) { binding in
        let center = binding.services.center
        return configuration(watcher: FileWatcher { center.reloadTimelines(ofKind: kind) },
                             hostEnvironment: binding.services.io.environment)
    }
}
