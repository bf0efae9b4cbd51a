import WidgetCore

extension CountdownWidget {
    /// The countdown's kind and options. Computed locally: `p` does not stop it and it costs
    /// no reload budget; it wakes once a minute, then once a second in the last minute.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Countdown",
        description: "Time left until a date; one wake-up a minute, each second in the last minute.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: CountdownOptions.specs,
        titleOption: CountdownOptions.name(of: \.label),
        pausesWithAutomaticReloads: false, usesNetwork: false)

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(context: $0) }
        .entryType(CountdownEntry.self)
}
