#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import WidgetCore
import Widgets

/// Background sessions for a headless command (`snapshot`, `preview`): a session manager on a
/// temporary state directory, so the command can fetch live data without touching — or
/// taking the lock of — the dashboard's own state. `close()` removes everything.
///
/// The directory is `<temp>/widgethost-headless-<pid>-XXXXXX` (`HostIO.files.temporary`, /tmp
/// without one); the transport is `HostIO.makeTransport`'s. A command killed before
/// `close()` leaves it behind; the next headless command removes every such directory of
/// ours whose process is gone (`sweepAbandoned`).
final class HeadlessSessions: Sendable {
    static let parent = "/tmp"
    static let prefix = "widgethost-headless-"

    let directory: String
    let manager: BackgroundSessionManager?
    /// Why there are no sessions although the directory was made (libcurl missing, say).
    let unavailable: String?
    /// What widgets get of the host's I/O (files, processes, environment, the transport).
    private let widgetIO: WidgetContext

    /// Nil when no temporary directory can be made.
    ///
    /// - Parameter seed: a dashboard's state directory whose widget containers (the last
    ///   board, say) and extension data folders are copied in first, so a snapshot can show
    ///   cached data; it is only read.
    ///   - io: where the temporary directory goes and how the transport is made; nil: /tmp and a
    ///     `CurlTransport()`.
    ///   - variables: the command's environment variables (`TZ`…), over `io`'s.
    init?(clock: any WidgetClock, seed: String? = nil, io: HostIO? = nil, variables: [String: String] = [:]) {
        let parent = io?.files.temporary ?? Self.parent
        var widgetIO = io?.widgetContext(variables: variables) ?? WidgetContext(environment: variables, temporary: parent)
        Self.sweepAbandoned(in: parent)
        var template = Array("\(parent)/\(Self.prefix)\(getpid())-XXXXXX".utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } }) else {
            return nil
        }
        directory = path
        if let seed {
            ContainerCopy.copy(from: seed + "/containers", to: path + "/containers")
            // Extensions' own data (WIDGETHOST_EXTENSION_DATA, `extensions/NAME/FILE`; not
            // their `.downloads`): a copy, so the dashboard's is never written.
            ContainerCopy.copy(from: seed + "/extensions", to: path + "/extensions")
        }
        let transport: any HTTPTransport
        do {
            transport = try io?.makeTransport() ?? CurlTransport()
            widgetIO.transport = transport
        } catch {
            self.widgetIO = widgetIO
            manager = nil
            unavailable = "\(error)"
            return
        }
        self.widgetIO = widgetIO
        do {
            manager = try BackgroundSessionManager.open(stateDirectory: path, transport: transport, clock: clock)
            unavailable = nil
        } catch {
            manager = nil
            unavailable = "\(error)"
        }
    }

    /// The context widgets get: these sessions, this directory for containers (no push).
    func widgetContext(center: WidgetCenter, now: @escaping @Sendable () -> Date) -> WidgetContext {
        var context = widgetIO
        context.sessions = manager
        context.stateDirectory = directory
        context.center = center
        context.now = now
        return context
    }

    /// Routes session events to the catalogue's widgets.
    func route(to bound: BoundWidgets) {
        let widgets = bound.widgets
        manager?.eventRouter = BackgroundSessionManager.router(for: { widgets })
    }

    /// True when no download runs and no event waits.
    var isIdle: Bool { manager?.isIdle ?? true }

    /// Waits until `quiet()` says so, asking again whenever something it may depend on
    /// changed: these sessions went idle, or `wakeup` rang (mail for the loop, an extension
    /// giving up on its events). The one wait of the pilot, `snapshot`, `preview` and
    /// `extension run`; no polling. Bounded by the caller (`finishes(within:)`).
    @MainActor
    func wait(until quiet: () async -> Bool, wakeup: Wakeup) async {
        while !(await quiet()) {
            manager?.whenIdle { wakeup.ring() }
            await wakeup.wait()
        }
    }

    func close() {
        manager?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Removes the temporary directories of headless commands that died before `close()`:
    /// ours (same owner), real directories (not symlinks), named with a process id that no
    /// longer runs.
    static func sweepAbandoned(in parent: String = parent) {
        for name in FilePaths.list(parent) where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = parent + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid() else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}

/// Copies widget containers (`KIND/FILE`, regular files only) from a dashboard's state
/// directory into a headless one, without following symlinks and within a size budget.
enum ContainerCopy {
    /// Files larger than this are skipped; copying stops after `totalLimit` bytes.
    static let fileLimit = 4 << 20
    static let totalLimit = 32 << 20

    static func copy(from source: String, to destination: String) {
        var budget = totalLimit
        for kind in FilePaths.list(source) where !kind.hasPrefix(".") && isDirectory(source + "/" + kind) {
            let target = destination + "/" + kind
            guard (try? FilePaths.makeDirectories(target)) != nil else { continue }
            for name in FilePaths.list(source + "/" + kind) where !name.hasPrefix(".") {
                guard let bytes = read(source + "/" + kind + "/" + name, limit: min(fileLimit, budget)) else { continue }
                budget -= bytes.count
                write(bytes, to: target + "/" + name)
            }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The file's bytes, or nil when it is not a regular file (a symlink is not followed) or
    /// larger than `limit`.
    private static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            filled += n
        }
        return bytes
    }

    private static func write(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = FilePaths.writeAll(fd, bytes)
    }
}
