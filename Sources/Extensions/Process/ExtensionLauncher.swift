#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions

/// How an extension's process is set up: its program, environment and data directory.
enum ExtensionLauncher {
    struct Failure: Error {
        let message: String
    }

    /// Where `PATH` is not set.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"
    /// Host variables an extension gets (when set); everything else stays the host's.
    static let passedVariables = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER"]

    /// The program to run: a path with a `/` is taken from the manifest's directory when
    /// relative; a bare name is looked up in `path`.
    static func resolve(_ program: String, directory: String, path: String?) -> Result<String, Failure> {
        if program.contains("/") {
            var full = program.hasPrefix("/") ? program : directory + "/" + program
            // A relative `--extensions-dir` makes a relative path, which the child (started in
            // the manifest's folder) would read from there: anchor it in the host's directory.
            if !full.hasPrefix("/"), let cwd = getcwd(nil, 0) {
                full = String(cString: cwd) + "/" + full
                free(cwd)
            }
            var info = stat()
            guard stat(full, &info) == 0 else { return .failure(Failure(message: "\(full) does not exist")) }
            guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(Failure(message: "\(full) is not a regular file")) }
            return access(full, X_OK) == 0 ? .success(full)
                : .failure(Failure(message: "\(full) is not executable (chmod +x it, or name its interpreter first: [\"sh\", \"\(program)\"])"))
        }
        for folder in (path ?? defaultPath).split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(program)"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return .success(candidate)
            }
        }
        return .failure(Failure(message: "'\(program)' is not found in PATH"))
    }

    /// A minimal environment: the host's `PATH`, `HOME`, locale, `TZ`, `TMPDIR`, `USER`, and
    /// `WIDGETHOST_EXTENSION_DATA`.
    static func environment(from host: [String: String], dataDirectory: String?) -> [String: String] {
        var out: [String: String] = [:]
        for name in passedVariables { if let value = host[name] { out[name] = value } }
        if out["PATH"] == nil { out["PATH"] = defaultPath }
        if let dataDirectory { out["WIDGETHOST_EXTENSION_DATA"] = dataDirectory }
        return out
    }

    /// `STATE/extensions/NAME` (created, mode 0700), or under `TMPDIR` for a host without a
    /// state directory (snapshots, previews); nil when it cannot be made.
    static func dataDirectory(name: String, stateDirectory: String?, environment: [String: String]) -> String? {
        let directory = dataDirectoryPath(name: name, stateDirectory: stateDirectory, environment: environment)
        return (try? FilePaths.makeDirectories(directory)) != nil ? directory : nil
    }

    /// Where `dataDirectory` is, without creating anything.
    static func dataDirectoryPath(name: String, stateDirectory: String?, environment: [String: String]) -> String {
        "\(base(stateDirectory: stateDirectory, environment: environment))/extensions/\(name)"
    }

    /// The host's ledger of the extension's downloads with headers (`HeaderLedger`): beside the
    /// data directories, not in the extension's own, which the extension writes.
    static func headerLedgerPath(name: String, stateDirectory: String?, environment: [String: String]) -> String {
        "\(base(stateDirectory: stateDirectory, environment: environment))/extension-headers/\(name)"
    }

    /// The state directory, or `TMPDIR/widgethost-UID` for a host without one.
    private static func base(stateDirectory: String?, environment: [String: String]) -> String {
        if let stateDirectory { return stateDirectory }
        let temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return "\(temporary)/widgethost-\(getuid())"
    }

    /// A write to an extension that has exited must fail with EPIPE, not kill the host.
    static func ignoreSIGPIPE() {
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        if current.__sigaction_handler.sa_handler == nil {  // SIG_DFL
            signal(SIGPIPE, SIG_IGN)
        }
    }
}
