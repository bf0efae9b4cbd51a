import FoundationEssentials

/// A download task as the journal keeps it: from its start until its result is acknowledged.
public struct JournaledTask: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Started and not finished; resumed on the next start of the host.
        case running
        /// Finished; its event waits to be acknowledged.
        case finished
        case cancelled
    }

    public var taskIdentifier: Int
    public var sessionIdentifier: String
    public var taskDescription: String?
    public var url: String
    public var state: State
    public var attempts: Int
    /// The reason of the last failed attempt, if any.
    public var lastError: String?
    public var created: Date
    public var updated: Date
}
