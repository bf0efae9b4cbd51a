import FoundationEssentials

/// A finished task's result as the journal keeps it until the widget acknowledges it.
public struct SessionEvent: Sendable, Equatable {
    /// How the task ended.
    public enum Outcome: Sendable, Equatable {
        /// The body is kept at `file` (under `<state>/sessions/<identifier>/`) until acknowledged.
        case downloaded(file: String, status: Int, byteCount: Int, validators: Validators, attempts: Int)
        case notModified(Validators)
        case failed(reason: String, attempts: Int, retryAfter: Duration?)
        case cancelled
        /// Background sessions were off (another host holds the state directory).
        case unavailable(String)
    }

    /// Increasing in the order results were recorded: the delivery order.
    public var eventID: Int64
    public var sessionIdentifier: String
    public var taskIdentifier: Int
    public var taskDescription: String?
    public var url: String
    public var outcome: Outcome
    public var recorded: Date
    /// How many times it was handed to a delegate already (a re-delivery after a crash is > 0).
    public var deliveryCount: Int

    /// A short phrase for listings: "downloaded 200, 31 bytes", "failed: server answered 500 …".
    public var summary: String {
        switch outcome {
        case .downloaded(_, let status, let count, _, let attempts):
            "downloaded \(status), \(count) bytes" + (attempts > 1 ? " after \(attempts) tries" : "")
        case .notModified: "not modified"
        case .failed(let reason, _, _): "failed: \(reason)"
        case .cancelled: "cancelled"
        case .unavailable(let message): "unavailable: \(message)"
        }
    }
}
