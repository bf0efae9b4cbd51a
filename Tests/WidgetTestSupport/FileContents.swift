#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file for a test to check: a server's log, a delivered download, a state file.
///
/// A file that may not exist yet reads as `(try? FileContents.text(at: path)) ?? ""`.
public enum FileContents {
    /// Every byte of the file at `path`; throws when it cannot be opened.
    public static func bytes(at path: String) throws(HarnessError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw HarnessError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// The file's text as UTF-8 (invalid bytes replaced); throws when it cannot be opened.
    public static func text(at path: String) throws(HarnessError) -> String {
        String(decoding: try bytes(at: path), as: UTF8.self)
    }
}
