#if canImport(Glibc)
import Glibc
#endif

/// The package's own files, for tests that check a rule over the whole source tree (stored
/// closures, hops to the loop, the host naming no widget).
public enum SourceTree {
    /// The package's root directory (two levels above `Tests/WidgetTestSupport`).
    public static let root: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    /// `Sources` and `Tests`.
    public static var sources: String { root + "/Sources" }
    public static var tests: String { root + "/Tests" }

    /// Swift files under `path`, recursively (hidden entries skipped).
    public static func swiftFiles(under path: String) -> [String] {
        entries(of: path).flatMap { name, isDirectory in
            let full = path + "/" + name
            return isDirectory ? swiftFiles(under: full) : name.hasSuffix(".swift") ? [full] : []
        }
    }

    /// The names of the directories right under `path` (hidden ones skipped), sorted.
    public static func directories(under path: String) -> [String] {
        entries(of: path).filter(\.isDirectory).map(\.name).sorted()
    }

    /// The entries of `path` but the hidden ones, and whether each is a directory.
    private static func entries(of path: String) -> [(name: String, isDirectory: Bool)] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var found: [(name: String, isDirectory: Bool)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { found.append((name, entry.pointee.d_type == UInt8(DT_DIR))) }
        }
        return found
    }
}
