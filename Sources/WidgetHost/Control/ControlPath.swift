#if canImport(Glibc)
import Glibc
#endif

/// Where a running dashboard's control socket is (DESIGN.md §11): one per state directory,
/// in `$XDG_RUNTIME_DIR/widgethost/` (a directory of ours, 0700), named after the state
/// directory so `widgethost reload` finds the dashboard it means; without `XDG_RUNTIME_DIR`,
/// `<state>/control.sock`.
enum ControlPath {
    /// Why there is no control socket path: said to the user as it is.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The socket's path for `stateDirectory`, the directory made (0700) when `create`.
    static func socket(stateDirectory: String, environment: [String: String], create: Bool) -> Result<String, Problem> {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            let path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + "control.sock"
            // A socket's path has at most 107 bytes (sun_path).
            guard path.utf8.count < 108 else {
                return .failure(Problem(description: "the state directory's path is too long for a socket in it "
                    + "(\(path.utf8.count) bytes, at most 107): set XDG_RUNTIME_DIR"))
            }
            return .success(path)
        }
        let directory = (runtime.hasSuffix("/") ? runtime : runtime + "/") + "widgethost"
        if create, mkdir(directory, 0o700) != 0, errno != EEXIST {
            return .failure(Problem(description: "cannot make \(directory): \(String(cString: strerror(errno)))"))
        }
        var info = stat()
        if lstat(directory, &info) == 0 {
            // Ours and private, not a link someone left for us to follow.
            guard (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
                return .failure(Problem(description: "\(directory) is not a private directory of this user (mode 0700)"))
            }
        } else if create {
            return .failure(Problem(description: "cannot use \(directory): \(String(cString: strerror(errno)))"))
        }
        return .success(directory + "/control-" + hash(canonical(stateDirectory)) + ".sock")
    }

    /// The state directory as the file system names it (so `./state` and its absolute path
    /// are one dashboard).
    static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// FNV-1a, 64 bits, in hex: short, stable across runs (`Hasher` is seeded per process).
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
