import CLinux
import FoundationEssentials
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
    /// failure is shown on the panel and changes nothing else. The program runs it
    /// (`ActionRunner`).
    mutating func performAction(key: String) -> Bool {
        guard key != WidgetAction.reloadKey,
              let (action, member) = focusedActions.first(where: { $0.action.key == key }),
              let perform = member.widget.actionPerformers[key] else { return false }
        if case .running? = actionStates[member.id] { return true }
        let context = WidgetActionContext(key: key, options: member.options)
        switch perform {
        case .task(let body):
            actionStates[member.id] = .running(title: action.title)
            emit(.runAction(ActionRun(member: member.id, action: action, context: context, body: body)))
        case .terminal(let arguments):
            do {
                // The host runs it and answers with `.actionFinished` (headless: it fails).
                emit(.runInTerminal(try arguments(context), member: member.id, action: action))
            } catch {
                actionFinished(member.id, action: action, failure: "\(error)")
            }
        }
        return true
    }

    /// An action ended (`update(.actionFinished(…))`): a success reloads the member.
    mutating func actionFinished(_ id: WidgetInstanceID, action: WidgetAction, failure: String?) {
        // The panel may have gone with a config reload meanwhile.
        guard panels.contains(where: { $0.members.contains { $0.id == id } }) else {
            actionStates[id] = nil
            return
        }
        if let failure {
            actionStates[id] = .failed(title: action.title, reason: failure)
        } else {
            actionStates[id] = nil
            timelines.reload(id, userInitiated: true, now: now)
        }
        emit(.present)
    }

    /// `10 s`, `0.3 s` under a minute (the usual action timeouts; `DurationText` would round
    /// them up to `1m`), else `DurationText`'s `5m`.
    nonisolated static func timeoutText(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0, seconds < 60 else { return DurationText.duration(seconds) }
        let tenths = Int((seconds * 10).rounded(.up))
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
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
    mutating func clearFailedActions(of panel: DashboardPanel) {
        for member in panel.members {
            if case .failed? = actionStates[member.id] { actionStates[member.id] = nil }
        }
    }
}
