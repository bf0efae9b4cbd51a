#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test's files (configs, a fake home), removed with
/// `remove()`.
public struct ScratchDirectory: Sendable {
    public let path: String

    public init() throws(HarnessError) {
        var template = Array("/tmp/widgethost-e2e-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let created else { throw HarnessError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = created
    }

    /// Writes `text` to `name` inside the directory and returns the file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws(HarnessError) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HarnessError("cannot create \(file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw HarnessError("cannot write \(file): \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(written)
        }
        return file
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        _ = try? Subprocess.run(["rm", "-rf", "--", path], timeout: TestTimeScale.scaled(.seconds(10)))
    }
}
