import WidgetCore

extension HTTPJSONWidget {
    /// The `http-json` kind and its options (DESIGN.md §4).
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "JSON",
        description: "Values picked out of a JSON document by JSON Pointer, fetched through a background session.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: HTTPJSONOptions.specs)

    public static let definition = WidgetDefinition(manifest: manifest, uses: [.backgroundSessions]) { configuration(context: $0) }
        .entryType(HTTPJSONEntry.self)
}
