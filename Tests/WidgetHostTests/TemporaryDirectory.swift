#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for a test's files, removed with `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/widgethost-tests-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let created else { preconditionFailure("mkdtemp failed") }
        path = created
    }

    /// Writes `bytes` to `name` inside the directory and returns the file's path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(file)")
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return file
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

    /// Creates a subdirectory and returns its path.
    @discardableResult
    func makeDirectory(_ name: String) -> String {
        let directory = path + "/" + name
        mkdir(directory, 0o755)
        return directory
    }

    func remove() {
        _ = system("rm -rf '\(path)'")
    }
}
