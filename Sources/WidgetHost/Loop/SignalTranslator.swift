#if canImport(Glibc)
import Glibc
#endif
import CLinux
import TerminalUI

/// The signals the dashboard's loop reads from a signalfd, and the message each one becomes.
///
/// They are blocked in every thread (`blockInThisThread()` before any thread starts, so each
/// inherits the mask) and read on the loop instead of being caught by handlers.
enum SignalTranslator {
    /// SIGCHLD too: children of `io.processes` are reaped on the loop (`waitpid(WNOHANG)`).
    static let handledSignalNumbers = [SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGCHLD]

    private static let handledSignals: sigset_t = {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handledSignalNumbers { sigaddset(&set, number) }
        return set
    }()

    /// Blocks the handled signals in the calling thread (and the threads it starts).
    static func blockInThisThread() {
        var set = handledSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Gives the handled signals their default disposition (ncurses installs handlers of its
    /// own; the loop reads these signals instead).
    static func resetDispositions() {
        for number in handledSignalNumbers { signal(number, SIG_DFL) }
    }

    /// A signalfd reading the handled signals (non-blocking).
    static func makeDescriptor() -> Int32 {
        var set = handledSignals
        return wh_signalfd(&set)
    }

    /// `message(for:windowSize:hasTerminal:)`, asking `probe` about the terminal only for the
    /// signals whose meaning depends on it (SIGWINCH, SIGHUP; SIGCHLD comes with every child).
    static func message(for number: Int32, probe: () -> (windowSize: TerminalSize?, hasTerminal: Bool)) -> DashboardMessage? {
        guard number == SIGWINCH || number == SIGHUP else { return message(for: number, windowSize: nil, hasTerminal: false) }
        let terminal = probe()
        return message(for: number, windowSize: terminal.windowSize, hasTerminal: terminal.hasTerminal)
    }

    /// What signal `number` means for the dashboard, or nil for nothing.
    ///
    /// - Parameters:
    ///   - windowSize: the terminal's size now (nil when there is none: it went away).
    ///   - hasTerminal: whether stdin is still a terminal.
    static func message(for number: Int32, windowSize: TerminalSize?, hasTerminal: Bool) -> DashboardMessage? {
        switch number {
        case SIGWINCH:
            return windowSize.map { .resized($0) }
        case SIGTERM, SIGINT:
            return .quit
        case SIGHUP:
            // The terminal went away (window closed, ssh dropped): nobody is watching, so end.
            // A SIGHUP sent by the user while the terminal is there reloads the config.
            return hasTerminal && windowSize != nil ? .configChanged(reason: "SIGHUP: reloading the config") : .quit
        case SIGTSTP:
            return .suspend
        case SIGCHLD:
            return .childExited
        default:
            return nil
        }
    }
}
