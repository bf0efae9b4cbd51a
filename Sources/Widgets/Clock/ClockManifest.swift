import WidgetCore

extension ClockWidget {
    /// The clock's kind, options and behaviour: computed locally, so `p` does not stop it and
    /// it costs no reload budget.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Clock",
        description: "The time in a time zone; wakes only when the shown time changes.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .small,
        options: ClockOptions.specs,
        titleOption: ClockOptions.name(of: \.timeZone),
        pausesWithAutomaticReloads: false, usesNetwork: false)

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(context: $0) }
        .entryType(ClockEntry.self)
}
