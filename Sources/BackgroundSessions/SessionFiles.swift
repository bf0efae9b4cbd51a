import Glibc

/// The files background sessions keep in `<state>/sessions/<component>/`, and the only code
/// that creates links there or removes anything.
///
/// Nothing here takes a path from the journal: a file is named by its session's directory
/// component (`FilePaths.component(forIdentifier:)`, never `..` or a path) and a name of ours
/// made from a task identifier. Directories are opened with `O_NOFOLLOW` and files are
/// checked with `fstatat(AT_SYMLINK_NOFOLLOW)` and removed with `unlinkat`, so a symbolic
/// link put in the tree is never followed, and only regular files with our names are removed.
enum SessionFiles {
    enum Kind: Equatable {
        /// `task-N`: a downloaded body, kept until its event is acknowledged.
        case body
        /// `delivered-task-N`: the hard link a delegate reads during its call.
        case delivery
        /// `.task-N.XXXXXX`: the transport's temporary file for a body being written.
        case partial
    }

    static func bodyName(_ taskID: Int) -> String { "task-\(taskID)" }
    static func deliveryName(_ taskID: Int) -> String { "delivered-task-\(taskID)" }

    /// What a name of ours is, and for which task; nil for any other name.
    static func parse(_ name: String) -> (kind: Kind, taskID: Int)? {
        func id(_ digits: Substring) -> Int? {
            let plain = digits.first == "-" ? digits.dropFirst() : digits
            guard !plain.isEmpty, plain.utf8.count <= 19, plain.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(digits)
        }
        if name.hasPrefix("task-") { return id(name.dropFirst(5)).map { (.body, $0) } }
        if name.hasPrefix("delivered-task-") { return id(name.dropFirst(15)).map { (.delivery, $0) } }
        // mkstemp's suffix: a dot and six characters.
        if name.hasPrefix(".task-"), name.utf8.count > 13 {
            let rest = name.dropFirst(6)
            let suffix = rest.suffix(7)
            guard suffix.first == "." else { return nil }
            return id(rest.dropLast(7)).map { (.partial, $0) }
        }
        return nil
    }

    /// Makes `<state>/sessions/<component>` (0700) and checks that it and `sessions` are
    /// real directories, not symbolic links.
    static func prepareDirectory(stateDirectory: String, component: String) throws(StateDirectoryError) {
        var path = stateDirectory
        for name in ["sessions", component] {
            path = FilePaths.join(path, name)
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw .fileSystem(FileSystemError(operation: "create directory", path: path, errno: errno))
            }
            var info = stat()
            guard lstat(path, &info) == 0 else { throw .fileSystem(FileSystemError(operation: "use", path: path, errno: errno)) }
            if (info.st_mode & S_IFMT) == S_IFLNK { throw .symbolicLink(path) }
            if (info.st_mode & S_IFMT) != S_IFDIR { throw .notADirectory(path) }
        }
    }

    /// `<state>/sessions` opened as a directory, or -1 (missing, a symbolic link, not a directory).
    private static func openRoot(_ stateDirectory: String) -> Int32 {
        open(FilePaths.join(stateDirectory, "sessions"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }

    /// Runs `body` with a descriptor of `<state>/sessions/<component>`; nil when it cannot be
    /// opened as a real directory.
    private static func withDirectory<T>(_ stateDirectory: String, _ component: String, _ body: (Int32) -> T) -> T? {
        let root = openRoot(stateDirectory)
        guard root >= 0 else { return nil }
        defer { close(root) }
        let fd = openat(root, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return body(fd)
    }

    private static func isRegularFile(_ directory: Int32, _ name: String) -> Bool {
        var info = stat()
        return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func isDirectory(_ directory: Int32, _ name: String) -> Bool {
        var info = stat()
        return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Names in an open directory (not `.`/`..`), sorted.
    private static func names(in directory: Int32) -> [String] {
        let copy = dup(directory)
        guard copy >= 0, let dir = fdopendir(copy) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes `name` from the session directory if it is a regular file; true when removed.
    @discardableResult
    static func remove(stateDirectory: String, component: String, name: String) -> Bool {
        withDirectory(stateDirectory, component) { fd in isRegularFile(fd, name) && unlinkat(fd, name, 0) == 0 } ?? false
    }

    /// Hard-links task `taskID`'s body to its delivery name and returns the link's path; nil
    /// when the body is not a regular file in a real session directory.
    static func linkForDelivery(stateDirectory: String, component: String, taskID: Int) -> String? {
        let linked = withDirectory(stateDirectory, component) { fd -> Bool in
            let body = bodyName(taskID), delivery = deliveryName(taskID)
            if isRegularFile(fd, delivery) { unlinkat(fd, delivery, 0) }
            return isRegularFile(fd, body) && linkat(fd, body, fd, delivery, 0) == 0
        } ?? false
        guard linked else { return nil }
        return FilePaths.join(FilePaths.join(FilePaths.join(stateDirectory, "sessions"), component), deliveryName(taskID))
    }

    /// Removes, in every real directory under `<state>/sessions/`, the regular files with our
    /// names for which `removable(component, kind, taskID)` says yes. Symbolic links (to
    /// directories or files) and other names are left alone. Returns how many were removed.
    @discardableResult
    static func sweep(stateDirectory: String, removable: (String, Kind, Int) -> Bool) -> Int {
        let root = openRoot(stateDirectory)
        guard root >= 0 else { return 0 }
        defer { close(root) }
        var removed = 0
        for component in names(in: root) where isDirectory(root, component) {
            let fd = openat(root, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            for name in names(in: fd) {
                guard let (kind, id) = parse(name), isRegularFile(fd, name), removable(component, kind, id) else { continue }
                if unlinkat(fd, name, 0) == 0 { removed += 1 }
            }
            close(fd)
        }
        return removed
    }

    /// Removes the session directories that are empty (after a purge).
    static func removeEmptyDirectories(stateDirectory: String) {
        let root = openRoot(stateDirectory)
        guard root >= 0 else { return }
        defer { close(root) }
        for component in names(in: root) where isDirectory(root, component) {
            unlinkat(root, component, AT_REMOVEDIR)  // fails, harmlessly, unless empty
        }
    }
}
