import BackgroundSessions
import FoundationEssentials
import Glibc
import Synchronization
import WidgetCore

/// A session delegate that prints each callback as one flushed line, and calls the stored
/// completion after the batch (or stops there when asked to: after any batch, or after one
/// with a "not modified").
final class PrintingDelegate: BackgroundSessionDelegate {
    let pauseBeforeCompletion: Bool
    let pauseAfterNotModified: Bool
    let completion = Mutex<SendableAction?>(nil)
    private let sawNotModified = Mutex(false)

    init(pauseBeforeCompletion: Bool, pauseAfterNotModified: Bool = false) {
        self.pauseBeforeCompletion = pauseBeforeCompletion
        self.pauseAfterNotModified = pauseAfterNotModified
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        let path = location.path
        var body = ""
        if let file = fopen(path, "rb") {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = fread(&buffer, 1, buffer.count, file)
            fclose(file)
            body = String(decoding: buffer[0..<max(n, 0)], as: UTF8.self)
        }
        say("didFinishDownloading task=\(downloadTask.taskIdentifier) body=\(body)")
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        if case .notModified? = error { sawNotModified.withLock { $0 = true } }
        say("didComplete task=\(task.taskIdentifier) error=\(error.map { "\($0)" } ?? "nil")")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        say("didFinishEvents session=\(session.identifier)")
        if pauseBeforeCompletion { CrashHelper.pause("after-finish-before-completion") }
        if pauseAfterNotModified && sawNotModified.withLock({ $0 }) { CrashHelper.pause("after-304-before-completion") }
        let done = completion.withLock { c -> SendableAction? in
            defer { c = nil }
            return c
        }
        done?.run()
    }
}

/// Writes one line to stdout at once, unbuffered (the test reads it through a pipe).
func say(_ line: String, fd: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
