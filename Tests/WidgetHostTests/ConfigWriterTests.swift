#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import Testing
@testable import WidgetHost

private func mode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

@Suite("ConfigWriter: permission bits and what a save leaves behind")
struct ConfigWriterTests {
    @Test("an existing file keeps its bits exactly (0600 stays 0600, its .bak too); a new one is 0644 less the umask")
    func permissions() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let kept = directory.path + "/private.json"
        try ConfigWriter.replace(kept, with: Array("{}\n".utf8))
        chmod(kept, 0o600)
        try ConfigWriter.replace(kept, with: Array("{\"panels\": []}\n".utf8))
        #expect(mode(kept) == 0o600)
        #expect(mode(kept + ".bak") == 0o600)

        // The process's umask, read without setting it (other tests create files meanwhile).
        let status = try #require(try? ConfigFileReader.read("/proc/self/status"))
        let line = try #require(String(decoding: status, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }, radix: 8))
        let fresh = directory.path + "/new.json"
        try ConfigWriter.replace(fresh, with: Array("{}\n".utf8))
        #expect(mode(fresh) == 0o644 & ~mask, "0644 less the umask \(String(mask, radix: 8))")
        // Nothing else is left in the directory: no temporary file.
        let names = Set(FilePaths.list(directory.path))
        #expect(names == ["private.json", "private.json.bak", "new.json"], "\(names)")
    }
}
