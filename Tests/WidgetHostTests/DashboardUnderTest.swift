import TerminalUI
import WidgetCore
@testable import WidgetHost

/// Programs of dashboards under test, kept for the rest of the run (a dashboard holds its
/// program weakly, as the runner's loop holds it in the app).
@MainActor private var programs: [DashboardProgram] = []

/// The host of a dashboard under test: records the effects a terminal would run; a program to
/// run in the terminal answers with `terminalAnswer`.
@MainActor
final class EffectRecorder: DashboardHost {
    var effects: [DashboardEffect] = []
    var terminalAnswer: ([String]) -> String? = { _ in "no terminal to run it in" }

    func perform(_ effect: DashboardEffect, in program: DashboardProgram) {
        effects.append(effect)
        if case .runInTerminal(let arguments, let member, let action) = effect {
            program.send(.actionFinished(member, action: action, failure: terminalAnswer(arguments)))
        }
    }
}

extension Dashboard {
    /// Runs the dashboard in a `DashboardProgram`, as the loop would, and returns its host.
    @discardableResult
    func runUnderTest(_ host: EffectRecorder = EffectRecorder()) -> EffectRecorder {
        programs.append(DashboardProgram(dashboard: self, host: host))
        return host
    }

    /// A key through the program, with its effects (reloads, pause, theme…).
    func press(_ key: Key) { send(.key(key)) }
}
