#if canImport(Glibc)
import Glibc
#endif

/// Finds the config file and the state directory, in the order of DESIGN.md §4.
///
/// Config: `--config PATH`, else `$WIDGETHOST_CONFIG`, else
/// `$XDG_CONFIG_HOME/widgethost/config.json`, else `~/.config/widgethost/config.json`;
/// none found means the default dashboard. A path the user named (`--config` or the
/// variable) that does not exist is an error; a missing file at an XDG location is not.
/// State: `--state-dir`, else `$XDG_STATE_HOME/widgethost`, else
/// `~/.local/state/widgethost`. XDG variables that are empty or relative are ignored, as the
/// XDG spec says.
public enum ConfigLocator {
    /// Decides which config file to use.
    ///
    /// - Parameter fileExists: whether something exists at a path; the default asks the file
    ///   system.
    /// - Throws: `ConfigLoadError.notFound` when `--config` or `$WIDGETHOST_CONFIG` names a
    ///   missing file.
    public static func locateConfig(explicitPath: String?, environment: HostEnvironment,
                                    fileExists: (String) -> Bool = ConfigFileReader.exists)
        throws(ConfigLoadError) -> ConfigSource {
        if let explicitPath {
            guard fileExists(explicitPath) else { throw .notFound(path: explicitPath, namedBy: "--config") }
            return .file(explicitPath)
        }
        if let named = environment.variables["WIDGETHOST_CONFIG"], !named.isEmpty {
            guard fileExists(named) else { throw .notFound(path: named, namedBy: "$WIDGETHOST_CONFIG") }
            return .file(named)
        }
        var searched: [String] = []
        if let configHome = environment.absolutePath("XDG_CONFIG_HOME") {
            searched.append(join(configHome, "widgethost/config.json"))
        } else if let home = environment.homeDirectory, !home.isEmpty {
            searched.append(join(home, ".config/widgethost/config.json"))
        }
        for path in searched where fileExists(path) {
            return .file(path)
        }
        return .defaultDashboard(searched: searched)
    }

    /// The directory for the journal, containers and log (not created here).
    ///
    /// - Throws: `ConfigLoadError.noStateDirectory` when nothing names one.
    public static func stateDirectory(explicitPath: String?, environment: HostEnvironment)
        throws(ConfigLoadError) -> String {
        if let explicitPath, !explicitPath.isEmpty { return explicitPath }
        if let stateHome = environment.absolutePath("XDG_STATE_HOME") { return join(stateHome, "widgethost") }
        if let home = environment.homeDirectory, !home.isEmpty { return join(home, ".local/state/widgethost") }
        throw .noStateDirectory
    }

    static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}
