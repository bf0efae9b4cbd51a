#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Extensions
import HostProcesses

/// How a headless command (`snapshot`, `preview`, `extension run`) answers Ctrl-C, SIGTERM and
/// SIGHUP: its extensions are stopped — they run in process groups of their own, which the
/// terminal's Ctrl-C does not reach — then it exits with 128 + the signal's number, as the
/// default action would have. Only the commands' `main` installs it (never a test process).
@MainActor
enum HeadlessSignals {
    private static var sources: [any DispatchSourceSignal] = []
    private static var runtimes: [ExtensionRuntime] = []

    /// Stops `runtime`'s extensions when one of the signals comes.
    static func stopOnSignals(_ runtime: ExtensionRuntime) {
        runtimes.append(runtime)
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)  // delivered to the source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    for runtime in runtimes { runtime.stopAll() }
                }
                OrphanReaper.killAll()
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
