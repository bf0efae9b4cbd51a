#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// Links an extension puts in its data directory: the host never writes, and never deletes,
/// through them (its `.downloads` folder and the bodies in it follow the state directory's
/// rules: no link followed, only regular files removed), and says so in its log.
@Suite("Extension downloads and links in the data directory", .serialized, .onOwnThreads)
struct ExtensionDownloadLinkTests {
    /// A directory outside the data directory holding `precious` under `name`, and a rig
    /// whose download is started (its task number read from the extension's answer).
    private func startDownload(_ rig: SessionRig) async throws -> (task: Int, outside: String) {
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        var answer = ""
        #expect(await eventually {
            answer = rig.fake.logLines.first { $0.hasPrefix("info: fake stderr: download answered: ") } ?? ""
            return !answer.isEmpty
        })
        let digits = answer.split(separator: #""task":"#).last?.prefix { $0.isNumber } ?? ""
        let task = try #require(Int(digits), "\(answer)")
        let outside = rig.fake.scratch.path + "/outside"
        mkdir(outside, 0o700)
        _ = try rig.fake.scratch.write("outside/board-task-\(task)", "precious")
        return (task, outside)
    }

    private var dataDirectory: (SessionRig) -> String { { $0.fake.stateDirectory + "/extensions/fake" } }

    @Test(".downloads replaced by a link to a directory outside: the body is not written there, nothing there is deleted, the event says failed")
    func downloadsLinkedBeforeTheBody() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        let (task, outside) = try await startDownload(rig)
        let data = dataDirectory(rig)
        rmdir(data + "/.downloads")
        #expect(symlink(outside, data + "/.downloads") == 0)
        try rig.finishDownload("BOARD 1")
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(readText(outside + "/board-task-\(task)") == "precious", "the file outside is intact")
        #expect(directoryNames(outside) == ["board-task-\(task)"], "nothing new outside: \(directoryNames(outside))")
        let events = rig.fake.logLines.first { $0.contains("events (launch 1)") } ?? ""
        #expect(events.contains(#""status":"failed","error":"the host could not keep the downloaded file""#), "\(events)")
        #expect(rig.fake.logLines.contains { $0.hasPrefix("error: fake: download \(task) not kept:") && $0.contains(".downloads is not a directory") },
                "\(rig.fake.logLines)")
    }

    @Test(".downloads replaced by a link while the extension holds the body: the host's cleanup deletes nothing outside")
    func downloadsLinkedBeforeTheCleanup() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        let (task, outside) = try await startDownload(rig)
        _ = try rig.fake.scratch.write("fake/swap-downloads", outside)
        try rig.finishDownload("BOARD 2")
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 2"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(await rig.fake.logged { $0.contains("board-task-\(task) left in place") }, "\(rig.fake.logLines)")
        #expect(readText(outside + "/board-task-\(task)") == "precious", "the file outside is intact")
        #expect(readText(dataDirectory(rig) + "/.downloads-moved/board-task-\(task)") == "BOARD 2")
    }

    @Test("a body replaced by a link to a file outside: the host's cleanup leaves the file and says so")
    func bodyLinkedBeforeTheCleanup() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        let (task, outside) = try await startDownload(rig)
        _ = try rig.fake.scratch.write("fake/link-body", outside + "/board-task-\(task)")
        try rig.finishDownload("BOARD 3")
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 3"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(await rig.fake.logged { $0.contains("board-task-\(task) left in place") }, "\(rig.fake.logLines)")
        #expect(readText(outside + "/board-task-\(task)") == "precious", "the file outside is intact")
    }
}

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return count >= 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
}

private func directoryNames(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}
