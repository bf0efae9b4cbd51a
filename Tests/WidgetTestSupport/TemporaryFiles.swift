#if canImport(Glibc)
import Glibc
#endif

/// Creates a fresh empty directory `/tmp/PREFIX-XXXXXX` (`mkdtemp`) and returns its path.
///
/// For in-process tests, which own what they create; `removeTree(_:)` deletes it again.
public func makeTemporaryDirectory(prefix: String) -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// `rm -rf PATH` without a subprocess: a file, or a directory with everything below it.
public func removeTree(_ path: String) {
    guard let dir = opendir(path) else { unlink(path); return }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(dir)
    for name in names { removeTree(path + "/" + name) }
    rmdir(path)
}
