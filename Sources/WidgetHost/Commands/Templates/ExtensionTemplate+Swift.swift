extension ExtensionTemplate {
    /// Not yet: the Swift SDK (SDK/) is not in this version.
    static let swift = ExtensionTemplate(files: [])
}
