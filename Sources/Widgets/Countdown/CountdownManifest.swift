import WidgetCore

extension CountdownWidget {
    /// The countdown's kind and options. Computed locally: `p` does not stop it and it costs
    /// no reload budget; it wakes once a minute, then once a second in the last minute.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Countdown",
        description: "Time left until a date; one wake-up a minute, each second in the last minute.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: [
            OptionSpec(name: "to", type: .dateTime, required: true,
                       doc: "when it ends: ISO 8601 with offset, or local time", example: "2026-12-31T23:59"),
            OptionSpec(name: "label", type: .string,
                       doc: "what it counts down to (and the panel's title)", example: "New Year"),
        ],
        titleOption: "label",
        pausesWithAutomaticReloads: false, usesNetwork: false)

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(zoneinfo: $0.services.io.zoneinfo) }
}
