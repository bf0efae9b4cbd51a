import WidgetCore

extension ClockWidget {
    /// The clock's kind, options and behaviour: computed locally, so `p` does not stop it and
    /// it costs no reload budget.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Clock",
        description: "The time in a time zone; wakes only when the shown time changes.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .small,
        options: [
            OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"),
                       doc: "IANA zone such as Europe/Paris, UTC, or local", example: "Europe/Paris"),
            OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false),
                       doc: "show seconds (wakes every second)", example: "true"),
            OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true),
                       doc: "24-hour time; false for AM/PM", example: "false"),
            OptionSpec(name: "showDate", type: .bool, defaultValue: .bool(true),
                       doc: "show the date under the time", example: "false"),
        ],
        titleOption: "timeZone",
        pausesWithAutomaticReloads: false, usesNetwork: false)

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(zoneinfo: $0.services.io.zoneinfo) }
}
