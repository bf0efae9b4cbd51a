#if canImport(Glibc)
import Glibc
#endif

/// Reads files of a proc file system (`/proc`, or a fake tree in tests) for the `system`
/// widget, bounded and without trusting what it finds.
///
/// Proc files report a size of 0, so they are read until end of file, at most `limit` bytes
/// (`/proc/stat`'s `intr` line alone can be tens of kilobytes; the CPU lines come first).
/// Blocking, so it runs on the provider pool, never on the loop.
struct ProcFiles: Sendable {
    /// Why a file could not be used; the message names the file as `/proc/NAME`, whatever
    /// the root, since that is what the user knows.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case missing(String)
        case unreadable(String, errno: Int32)
        case odd(String)

        var description: String {
            switch self {
            case .missing(let name): "/proc/\(name) missing"
            case .unreadable(let name, let code): "/proc/\(name) unreadable (errno \(code))"
            case .odd(let name): "/proc/\(name) unexpected"
            }
        }
    }

    /// The directory proc files are read from.
    var root: String
    /// Most bytes read from one file.
    var limit: Int = 256 << 10

    /// The text of `name` under the root; a file cut at `limit` loses its partial last line.
    func text(_ name: String) throws(Problem) -> String {
        let fd = open(root + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw code == ENOENT || code == ENOTDIR ? .missing(name) : .unreadable(name, errno: code)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var cut = false
        while true {
            let room = limit - bytes.count
            guard room > 0 else { cut = true; break }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min(room, $0.count)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(name, errno: errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        if cut, let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) {
            bytes.removeSubrange((lastNewline + 1)...)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
