import WidgetCore

extension SystemWidget {
    /// The system widget's kind and options. It reads local files, not the network: `p`
    /// does not stop it, its readings cost no reload budget, and the scheduler holds it only
    /// to the one-second floor of locally computed widgets, not to `minimumReloadSeconds`.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "System",
        description: "CPU (total, per core), memory, swap, load, uptime and a CPU sparkline, from /proc.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: SystemOptions.specs,
        pausesWithAutomaticReloads: false, usesNetwork: false,
        // A reading is four small /proc files: done on the loop, which the reload's timer
        // woke anyway (one wake-up per reading, not two).
        runsOnLoop: true)

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(context: $0) }
        .entryType(SystemEntry.self)
}
