import JSONTree
import Synchronization

/// Where the answer to one request meets the task awaiting it: the connection's reader thread
/// fills it (the answer, the extension's end, the request's deadline) or a cancellation does,
/// and the awaiting task resumes. Nothing blocks a thread while it waits.
///
/// The value may come before the task has attached its continuation (a connection that has
/// ended answers at once): it is kept and given on attach. Only the first value counts.
final class AnswerSlot: Sendable {
    /// The answer, or nil when the connection took no request (relaunch and try again).
    typealias Answer = Result<JSONValue, ExtensionError>?

    private enum Stage {
        case empty
        case awaiting(CheckedContinuation<Answer, Never>)
        case answered(Answer)
        case done
    }

    private let stage = Mutex<Stage>(.empty)

    /// The task awaits here; resumed at once when the value came already.
    func attach(_ continuation: CheckedContinuation<Answer, Never>) {
        let early = stage.withLock { stage -> Answer? in
            switch stage {
            case .empty:
                stage = .awaiting(continuation)
                return nil
            case .answered(let answer):
                stage = .done
                return .some(answer)
            case .awaiting, .done:
                return nil
            }
        }
        if case .some(let answer) = early { continuation.resume(returning: answer) }
    }

    /// Gives the value unless one was given; resumes the task if it awaits.
    func fulfil(_ answer: Answer) {
        let continuation = stage.withLock { stage -> CheckedContinuation<Answer, Never>? in
            switch stage {
            case .empty:
                stage = .answered(answer)
                return nil
            case .awaiting(let continuation):
                stage = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        continuation?.resume(returning: answer)
    }
}
