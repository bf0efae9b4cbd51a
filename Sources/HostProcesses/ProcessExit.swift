#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
public enum ProcessExit: Sendable, Equatable, CustomStringConvertible {
    /// It called `exit` with this status (0…255).
    case exited(Int32)
    /// A signal ended it (SIGKILL from a timeout, SIGXCPU past its CPU limit, SIGSEGV…).
    case signalled(Int32)

    /// Decodes a `waitpid` status (`WIFEXITED` and friends are macros Swift cannot import).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// The shell's convention: the exit status, or 128 + the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
        }
    }
}
