import WidgetCore

extension CommandWidget {
    /// The command's kind and options (DESIGN.md §4). Runs are local work: no network, no
    /// reload budget; `p` pauses them like other automatic reloads.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Command",
        description: "Runs a command every few seconds and shows the last lines it printed.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: CommandOptions.specs,
        titleOption: CommandOptions.name(of: \.command),
        pausesWithAutomaticReloads: true, usesNetwork: false,
        // The host's own `r` (reload the focused panel) runs the command now: titled here so
        // the status bar says what it does on this panel.
        actions: [WidgetAction(key: WidgetAction.reloadKey, title: "run now")],
        exactlyOneOf: [[CommandOptions.name(of: \.command), CommandOptions.name(of: \.argv)]])

    /// The longest `timeoutSeconds`: the host's request timeout (30 s) would end a longer run
    /// anyway.
    public static let maximumTimeoutSeconds = 30
    /// The most `maxOutputBytes` (4 MiB).
    public static let maximumOutputBytes = 4 * 1024 * 1024

    /// Starts a process per run, through the host's spawner.
    public static let definition = WidgetDefinition(manifest: manifest, uses: [.processes]) { configuration(context: $0) }
        .entryType(CommandEntry.self)
}
