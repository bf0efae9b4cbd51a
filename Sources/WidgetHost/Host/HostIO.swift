#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import HostProcesses
import Widgets
import WidgetCore

/// Everything the host takes from the system, built once in `main` and passed down: the
/// environment, where files live, the clocks, child processes and the HTTP transport.
///
/// Commands and the dashboard use what they are given instead of reading globals, so a test
/// or a headless run can replace any part (DESIGN.md §6 "Host I/O"; STYLE.md 6).
///
/// ```swift
/// WidgetHostCommand.main(io: .live())   // Sources/widgethost/main.swift
/// ```
public struct HostIO: Sendable {
    /// The variables the host reads and the home directory.
    public var environment: HostEnvironment
    /// Where the host finds system data and keeps its own.
    public var files: FileRoots
    /// The wall clock (dates, `Retry-After`) and the monotonic one (waits). The dashboard's
    /// `LoopClock` reads its "now" from it and wakes on a timerfd of the same wall clock.
    public var clock: any TransportClock
    /// Starts and reaps child processes. The dashboard's loop reaps on SIGCHLD; no widget runs a
    /// process yet (the command widget and extensions will).
    public var processes: ProcessSpawner
    /// Drawn once at start: seeds the transport's retry jitter (and anything else random).
    public var randomSeed: UInt64
    /// Makes the HTTP transport for background sessions.
    public var makeTransport: @Sendable () throws -> any HTTPTransport
    /// The whole process environment, for widgets (children's environment, `"$NAME"` header
    /// values, `$EDITOR`); the host itself reads only `environment`.
    public var widgetEnvironment: [String: String] = [:]

    public init(environment: HostEnvironment, files: FileRoots, clock: any TransportClock, processes: ProcessSpawner,
                randomSeed: UInt64, makeTransport: @escaping @Sendable () throws -> any HTTPTransport) {
        self.environment = environment
        self.files = files
        self.clock = clock
        self.processes = processes
        self.randomSeed = randomSeed
        self.makeTransport = makeTransport
    }

    /// This process's: its environment, the system's clocks and files, a libcurl transport
    /// seeded from /dev/urandom (or the clock when that cannot be read).
    public static func live() -> HostIO {
        let environment = HostEnvironment.current()
        let clock = SystemTransportClock()
        let seed = randomSeed(clock: clock)
        var io = HostIO(environment: environment, files: FileRoots.live(environment: environment), clock: clock,
                        processes: ProcessSpawner(), randomSeed: seed,
                        makeTransport: { try CurlTransport(clock: clock, randomSeed: seed) })
        io.widgetEnvironment = processEnvironment()
        return io
    }

    /// What widgets receive of the host's I/O (files, processes, environment), the rest of
    /// their context (sessions, clock, center, state) still to be filled in. Their
    /// environment is the process's with the host's own `variables` over it (`TZ`, `HOME`…:
    /// the same values in a real run; the only ones a test sets).
    public func widgetContext(variables: [String: String]) -> WidgetContext {
        WidgetContext(environment: widgetEnvironment.merging(variables) { _, host in host }, proc: files.proc,
                      zoneinfo: files.zoneinfo, temporary: files.temporary, processes: processes)
    }

    /// Every `NAME=value` of this process's environment.
    static func processEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), equals != text.startIndex {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return variables
    }

    /// Eight bytes of /dev/urandom, else the wall clock's nanoseconds mixed with the pid.
    static func randomSeed(clock: any TransportClock) -> UInt64 {
        var seed: UInt64 = 0
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            if read(fd, &seed, 8) == 8 { return seed }
        }
        let nanoseconds = UInt64(clamping: Int64(exactly: (clock.wallNow * 1e9).rounded(.down)) ?? 0)
        return nanoseconds ^ (UInt64(UInt32(bitPattern: getpid())) << 32)
    }
}

/// Where the host finds system data and keeps its own files.
public struct FileRoots: Sendable, Equatable {
    /// The proc file system (the `system` widget's CPU and memory).
    public var proc: String
    /// The time-zone database (TZif files).
    public var zoneinfo: String
    /// The default state directory (journal, containers, log): `$XDG_STATE_HOME/widgethost`,
    /// else `~/.local/state/widgethost`; nil without either. `--state-dir` overrides it.
    public var state: String?
    /// Where temporary directories go (headless commands' sessions): `$TMPDIR` when absolute, else /tmp.
    public var temporary: String

    public init(proc: String = "/proc", zoneinfo: String = "/usr/share/zoneinfo", state: String?, temporary: String = "/tmp") {
        self.proc = proc
        self.zoneinfo = zoneinfo
        self.state = state
        self.temporary = temporary
    }

    /// The roots for `environment`. `$WIDGETHOST_PROC` (an absolute path) stands in for /proc:
    /// docs/images/make.sh draws the README's picture from a fixed one.
    public static func live(environment: HostEnvironment) -> FileRoots {
        FileRoots(proc: environment.absolutePath("WIDGETHOST_PROC") ?? "/proc",
                  state: try? ConfigLocator.stateDirectory(explicitPath: nil, environment: environment),
                  temporary: environment.absolutePath("TMPDIR") ?? "/tmp")
    }
}
