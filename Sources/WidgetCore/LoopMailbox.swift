import Synchronization

/// The loop's one inbox for what other threads have for it: a provider's answer, an action's
/// end, "the `WidgetCenter` has requests". Any thread posts; the loop takes everything posted,
/// in order, in its own turn (`take()`), and applies it as messages. Nothing else hops onto the
/// loop's thread with work of ours.
///
/// How the loop learns there is mail is the owner's: `signal` is called once when the box goes
/// from empty to not empty (the terminal's loop writes an eventfd it sleeps on in `epoll_wait`;
/// a headless dashboard schedules a task on the main actor). Code that waits for mail to come
/// (the pilot settling, a snapshot waiting for its data) waits on `arrivals` instead of polling.
public final class LoopMailbox<Input: Sendable>: Sendable {
    private let inputs = Mutex<[Input]>([])
    private let signal: SendableAction
    /// Rung at every post: `if mailbox.isEmpty { await mailbox.arrivals.wait() }`, rung by
    /// others too when what a waiter waits for may have changed (sessions going idle).
    public let arrivals = Wakeup()

    /// - Parameter signal: called (on the posting thread) when the first input arrives in an
    ///   empty box; the owner then calls `take()` on its loop.
    public init(signal: @escaping @Sendable () -> Void = {}) {
        self.signal = SendableAction(signal)
    }

    /// Queues `input` for the loop (any thread).
    public func post(_ input: Input) {
        let wasEmpty = inputs.withLock { inputs -> Bool in
            defer { inputs.append(input) }
            return inputs.isEmpty
        }
        if wasEmpty { signal.run() }
        arrivals.ring()
    }

    /// Everything posted so far, in order; the box is empty afterwards.
    public func take() -> [Input] {
        inputs.withLock { inputs in
            defer { inputs.removeAll() }
            return inputs
        }
    }

    /// True when nothing waits to be taken.
    public var isEmpty: Bool { inputs.withLock { $0.isEmpty } }
}
