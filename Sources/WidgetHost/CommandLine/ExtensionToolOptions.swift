/// Options of `widgethost extension test NAME|PATH`: a conformance run of one extension.
public struct ExtensionTestOptions: Sendable, Equatable {
    /// An extension's NAME (found as every command finds it) or the path of its folder.
    public var target: String
    /// `--extensions-dir DIR`: searched for NAME first.
    public var extensionsDirectory: String?

    public init(target: String, extensionsDirectory: String? = nil) {
        self.target = target
        self.extensionsDirectory = extensionsDirectory
    }
}

/// Options of `widgethost extension new NAME [--language L] [--extensions-dir DIR]`: a new
/// extension's folder, written from a template.
public struct ExtensionNewOptions: Sendable, Equatable {
    public enum Language: String, Sendable, CaseIterable {
        case python, sh, swift
    }

    public var name: String
    public var language: Language
    /// `--extensions-dir DIR`: where `NAME/` is written (default: the current directory).
    public var extensionsDirectory: String?

    public init(name: String, language: Language = .python, extensionsDirectory: String? = nil) {
        self.name = name
        self.language = language
        self.extensionsDirectory = extensionsDirectory
    }
}
