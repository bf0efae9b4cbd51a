#if canImport(Glibc)
import BackgroundSessions
import Glibc
#endif

/// `widgethost extension new NAME [--language python|sh|swift] [--extensions-dir DIR]`: writes
/// a working extension folder `NAME/` (in the current directory, or in DIR) from a template
/// (`ExtensionTemplate`) that passes `widgethost extension test` as written. Never overwrites:
/// an existing `NAME` is refused (exit 1); a write that fails says which file and why.
enum ExtensionNewCommand {
    static let prefix = "widgethost extension new: "

    /// Where this widgethost's sources hold the Swift SDK (it was built from them).
    static let builtSDK: String = {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/SDK"
    }()

    static func run(_ options: ExtensionNewOptions, environment: HostEnvironment) -> CommandOutput {
        var files = ExtensionTemplate.files(for: options.language, name: options.name)
        if options.language == .swift {
            // The package depends on the SDK by path: $WIDGETHOST_SDK, else the one this
            // widgethost was built from.
            let sdk = environment.variables["WIDGETHOST_SDK"] ?? builtSDK
            guard access(sdk + "/Package.swift", F_OK) == 0 else {
                return failure("the Swift SDK is not at \(sdk) (no Package.swift): set WIDGETHOST_SDK to the SDK folder of the WidgetHost sources")
            }
            files = files.map { file in
                var file = file
                file.text = file.text.replacing("SDK_PATH", with: sdk)
                return file
            }
        }
        let parent = options.extensionsDirectory ?? "."
        if let problem = makeDirectories(parent) {
            return failure("cannot create \(parent): \(problem)")
        }
        let folder = parent + "/" + options.name
        guard mkdir(folder, 0o755) == 0 else {
            let code = errno
            if code == EEXIST { return failure("\(folder) already exists; nothing was written (choose another NAME or remove it)") }
            return failure("cannot create \(folder): \(String(cString: strerror(code)))")
        }
        for file in files {
            if let slash = file.path.lastIndex(of: "/"), let problem = makeDirectories(folder + "/" + file.path[..<slash]) {
                removeWritten(files, in: folder)
                return failure("cannot create \(folder)/\(file.path[..<slash]): \(problem)")
            }
            if let problem = write(file.text, to: folder + "/" + file.path, mode: file.executable ? 0o755 : 0o644) {
                removeWritten(files, in: folder)
                return failure("cannot write \(folder)/\(file.path): \(problem)")
            }
        }
        let test = options.extensionsDirectory.map { "widgethost extension test \(options.name) --extensions-dir \($0)" }
            ?? "widgethost extension test \(options.name)"
        let directory = options.extensionsDirectory ?? "."
        let build = options.language == .swift ? "build it:  swift build --package-path \(folder)\n" : ""
        let text = "wrote \(folder)/: " + files.map(\.path).joined(separator: ", ") + "\n" + build
            + "check it:  \(test)\n"
            + "see it:    widgethost extension run \(options.name)/hello --extensions-dir \(directory)\n"
            + "the protocol: docs/extensions.md\n"
        return CommandOutput(exitCode: 0, standardOutput: text)
    }

    /// Takes back a folder this run made and could not finish, so running it again is not
    /// refused as "already exists": its files, their folders (deepest first), the folder.
    private static func removeWritten(_ files: [ExtensionTemplate.File], in folder: String) {
        for file in files { unlink(folder + "/" + file.path) }
        var folders = Set<String>()
        for file in files {
            var path = file.path
            while let slash = path.lastIndex(of: "/") {
                path = String(path[..<slash])
                folders.insert(path)
            }
        }
        for path in folders.sorted(by: { $0.count > $1.count }) { rmdir(folder + "/" + path) }
        rmdir(folder)
    }

    private static func failure(_ message: String) -> CommandOutput {
        CommandOutput(exitCode: 1, standardError: prefix + message + "\n")
    }

    /// `mkdir -p`; the problem, or nil.
    private static func makeDirectories(_ path: String) -> String? {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0, errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return "not a directory" }
        return nil
    }

    /// Writes a new file (never an existing one); the problem, or nil.
    private static func write(_ text: String, to path: String, mode: mode_t) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        if let code = FilePaths.writeAll(fd, Array(text.utf8)) { return String(cString: strerror(code)) }
        _ = fchmod(fd, mode)  // the umask may have taken the x bit
        return nil
    }
}
