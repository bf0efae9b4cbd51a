#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// Makes sure nothing a child started outlives what started it: the host becomes a child
/// subreaper, so a descendant whose parent ends — an extension's child that called `setsid`
/// and so left the extension's process group, say — is re-parented to the host instead of to
/// init; the host then kills and reaps it.
///
/// Any child of the host that the host did not start itself (`ChildRegistry`) is such an
/// orphan. `collect()` looks for them among the host's children (`/proc/self/task/*/children`)
/// and sends each SIGKILL (its process group too when it leads one), reaping those already
/// ended; it never waits for the host's own children, so their `waitpid` keeps its status. The
/// loop calls it on SIGCHLD (an orphan appears when its parent — one of the host's children —
/// ends, which is a SIGCHLD; a killed orphan's end is another), and `killAll()` runs at exit.
/// Nothing happens unless `adopt()` made the host a subreaper: a test process's children are
/// not the host's to kill. Children the process already had when it adopted (started before an
/// `exec` of the host: `ssh -N … & exec widgethost`) are not orphans either, and are left be.
public enum OrphanReaper {
    private static let adopted = Atomic<Bool>(false)
    /// The children this process had before `adopt()`: inherited across `exec`, not orphans.
    private static let inherited = Mutex<Set<pid_t>>([])

    /// Makes this process the subreaper of its descendants; false when the kernel refuses.
    @discardableResult
    public static func adopt() -> Bool {
        inherited.withLock { $0 = Set(children()) }
        guard wh_set_child_subreaper() == 0 else { return false }
        adopted.store(true, ordering: .relaxed)
        return true
    }

    /// Runs `body` with this process no subreaper, so what a program the user runs in the
    /// foreground leaves behind on purpose (`$EDITOR`'s server, an agent it starts) goes to init
    /// as it would from a shell, instead of being killed as an orphan.
    public static func withoutAdopting<Result>(_ body: () throws(ProcessSpawner.Failure) -> Result) throws(ProcessSpawner.Failure) -> Result {
        guard isAdopted else { return try body() }
        _ = wh_clear_child_subreaper()
        defer { _ = wh_set_child_subreaper() }
        return try body()
    }

    /// Whether `adopt()` succeeded.
    public static var isAdopted: Bool { adopted.load(ordering: .relaxed) }

    /// Kills every orphan found among the host's children and reaps those that have ended.
    ///
    /// - Returns: the orphans found for the first time (killed now), by pid; one killed
    ///   earlier and reaped now is not named again.
    @discardableResult
    public static func collect() -> [pid_t] {
        sweep().found
    }

    /// Orphans SIGKILLed and not reaped yet (they are dying).
    private static let killed = Mutex<Set<pid_t>>([])

    /// `collect()`, and how many orphans are still dying after it.
    private static func sweep() -> (found: [pid_t], dying: Int) {
        guard isAdopted else { return ([], 0) }
        return ChildRegistry.withOwnChildren { own in
            let kept = inherited.withLock { $0 }
            let orphans = children().filter { !own.contains($0) && !kept.contains($0) }
            return killed.withLock { killed in
                var found: [pid_t] = []
                for pid in orphans {
                    if killed.insert(pid).inserted {
                        found.append(pid)
                        kill(-pid, SIGKILL)  // its group, when it leads one (a `setsid` child does)
                        kill(pid, SIGKILL)
                    }
                    var status: Int32 = 0
                    var result: pid_t
                    repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
                    if result == pid || result < 0 { killed.remove(pid) }
                }
                killed.formIntersection(orphans)  // gone some other way
                return (found, killed.count)
            }
        }
    }

    /// At the host's exit: the process group of every child the host started and still has
    /// gets SIGKILL (extensions had their grace already; a command still running is cut
    /// short), then orphans are killed and reaped until none is left — an orphan's own children
    /// come to the host when it dies, and a dying child's come when it has died — for at most
    /// `seconds`. Returns how many orphans were collected.
    @discardableResult
    public static func killAll(within seconds: Double = 2) -> Int {
        guard isAdopted else { return 0 }
        for pid in ChildRegistry.withOwnChildren({ $0 }) { kill(-pid, SIGKILL) }
        var seen = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while clock.now < deadline {
            // Again each pass: a child started after the first (a relaunch racing the quit).
            for pid in ChildRegistry.withOwnChildren({ $0 }) { kill(-pid, SIGKILL) }
            let (found, dying) = sweep()
            seen += found.count
            let ending = ChildRegistry.withOwnChildren { $0 }.filter { isAlive($0) }
            if found.isEmpty && dying == 0 && ending.isEmpty { break }
            usleep(2_000)
        }
        return seen
    }

    /// Whether `pid` exists and has not ended (a zombie has ended: its children were handed
    /// on before it became one).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = readSmall("/proc/\(pid)/stat"), let paren = stat.lastIndex(of: 0x29 /* ) */),
              paren + 2 < stat.count else { return false }
        let state = stat[paren + 2]
        return state != 0x5A /* Z */ && state != 0x58 /* X */
    }

    /// The pids of this process's children, from each of its threads' `children` file (a
    /// child belongs to the thread that started it; an orphan to any); on a kernel without
    /// those files (`CONFIG_PROC_CHILDREN` off), from every process's parent in `/proc`.
    static func children() -> [pid_t] {
        var pids: [pid_t] = []
        var readable = false
        for task in directoryNames("/proc/self/task") {
            guard let text = readSmall("/proc/self/task/\(task)/children") else { continue }
            readable = true
            pids += text.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }).compactMap { pid_t(String(decoding: $0, as: UTF8.self)) }
        }
        guard !readable else { return pids }
        let me = getpid()
        return directoryNames("/proc").compactMap(pid_t.init).filter { parent(of: $0) == me }
    }

    /// The parent of `pid`, from `/proc/PID/stat` (the field after the state).
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = readSmall("/proc/\(pid)/stat"), let paren = stat.lastIndex(of: 0x29 /* ) */) else { return nil }
        let fields = stat[(paren + 1)...].split(separator: 0x20)
        return fields.count > 1 ? pid_t(String(decoding: fields[1], as: UTF8.self)) : nil
    }

    /// A /proc file's bytes (they are small), or nil when it cannot be opened.
    private static func readSmall(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            text += chunk[..<count]
        }
        return text
    }

    private static func directoryNames(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
