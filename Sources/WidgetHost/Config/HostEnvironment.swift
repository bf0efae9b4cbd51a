#if canImport(Glibc)
import Glibc
#endif

/// The process environment the config layer reads: variables and the home directory.
///
/// Passed in rather than read globally so tests (and a headless run) can replace it.
/// `current()` captures the real one.
public struct HostEnvironment: Sendable, Equatable {
    /// Environment variables by name.
    public var variables: [String: String]
    /// The user's home directory, or nil when it cannot be found.
    public var homeDirectory: String?

    public init(variables: [String: String] = [:], homeDirectory: String? = nil) {
        self.variables = variables
        self.homeDirectory = homeDirectory
    }

    /// The variables the host reads; `current()` captures only these.
    public static let variableNames = [
        "WIDGETHOST_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME", "NO_COLOR", "TERM", "COLORTERM",
        "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "XDG_RUNTIME_DIR",
        // A stand-in for /proc (`FileRoots.live`): the README picture's fixed machine.
        "WIDGETHOST_PROC",
        // What says whether the terminal shows OSC 8 hyperlinks (`Hyperlinks.supported`).
        "WIDGETHOST_HYPERLINKS", "TERM_PROGRAM", "VTE_VERSION", "KITTY_WINDOW_ID", "WT_SESSION", "TMUX",
    ]

    /// The environment of this process: the variables in `variableNames`, and `$HOME`
    /// (else the password database's home directory).
    public static func current() -> HostEnvironment {
        var variables: [String: String] = [:]
        for name in variableNames {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        var home = variables["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if home == nil, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        return HostEnvironment(variables: variables, homeDirectory: home)
    }

    /// The value of `name` when set to an absolute path, as the XDG spec requires
    /// (relative or empty values are ignored).
    func absolutePath(_ name: String) -> String? {
        guard let value = variables[name], value.hasPrefix("/") else { return nil }
        return value
    }
}
