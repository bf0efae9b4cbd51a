#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WidgetHost

private func size(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

private func contents(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var all: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        all += chunk[0..<n]
    }
    return String(decoding: all, as: UTF8.self)
}

@Suite("host log")
struct HostLogTests {
    @Test("past 1 MiB the log is renamed widgethost.log.1 and a new one started; one old file is kept")
    func rotates() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/widgethost.log"
        let log = try #require(HostLog(path: path, debug: false))
        let filler = String(repeating: "x", count: 100)
        // About 2.5 MiB in numbered lines: two rotations.
        let count = 20_000
        for i in 0..<count { log.info("line \(i) \(filler)") }
        let current = try #require(size(path))
        let old = try #require(size(path + ".1"))
        #expect(current <= HostLog.defaultMaxBytes && old <= HostLog.defaultMaxBytes)
        #expect(old > HostLog.defaultMaxBytes - 200, "the old file was rotated well before it was full")
        #expect(size(path + ".2") == nil)
        // Nothing lost across the last rotation: .1 ends where the current file begins.
        let newest = contents(path).split(separator: "\n")
        let previous = contents(path + ".1").split(separator: "\n")
        #expect(newest.last?.contains("info line \(count - 1) ") == true)
        let firstNumber = try #require(newest.first.flatMap { Int($0.split(separator: " ")[3]) })
        #expect(previous.last?.contains("info line \(firstNumber - 1) ") == true)
        #expect(newest.count + previous.count < count)
    }

    @Test("a log reopened by the next run counts what is already there")
    func reopenCountsExistingSize() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/widgethost.log"
        directory.write("widgethost.log", String(repeating: "y", count: HostLog.defaultMaxBytes - 10) + "\n")
        let log = try #require(HostLog(path: path, debug: false))
        log.info("this line does not fit")
        #expect(size(path + ".1") == HostLog.defaultMaxBytes - 9)
        #expect(contents(path).hasSuffix(" info this line does not fit\n"))
    }

    @Test("a huge message is cut to one bounded line; controls become spaces")
    func boundedLine() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/widgethost.log"
        let log = try #require(HostLog(path: path, debug: false))
        log.error("bad\u{1B}[2J\u{9B}31m\nnext " + String(repeating: "é", count: 100_000))
        let text = contents(path)
        #expect(text.utf8.count <= HostLog.maxLineBytes)
        #expect(text.hasSuffix(" …\n"))
        #expect(text.filter { $0 == "\n" }.count == 1)
        #expect(text.contains(" error bad [2J 31m next éé"))
    }

    @Test("a symlink in the log's place is not followed")
    func symlinkRefused() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("elsewhere", "keep\n")
        symlink(target, directory.path + "/widgethost.log")
        #expect(HostLog(path: directory.path + "/widgethost.log", debug: false) == nil)
        #expect(contents(target) == "keep\n")
    }
}
