/// What reaches a `TimelineDriver` from other threads, through its loop's mailbox
/// (`LoopMailbox`): applied on the loop with `TimelineDriver.take(_:)`.
public enum TimelineInput: Sendable {
    /// A provider call's answer (`ProviderCallRunner`).
    case answered(ProviderAnswer)
    /// The `WidgetCenter` has requests (a session's delegate, an extension, a reload key):
    /// taken from the center on the loop, so a burst of them is one message.
    case centerRequests
}
