import WidgetCore

extension CommandWidget {
    /// The command's kind and options (DESIGN.md §4). Runs are local work: no network, no
    /// reload budget; `p` pauses them like other automatic reloads.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Command",
        description: "Runs a command every few seconds and shows the last lines it printed.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: [
            OptionSpec(name: "command", type: .string,
                       doc: "a command line for /bin/sh -c (or argv)", example: "df -h /"),
            OptionSpec(name: "argv", type: .stringList,
                       doc: "the program and its arguments, found in PATH (or command)"),
            OptionSpec(name: "intervalSeconds", type: .seconds(0...86_400, refreshInterval: false), defaultValue: .integer(10),
                       doc: "seconds between runs (≥ minimumReloadSeconds); 0: only on r", example: "30"),
            OptionSpec(name: "timeoutSeconds", type: .seconds(1...maximumTimeoutSeconds, refreshInterval: false),
                       defaultValue: .integer(10),
                       doc: "kill the command's process group after this long", example: "5"),
            OptionSpec(name: "maxOutputBytes", type: .integer(1...maximumOutputBytes), defaultValue: .integer(65_536),
                       doc: "stdout+stderr bytes kept; the rest is read and dropped", example: "4096"),
            OptionSpec(name: "workingDirectory", type: .string, doc: "where it runs (default: the host's)", example: "/tmp"),
            OptionSpec(name: "env", type: .stringMap, doc: "variables added to the host's environment"),
            OptionSpec(name: "show", type: .oneOf(["tail", "head"]), defaultValue: .string("tail"),
                       doc: "show the last lines that fit, or the first", example: "head"),
        ],
        titleOption: "command",
        pausesWithAutomaticReloads: true, usesNetwork: false,
        // The host's own `r` (reload the focused panel) runs the command now: titled here so
        // the status bar says what it does on this panel.
        actions: [WidgetAction(key: WidgetAction.reloadKey, title: "run now")],
        exactlyOneOf: [["command", "argv"]])

    /// The longest `timeoutSeconds`: the host's request timeout (30 s) would end a longer run
    /// anyway.
    public static let maximumTimeoutSeconds = 30
    /// The most `maxOutputBytes` (4 MiB).
    public static let maximumOutputBytes = 4 * 1024 * 1024

    public static let definition = WidgetDefinition(manifest: manifest) { binding in
        configuration(spawner: binding.services.io.processes, hostEnvironment: binding.services.io.environment)
    }
}
