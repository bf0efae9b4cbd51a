#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import Synchronization
import WidgetCore

/// Why a POST failed: the reason in words and, when the server answered, its status.
public struct HTTPPostError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int?
    public var description: String
}

extension WidgetContext {
    /// POSTs `body` to `url` through the host's transport and returns the 2xx status; throws
    /// `HTTPPostError` otherwise. Cancelling the task (the action's
    /// timeout) cancels the request. The answer's body is not kept.
    public func post(_ url: String, body: [UInt8] = []) async throws -> Int {
        guard let transport else { throw HTTPPostError(status: nil, description: "no network in this mode") }
        let name = "widgethost-action-\(getpid())-\(ActionFiles.next())"
        let request = TransferRequest(url: url, directory: temporary, fileName: name, postBody: body)
        let started = Mutex<TransferID?>(nil)
        let result: TransferResult = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let id = transport.start(request) { event in
                    if case .finished(let result) = event { continuation.resume(returning: result) }
                }
                started.withLock { $0 = id }
                if Task.isCancelled { transport.cancel(id) }
            }
        } onCancel: {
            if let id = started.withLock({ $0 }) { transport.cancel(id) }
        }
        switch result {
        case .downloaded(let file):
            unlink(file.path)
            return file.status
        case .notModified:
            return 304
        case .failed(let failure):
            if case .httpStatus(let status) = failure.kind { throw HTTPPostError(status: status, description: failure.reason) }
            throw HTTPPostError(status: nil, description: failure.reason)
        case .cancelled:
            throw HTTPPostError(status: nil, description: "cancelled")
        }
    }
}

/// Unique names for actions' answer files within this process.
private enum ActionFiles {
    static let counter = Atomic<UInt64>(0)
    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
