import WidgetCore

extension TextWidget {
    /// The text widget's kind and options (DESIGN.md §4). Local work: `p` does not stop it.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Text",
        description: "Static text or a file's contents, wrapped; reloaded when the file changes.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: TextOptions.specs,
        titleOption: TextOptions.name(of: \.file),
        pausesWithAutomaticReloads: false, usesNetwork: false,
        // The editor has the terminal as long as the user wants: the timeout only bounds
        // task actions, and the manifest's limit is an hour.
        actions: [WidgetAction(key: "e", title: "edit the file", timeoutSeconds: 3600)],
        exactlyOneOf: [[TextOptions.name(of: \.text), TextOptions.name(of: \.file)]])

    /// Each file panel's provider holds a lease on its file (`FileWatcher`); without the use
    /// granted (a context that watches nothing) the panel reads its file once per reload.
    public static let definition = WidgetDefinition(manifest: manifest, uses: [.fileWatching]) { context in
        let center = context.center
        let environment = context.environment
        return configuration(watcher: context.watchesFiles ? FileWatcher { center.reloadTimelines(ofKind: kind) } : nil,
                             context: context)
            .action("e", .terminal { action in try editArguments(action.options, environment: environment) })
    }
    .entryType(TextEntry.self)

    /// `e`: `$EDITOR` (default `vi`) on the panel's file; a panel of static text has none to edit.
    static func editArguments(_ options: WidgetOptions, environment: [String: String]) throws -> [String] {
        guard let file = try TextOptions(options).file else {
            throw WidgetActionError("this panel's text is in the config: no file to edit")
        }
        return editorCommand(file: path(file, environment: environment), environment: environment)
    }
}
