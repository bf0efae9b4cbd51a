import JSONTree

/// Reads, parses and validates a config file in one step.
///
/// ```swift
/// let loader = ConfigLoader(validator: catalog.validator())
/// switch try ConfigLocator.locateConfig(explicitPath: options.configPath, environment: .current()) {
/// case .file(let path):
///     let report = try loader.load(path: path)   // report.config is nil if errors
/// case .defaultDashboard:
///     …
/// }
/// ```
public struct ConfigLoader: Sendable {
    public var validator: ConfigValidator
    /// Largest file accepted, in bytes.
    public var maximumBytes: Int

    public init(validator: ConfigValidator, maximumBytes: Int = ConfigFileReader.defaultLimit) {
        self.validator = validator
        self.maximumBytes = maximumBytes
    }

    /// Reads and validates the file at `path`.
    ///
    /// - Returns: the validation report (errors there are config mistakes with key paths).
    /// - Throws: `ConfigLoadError` when the file cannot be read or is not JSON.
    public func load(path: String) throws(ConfigLoadError) -> ConfigReport {
        let bytes = try ConfigFileReader.read(path, limit: maximumBytes)
        return try load(bytes: bytes, path: path)
    }

    /// Parses and validates bytes that came from `path` (used in messages only).
    public func load(bytes: [UInt8], path: String) throws(ConfigLoadError) -> ConfigReport {
        let document: JSONValue
        do {
            document = try JSONParser(maximumBytes: maximumBytes).parse(bytes)
        } catch {
            throw .syntax(path: path, error)
        }
        return validator.validate(document)
    }
}
