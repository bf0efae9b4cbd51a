#if canImport(Glibc)
import Glibc
#endif

/// Finds extensions: every `*/extension.json` under the directories searched, each parsed
/// strictly. A bad manifest is reported and skipped; it never stops the host.
///
/// Searched, in order: `--extensions-dir DIR` (when given), then
/// `$XDG_CONFIG_HOME/widgethost/extensions` (`~/.config/widgethost/extensions`). An extension
/// name found twice keeps the first: in another directory, later in the search, that is a
/// development copy in `--extensions-dir` shadowing the installed one, as intended (a note);
/// twice in one directory, a problem.
public struct ExtensionDiscovery: Sendable {
    /// What was found: the usable extensions (in name order per directory), the problems, and
    /// the notes (installed extensions shadowed by a copy found first).
    public struct Result: Sendable {
        public var manifests: [ExtensionManifest]
        public var problems: [ExtensionManifestError]
        public var notes: [ExtensionManifestError]

        public init(manifests: [ExtensionManifest] = [], problems: [ExtensionManifestError] = [],
                    notes: [ExtensionManifestError] = []) {
            self.manifests = manifests
            self.problems = problems
            self.notes = notes
        }

        /// Every problem, one `FILE: path: message` line each.
        public var problemLines: [String] { problems.flatMap(\.lines) }
        /// Every note, one `FILE: path: message` line each.
        public var noteLines: [String] { notes.flatMap(\.lines) }

        /// The extensions skipped for their problems, by folder name (a problem of a whole
        /// directory names none).
        public var skippedNames: [String] {
            var names: [String] = []
            for problem in problems where problem.file.hasSuffix("/extension.json") {
                let folder = problem.file.dropLast("/extension.json".count)
                let name = String(folder[(folder.lastIndex(of: "/").map { folder.index(after: $0) } ?? folder.startIndex)...])
                if !names.contains(name) { names.append(name) }
            }
            return names
        }
    }

    /// At most this many extensions are read from one directory.
    public static let maximumExtensions = 64

    /// The directories searched for `explicitDirectory` and the environment.
    public static func directories(explicitDirectory: String?, environment: [String: String]) -> [(path: String, required: Bool)] {
        var found: [(String, Bool)] = []
        if let explicitDirectory { found.append((explicitDirectory, true)) }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            found.append((config + "/widgethost/extensions", false))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            found.append((home + "/.config/widgethost/extensions", false))
        }
        return found
    }

    /// Reads every extension under `directories`. A directory marked required must exist.
    public static func discover(in directories: [(path: String, required: Bool)]) -> Result {
        var result = Result()
        var seen: [String: (file: String, directory: String)] = [:]
        for (directory, required) in directories {
            guard let names = listDirectory(directory) else {
                if required {
                    result.problems.append(ExtensionManifestError(file: directory, issues: [
                        .init(path: "", message: "cannot read the extensions directory: \(String(cString: strerror(errno)))")]))
                }
                continue
            }
            for name in names.prefix(maximumExtensions) {
                let folder = directory + "/" + name
                guard isDirectory(folder) else { continue }
                let file = folder + "/extension.json"
                let bytes: [UInt8]
                switch readFile(file, limit: ExtensionManifestParser.maximumBytes) {
                case .success(let read): bytes = read
                case .failure(let failure) where failure.isMissing:
                    continue  // a folder of something else (shared scripts, __pycache__): not an extension
                case .failure(let failure):
                    result.problems.append(ExtensionManifestError(file: file, issues: [.init(path: "", message: failure.message)]))
                    continue
                }
                do {
                    let manifest = try ExtensionManifestParser.parse(bytes, file: file, directory: folder)
                    if let first = seen[manifest.name] {
                        if first.directory != directory {
                            result.notes.append(ExtensionManifestError(file: file, issues: [
                                .init(path: "", message: "not used: '\(manifest.name)' is also in \(first.directory), searched first")]))
                        } else {
                            result.problems.append(ExtensionManifestError(file: file, issues: [
                                .init(path: "name", message: "extension '\(manifest.name)' is already provided by \(first.file); this one is skipped")]))
                        }
                        continue
                    }
                    seen[manifest.name] = (file, directory)
                    result.manifests.append(manifest)
                } catch {
                    result.problems.append(error)
                }
            }
            if names.count > maximumExtensions {
                result.problems.append(ExtensionManifestError(file: directory, issues: [
                    .init(path: "", message: "holds \(names.count) entries; only the first \(maximumExtensions) are read")]))
            }
        }
        return result
    }

    /// The visible entries of `path`, sorted; nil when it cannot be read.
    static func listDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
            if names.count > 4 * maximumExtensions { break }
        }
        return names.sorted()
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The file's bytes, or why not: missing, not a regular file, bigger than `limit`.
    static func readFile(_ path: String, limit: Int) -> Swift.Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT ? ReadFailure("no extension.json in this folder", isMissing: true)
                                           : ReadFailure("cannot read: \(String(cString: strerror(code)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(ReadFailure("not a regular file")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure("cannot read: \(String(cString: strerror(errno)))"))
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            if bytes.count > limit { return .failure(ReadFailure("the manifest is bigger than \(limit) bytes")) }
        }
        return .success(bytes)
    }

    struct ReadFailure: Error {
        let message: String
        /// No such file (a folder without `extension.json` is skipped without a word).
        let isMissing: Bool
        init(_ message: String, isMissing: Bool = false) {
            self.message = message
            self.isMissing = isMissing
        }
    }
}
