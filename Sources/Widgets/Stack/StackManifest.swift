import WidgetCore

extension StackWidget {
    /// What `widgethost widgets` lists for it; it has no options (its members have theirs).
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Smart Stack",
        description: "Several widgets in one panel, the most relevant shown; [ and ] flip through them.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        pausesWithAutomaticReloads: false, usesNetwork: false)

    public static let definition = StackDefinition(manifest: manifest, maximumMembers: 16)
}
