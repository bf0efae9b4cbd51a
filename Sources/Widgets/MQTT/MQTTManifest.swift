import WidgetCore

extension MQTTWidget {
    /// The `mqtt` kind and its options (DESIGN.md §12).
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "MQTT",
        description: "Live values from an MQTT broker: topics with wildcards, JSON fields by pointer, retained values at once.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: MQTTOptions.specs)

    public static let definition = WidgetDefinition(manifest: manifest, uses: [.push]) { configuration(context: $0) }
        .entryType(MQTTEntry.self)
}
