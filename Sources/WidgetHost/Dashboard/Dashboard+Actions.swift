import FoundationEssentials
import Synchronization
import TerminalUI
import WidgetCore
import Widgets

/// A widget action on a panel: running, or failed with the reason shown in the panel.
enum PanelActionState: Equatable {
    case running(title: String)
    case failed(title: String, reason: String)
}

extension Dashboard {
    /// The actions the focused panel answers to now, each with the member that performs it:
    /// the one on screen (a Smart Stack's shown child).
    var focusedActions: [(action: WidgetAction, member: DashboardPanel.Member)] {
        guard let member = focusedPanel?.shownMember else { return [] }
        return member.widget.availableActions.map { ($0, member) }
    }

    /// Performs the focused panel's action for `key`; false when it has none (the key is ignored).
    ///
    /// One action at a time per panel: a key pressed while one runs does nothing. A perform
    /// runs off the loop with the action's timeout; a success reloads the member as `r` does, a
    /// failure is shown on the panel and changes nothing else.
    func performAction(key: String) -> Bool {
        guard key != WidgetAction.reloadKey,
              let (action, member) = focusedActions.first(where: { $0.action.key == key }),
              let perform = member.widget.actionPerformers[key] else { return false }
        if case .running? = actionStates[member.id] { return true }
        let context = WidgetActionContext(key: key, options: member.options,
                                          environment: member.environment ?? WidgetEnvironment(now: { [clock = driver.clock] in clock.now }))
        switch perform {
        case .task(let body):
            actionStates[member.id] = .running(title: action.title)
            let id = member.id
            let timeout = action.timeoutSeconds
            Task { @MainActor [weak self] in
                let failure = await Self.run(body, context: context, timeout: timeout)
                self?.actionFinished(id, action: action, failure: failure)
            }
        case .terminal(let arguments):
            var failure: String?
            do {
                failure = onRunInTerminal(try arguments(context))
            } catch {
                failure = "\(error)"
            }
            actionFinished(member.id, action: action, failure: failure)
        }
        return true
    }

    private func actionFinished(_ id: WidgetInstanceID, action: WidgetAction, failure: String?) {
        // The panel may have gone with a config reload meanwhile.
        guard panels.contains(where: { $0.members.contains { $0.id == id } }) else {
            actionStates[id] = nil
            return
        }
        if let failure {
            actionStates[id] = .failed(title: action.title, reason: failure)
        } else {
            actionStates[id] = nil
            driver.reload(id, userInitiated: true)
        }
        onFrameNeeded()
    }

    /// Runs `body` off the loop and returns nil when it succeeded, else why not; after
    /// `timeout` seconds it returns "timed out" and cancels the body (a body that ignores
    /// cancellation finishes unobserved).
    nonisolated static func run(_ body: @escaping @Sendable (WidgetActionContext) async throws -> Void,
                                context: WidgetActionContext, timeout: Double) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let race = ActionRace(continuation)
            // The timer first, so a body that ends at once still finds it to cancel.
            race.timer.withLock { slot in
                slot = Task.detached {
                    do { try await Task.sleep(for: .milliseconds(Int64(timeout * 1000))) } catch { return }
                    if race.answer("timed out after \(DurationText.duration(timeout))") { race.work.withLock { $0?.cancel() } }
                }
            }
            race.work.withLock { slot in
                slot = Task.detached {
                    var failure: String?
                    do { try await body(context) } catch { failure = "\(error)" }
                    race.timer.withLock { $0?.cancel() }
                    _ = race.answer(failure)
                }
            }
        }
    }

    /// The footer text of a panel's action, if one runs or failed.
    func actionFooter(for panel: DashboardPanel) -> String? {
        for member in panel.members {
            switch actionStates[member.id] {
            case .running(let title)?: return "\(title)\(glyphs.ellipsis)"
            case .failed(let title, let reason)?: return (glyphs.isUnicode ? "⚠ " : "! ") + "\(title) failed: \(reason)"
            case nil: continue
            }
        }
        return nil
    }

    /// Forgets a failed action's message on the focused panel (a new action or `r` there).
    func clearFailedActions(of panel: DashboardPanel) {
        for member in panel.members {
            if case .failed? = actionStates[member.id] { actionStates[member.id] = nil }
        }
    }
}

/// A perform racing its timeout: whichever ends first answers, once.
private final class ActionRace: Sendable {
    let timer = Mutex<Task<Void, Never>?>(nil)
    let work = Mutex<Task<Void, Never>?>(nil)
    private let continuation = Mutex<CheckedContinuation<String?, Never>?>(nil)

    init(_ continuation: CheckedContinuation<String?, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Answers with `result` unless answered already; true when this was the answer.
    func answer(_ result: String?) -> Bool {
        guard let continuation = continuation.withLock({ slot in defer { slot = nil }; return slot }) else { return false }
        continuation.resume(returning: result)
        return true
    }
}
