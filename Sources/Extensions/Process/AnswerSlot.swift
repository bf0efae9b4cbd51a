import JSONTree
import Synchronization
import WidgetCore

/// The answer to one request, where its caller meets it: a provider's task awaits it
/// (`value()`, holding no thread), a session delivery blocks its own thread on it (`wait()`).
/// Both kinds of caller take the one request path (`ExtensionHost.start`,
/// `ExtensionConnection.request`), so the deadline, giving a request up and the host's
/// accounting of its answer are written once.
///
/// The connection's reader thread fills it (the answer, the extension's end, the request's
/// deadline), or a cancellation does. The value may come before anyone waits (a connection
/// that has ended answers at once): it is kept. Only the first value counts.
final class AnswerSlot: Sendable {
    typealias Answer = Result<JSONValue, ExtensionError>

    private enum Stage {
        case empty
        case awaiting(CheckedContinuation<Answer, Never>)
        case answered(Answer)
    }

    private let stage = Mutex<Stage>(.empty)
    /// What a blocked thread waits on: given the same first value.
    private let latch = Latch<Answer>()
    /// Forgets the request at its connection (set once it is sent): a caller that gives up
    /// (a failure, a cancellation) lets a late answer be dropped quietly. A `SendableAction`,
    /// not a bare closure, in the Mutex (see its doc: a closure read back nests a thunk).
    private let abandon = Mutex<SendableAction?>(nil)
    private let requestSeconds: Int
    private let clock: any ExtensionClock
    /// A blocked thread's backstop: the reader thread times the request out a second before.
    private let deadline: Double

    /// - Parameters: requestSeconds: the extension's limit (what a timeout says);
    ///   clock: the host's (a blocked wait's backstop).
    init(requestSeconds: Int, clock: any ExtensionClock) {
        self.requestSeconds = requestSeconds
        self.clock = clock
        deadline = clock.now + Double(requestSeconds) + 1
    }

    /// The request went out: `abandon` forgets it at its connection.
    func sent(abandon forget: @escaping @Sendable () -> Void) {
        abandon.withLock { $0 = SendableAction(forget) }
    }

    /// Gives the value unless one was given; resumes the awaiting task or the blocked thread.
    func fulfil(_ answer: Answer) {
        let (first, continuation) = stage.withLock { stage -> (Bool, CheckedContinuation<Answer, Never>?) in
            switch stage {
            case .empty:
                stage = .answered(answer)
                return (true, nil)
            case .awaiting(let continuation):
                stage = .answered(answer)
                return (true, continuation)
            case .answered:
                return (false, nil)
            }
        }
        guard first else { return }
        latch.fulfil(answer)
        continuation?.resume(returning: answer)
    }

    /// Awaits the answer (a provider's task): suspended, holding no thread; cancelling the
    /// task ends the wait with `.cancelled`.
    func value() async -> Answer {
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in attach(continuation) }
        } onCancel: {
            fulfil(.failure(.cancelled))
        }
        return settled(answer)
    }

    /// Blocks the calling thread for the answer (a session delivery, on the extension's
    /// delivery thread: never the loop's, never a provider's), `requestSeconds` at most.
    func wait() -> Answer {
        settled(latch.wait(until: deadline, clock: clock) ?? .failure(.timedOut(seconds: requestSeconds)))
    }

    private func attach(_ continuation: CheckedContinuation<Answer, Never>) {
        let early = stage.withLock { stage -> Answer? in
            switch stage {
            case .empty:
                stage = .awaiting(continuation)
                return nil
            case .answered(let answer):
                return answer
            case .awaiting:
                return nil  // one waiter per request: not reached
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// `answer`, the request given up at its connection when it failed.
    private func settled(_ answer: Answer) -> Answer {
        if case .failure = answer { abandon.withLock { $0 }?.run() }
        return answer
    }
}
