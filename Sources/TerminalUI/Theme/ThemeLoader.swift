#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds and loads themes: by path, by name in the user's theme directory, or built in.
///
/// `load("x")` resolves, in order:
/// 1. a path, when the argument contains "/" or ends in ".json";
/// 2. `$XDG_CONFIG_HOME/widgethost/themes/x.json` (else `$HOME/.config/...`), when it exists
///    (so a user may override a built-in);
/// 3. the built-in theme "x" (embedded in the binary; no files needed at run time).
/// Errors are `ThemeError`s naming the file (as given) and the key path.
public struct ThemeLoader: Sendable {
    public var environment: [String: String]

    /// A loader reading `XDG_CONFIG_HOME` and `HOME` from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The directory of user themes, or nil when neither XDG_CONFIG_HOME nor HOME is set.
    public var userThemesDirectory: String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg + "/widgethost/themes"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.config/widgethost/themes"
        }
        return nil
    }

    /// Loads the theme named or located by `nameOrPath`.
    public func load(_ nameOrPath: String) throws(ThemeError) -> Theme {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") {
            return try loadFile(path: nameOrPath)
        }
        if let directory = userThemesDirectory {
            let path = "\(directory)/\(nameOrPath).json"
            if FileManager.default.fileExists(atPath: path) { return try loadFile(path: path) }
        }
        if let theme = Theme.builtin(named: nameOrPath) { return theme }
        let looked = userThemesDirectory.map { " and no \($0)/\(nameOrPath).json" } ?? ""
        throw ThemeError(file: nameOrPath, message: "unknown theme: not built in (\(BuiltinThemes.names.joined(separator: ", ")))\(looked)")
    }

    /// Loads and validates the theme file at `path`.
    public func loadFile(path: String) throws(ThemeError) -> Theme {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ThemeError(file: path, message: exists ? "cannot read the file" : "no such file")
        }
        return try ThemeParser.parse(data, file: path)
    }

    /// Names of every theme `load` can find by name: built-ins, then user themes, sorted.
    public func availableNames() -> [String] {
        var names = BuiltinThemes.names
        if let directory = userThemesDirectory,
           let files = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            for file in files.sorted() where file.hasSuffix(".json") {
                let name = String(file.dropLast(5))
                if !names.contains(name) { names.append(name) }
            }
        }
        return names
    }
}
