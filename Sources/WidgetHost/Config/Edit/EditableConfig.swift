import JSONTree
import Widgets

/// A config file opened for editing: where it is, the bytes it had when read, and its document.
///
/// With no file yet, the document is the default dashboard and saving creates the file
/// (`$XDG_CONFIG_HOME/widgethost/config.json`). Saving formats the document
/// (`ConfigFormatter`), validates the very bytes it will write — what is saved always passes
/// `check-config` —, refuses to overwrite a file changed on disk since it was read unless told
/// to, and replaces the file atomically (`ConfigWriter`).
public struct EditableConfig: Sendable, Equatable {
    /// The file written.
    public var path: String
    /// The file's bytes when read; nil when there was no file (the default dashboard).
    public var original: [UInt8]?
    /// The document as read.
    public var document: ConfigDocument

    public init(path: String, original: [UInt8]?, document: ConfigDocument) {
        self.path = path
        self.original = original
        self.document = document
    }

    /// Why a config cannot be edited or saved.
    public enum Failure: Error, Sendable, Equatable {
        /// No file can be named (no `--config`, `$WIDGETHOST_CONFIG`, `$XDG_CONFIG_HOME` or home).
        case noPath
        /// The file cannot be read, or is not JSON.
        case unreadable(ConfigLoadError)
        /// The document has these errors (key paths), as `check-config` lists them.
        case invalid([ConfigDiagnostic])
        /// The file on disk is not what was read: someone else changed it meanwhile.
        case changedOnDisk
        /// Writing failed; the file is as it was.
        case notWritten(ConfigWriteError)
    }

    /// The file the dashboard reads (`ConfigLocator`), whether or not it exists yet.
    public static func path(explicitPath: String?, environment: HostEnvironment) -> String? {
        switch try? ConfigLocator.locateConfig(explicitPath: explicitPath, environment: environment, fileExists: { _ in true }) {
        case .file(let path)?: return path
        default: return nil
        }
    }

    /// Opens the file at `path`, or the default dashboard when there is none.
    ///
    /// - Throws: `.unreadable` for a file that cannot be read or parsed, `.invalid` for one
    ///   that does not validate (it is the user's to fix: nothing rewrites it).
    public static func open(path: String, validator: ConfigValidator, leaderboardURL: String? = nil)
        throws(Failure) -> EditableConfig {
        guard ConfigFileReader.exists(path) else {
            let json = DashboardBuilder.defaultConfigJSON(leaderboardURL: leaderboardURL ?? DashboardBuilder.defaultLeaderboardURL, kinds: Set(validator.manifests.map(\.kind)))
            guard let value = try? JSONParser().parse(Array(json.utf8)), let document = ConfigDocument(value) else {
                throw .invalid([ConfigDiagnostic(path: ConfigPath(), message: "the default dashboard is not a config")])
            }
            return EditableConfig(path: path, original: nil, document: document)
        }
        let bytes: [UInt8]
        do throws(ConfigLoadError) { bytes = try ConfigFileReader.read(path) } catch { throw .unreadable(error) }
        let value: JSONValue
        do { value = try JSONParser(maximumBytes: ConfigFileReader.defaultLimit).parse(bytes) } catch {
            throw .unreadable(.syntax(path: path, error))
        }
        let report = validator.validate(value)
        guard report.errors.isEmpty, let document = ConfigDocument(value) else { throw .invalid(report.errors) }
        return EditableConfig(path: path, original: bytes, document: document)
    }

    /// The file text for `document`, checked as `check-config` checks a file.
    ///
    /// - Throws: `.invalid` with every error (key paths as in the saved file).
    public static func text(of document: ConfigDocument, validator: ConfigValidator) throws(Failure) -> [UInt8] {
        let bytes = Array(ConfigFormatter(manifests: validator.manifests).text(document.value).utf8)
        let report: ConfigReport
        do throws(ConfigLoadError) {
            report = try ConfigLoader(validator: validator).load(bytes: bytes, path: "the saved config")
        } catch {
            throw .unreadable(error)
        }
        guard report.errors.isEmpty else { throw .invalid(report.errors) }
        return bytes
    }

    /// Whether the file on disk is still what was read (absent if it was absent).
    public func isUnchangedOnDisk() -> Bool {
        guard ConfigFileReader.exists(path) else { return original == nil }
        return (try? ConfigFileReader.read(path)) == original
    }

    /// Saves `document` in place of the file, and returns the config as it now is on disk.
    ///
    /// - Parameter overwrite: write even when the file changed on disk since it was read (the
    ///   user said so); its content then is the `.bak`.
    /// - Throws: `.invalid`, `.changedOnDisk` (nothing written), `.notWritten`.
    public func save(_ document: ConfigDocument, validator: ConfigValidator, overwrite: Bool = false) throws(Failure) -> EditableConfig {
        let bytes = try Self.text(of: document, validator: validator)
        guard overwrite || isUnchangedOnDisk() else { throw .changedOnDisk }
        do throws(ConfigWriteError) {
            try ConfigWriter.replace(path, with: bytes, createDirectory: original == nil)
        } catch {
            throw .notWritten(error)
        }
        return EditableConfig(path: path, original: bytes, document: document)
    }
}

extension EditableConfig.Failure: CustomStringConvertible {
    /// One or more lines, each naming the file (`check-config`'s form for `.invalid`).
    public func lines(path: String) -> String {
        switch self {
        case .noPath:
            return "cannot choose a config file: pass --config, or set XDG_CONFIG_HOME or HOME\n"
        case .unreadable(let error): return "\(error)\n"
        case .invalid(let errors): return ConfigDiagnostic.lines(errors, prefix: "\(path): ")
        case .changedOnDisk: return "\(path): changed on disk since it was read; nothing written\n"
        case .notWritten(let error): return "\(error)\n"
        }
    }

    public var description: String { lines(path: "config") }
}
