import WidgetCore

extension PrometheusWidget {
    /// The `prometheus` kind and its options (DESIGN.md §12).
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Prometheus",
        description: "A PromQL query's series from a Prometheus server: a value, sparklines or a table, fetched through a background session.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: PrometheusOptions.specs)

    public static let definition = WidgetDefinition(manifest: manifest, uses: [.backgroundSessions]) { configuration(context: $0) }
        .entryType(PrometheusEntry.self)
}
