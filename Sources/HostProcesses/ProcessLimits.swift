/// Resource limits a child runs under (`setrlimit`, soft and hard), so a runaway command or
/// extension cannot take the machine's memory or CPU.
public struct ProcessLimits: Sendable, Equatable {
    /// `RLIMIT_AS`: the most address space, in bytes (rounded down to KiB); nil: inherited.
    public var addressSpaceBytes: UInt64?
    /// `RLIMIT_CPU`: CPU seconds, after which the kernel sends SIGXCPU, then SIGKILL; nil: inherited.
    public var cpuSeconds: UInt64?

    public init(addressSpaceBytes: UInt64? = nil, cpuSeconds: UInt64? = nil) {
        self.addressSpaceBytes = addressSpaceBytes
        self.cpuSeconds = cpuSeconds
    }

    /// No limits of our own.
    public static let inherited = ProcessLimits()

    var isInherited: Bool { addressSpaceBytes == nil && cpuSeconds == nil }

    /// The `/bin/sh` commands that apply the limits before `exec "$@"`.
    ///
    /// `posix_spawn` cannot set limits, and setting them in the host around the spawn would
    /// limit the host's own threads meanwhile; so a limited child starts as `sh -c 'ulimit …
    /// && exec "$@"'`. A limit the shell cannot set (above the hard limit) makes it exit 2
    /// before the program runs.
    var shellPrelude: String {
        var commands: [String] = []
        if let bytes = addressSpaceBytes { commands.append("ulimit -v \(max(1, bytes / 1024))") }
        if let seconds = cpuSeconds { commands.append("ulimit -t \(max(1, seconds))") }
        return commands.joined(separator: " && ")
    }
}
