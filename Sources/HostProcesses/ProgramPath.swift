#if canImport(Glibc)
import Glibc
#endif

/// Finds a program as a shell would, without one: a name with a slash is taken as it is, any
/// other is looked for in the directories of `PATH` (empty entries and relative ones skipped).
public enum ProgramPath {
    /// The executable regular file for `name`, or nil.
    public static func find(_ name: String, path: String?) -> String? {
        guard !name.isEmpty, !name.contains("\0") else { return nil }
        if name.contains("/") { return isExecutable(name) ? name : nil }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories where directory.hasPrefix("/") {
            let candidate = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
