#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import ExtensionProtocol
import FoundationEssentials
import JSONTree
import Synchronization

/// One batch of session events for an extension, and the completion that acknowledges them.
struct SessionDelivery: Sendable {
    /// The identifier the extension gave (`board`), without the host's prefix.
    var identifier: String
    /// `{task, description, url, status, file?, error?, notModified?}` each.
    var events: [JSONValue]
    /// Bodies kept for the extension until it answers.
    var files: [String]
    /// `HeaderLedger` keys of the events' downloads.
    var keys: Set<String> = []
    var completion: @Sendable () -> Void
}

/// Collects one batch of an extension's session events as the manager delivers them and
/// hands it over for `sessionEvents`. Bodies are linked (or copied) into the extension's
/// data directory (`.downloads/`, never through a link: `ExtensionDownloads`), where they stay
/// until the extension answers.
final class ExtensionSessionDelegate: BackgroundSessionDelegate {
    private struct Batch {
        var events: [JSONValue] = []
        var files: [String] = []
        var pendingFile: [Int: String] = [:]
        var keys: Set<String> = []
    }

    private let identifier: String
    private let downloads: ExtensionDownloads?
    private let completion: @Sendable () -> Void
    private let finished: @Sendable (SessionDelivery) -> Void
    /// Whether a cancelled task is one the host failed for want of its headers after a restart.
    private let interrupted: @Sendable (BackgroundDownloadTask) -> Bool
    private let batch = Mutex(Batch())

    init(identifier: String, downloads: ExtensionDownloads?, completion: @escaping @Sendable () -> Void,
         interrupted: @escaping @Sendable (BackgroundDownloadTask) -> Bool = { _ in false },
         finished: @escaping @Sendable (SessionDelivery) -> Void) {
        self.identifier = identifier
        self.interrupted = interrupted
        self.downloads = downloads
        self.completion = completion
        self.finished = finished
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        guard let downloads,
              let target = downloads.place(location.path, as: "\(identifier)-task-\(downloadTask.taskIdentifier)",
                                           task: downloadTask.taskIdentifier) else { return }
        batch.withLock { $0.pendingFile[downloadTask.taskIdentifier] = target }
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        batch.withLock { batch in
            var members: [(String, JSONValue)] = [(SessionEventMember.task.rawValue, .integer(task.taskIdentifier))]
            if let description = task.taskDescription { members.append((SessionEventMember.description.rawValue, .string(description))) }
            members.append((SessionEventMember.url.rawValue, .string(task.url.absoluteString)))
            batch.keys.insert(HeaderLedger.key(session: task.sessionIdentifier, url: task.url.absoluteString))
            let file = batch.pendingFile.removeValue(forKey: task.taskIdentifier)
            switch error {
            case nil:
                if let file {
                    members.append((SessionEventMember.status.rawValue, .string(SessionEventStatus.downloaded.rawValue)))
                    members.append((SessionEventMember.file.rawValue, .string(file)))
                    batch.files.append(file)
                } else {
                    members.append((SessionEventMember.status.rawValue, .string(SessionEventStatus.failed.rawValue)))
                    members.append((SessionEventMember.error.rawValue, .string("the host could not keep the downloaded file")))
                }
            case .notModified?:
                members.append((SessionEventMember.status.rawValue, .string(SessionEventStatus.notModified.rawValue)))
                members.append((SessionEventMember.notModified.rawValue, .bool(true)))
            case .cancelled? where interrupted(task):
                members.append((SessionEventMember.status.rawValue, .string(SessionEventStatus.failed.rawValue)))
                members.append((SessionEventMember.error.rawValue, .string(ExtensionHost.interruptedWithHeaders)))
            case .cancelled?:
                members.append((SessionEventMember.status.rawValue, .string(SessionEventStatus.cancelled.rawValue)))
            case let other?:
                members.append((SessionEventMember.status.rawValue, .string((other.isUnavailable ? SessionEventStatus.unavailable : .failed).rawValue)))
                members.append((SessionEventMember.error.rawValue, .string(other.description)))
            }
            batch.events.append(RPCMessage.object(members))
        }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        let done = batch.withLock { batch -> Batch in
            defer { batch = Batch() }
            return batch
        }
        finished(SessionDelivery(identifier: identifier, events: done.events, files: done.files, keys: done.keys, completion: completion))
    }
}

extension BackgroundTaskError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
