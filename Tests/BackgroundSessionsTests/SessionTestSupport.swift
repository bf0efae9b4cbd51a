import BackgroundSessions
import FoundationEssentials
import Glibc
import Synchronization
import WidgetCore
import WidgetTestSupport

/// A delegate that records every callback as a line, checks the delivered file while the
/// call runs, and keeps the handler's completion for the test to call.
final class RecordingDelegate: BackgroundSessionDelegate {
    struct Delivered: Sendable {
        var path: String
        var bytes: [UInt8]
    }

    let log = RecordedEvents<String>()
    let files = Mutex<[Delivered]>([])
    let completion = Mutex<SendableAction?>(nil)

    var lines: [String] { log.values }

    /// Waits (bounded) until `count` lines have been recorded: the callback itself ends the wait.
    func lines(count: Int, within seconds: Double = 30) async -> Bool {
        await log.wait(within: seconds) { $0.count == count }
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        let bytes = (try? FileContents.bytes(at: location.path)) ?? []
        files.withLock { $0.append(Delivered(path: location.path, bytes: bytes)) }
        log.append("download \(downloadTask.taskIdentifier) exists=\(access(location.path, F_OK) == 0)")
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        log.append("complete \(task.taskIdentifier) \(error.map { "\($0)" } ?? "nil")")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        log.append("finished \(session.identifier)")
    }

    /// Calls the completion the handler stored (once).
    func callCompletion() {
        let c = completion.withLock { c -> SendableAction? in
            defer { c = nil }
            return c
        }
        c?.run()
    }
}

/// A router for one handler that, like a widget, re-creates its session with `delegate` and
/// keeps the completion; counts its calls.
func widgetRouter(_ manager: BackgroundSessionManager, delegate: RecordingDelegate, calls: Counter,
                  matching: @escaping @Sendable (String) -> Bool) -> BackgroundSessionManager.EventRouter {
    let handler = BackgroundSessionEventsHandler(matcher: .predicate(matching)) { identifier, completion in
        _ = calls.next()
        delegate.completion.withLock { $0 = SendableAction(completion) }
        _ = manager.session(identifier: identifier, delegate: delegate)
    }
    return { handler.matches($0) ? handler : nil }
}

/// Regular files under `path`, recursively, relative to it, sorted.
func filesUnder(_ path: String, prefix: String = "") -> [String] {
    guard let dir = opendir(path) else { return [] }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(dir)
    var out: [String] = []
    for name in names {
        var info = stat()
        stat(path + "/" + name, &info)
        if (info.st_mode & S_IFMT) == S_IFDIR { out += filesUnder(path + "/" + name, prefix: prefix + name + "/") } else {
            out.append(prefix + name)
        }
    }
    return out.sorted()
}

/// A fresh state directory path (not yet created) under /tmp.
func scratchStatePath() -> String {
    makeTemporaryDirectory(prefix: "bgs-state") + "/state"
}

/// A settable "now" for retention tests.
final class TestNow: Sendable {
    private let value: Mutex<Date>
    init(_ date: Date) { value = Mutex(date) }
    var date: Date { value.withLock { $0 } }
    func advance(by seconds: Double) { value.withLock { $0 += seconds } }
}
