#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Synchronization
import Testing
import TerminalUI
import WidgetCore
import WidgetTestSupport
@testable import Widgets

// The `text` widget: timelines from a manual clock's dates, real files in a temporary
// directory, real inotify for the watcher.

private let context = TimelineProviderContext(family: .medium, size: CellSize(columns: 40, rows: 6))

private func write(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot write \(path)")
    _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
}

/// Writes `text` to a temporary file next to `path` and renames it over `path`, as editors save.
private func replaceByRename(_ path: String, _ text: String) {
    write(path + ".tmp~", text)
    precondition(rename(path + ".tmp~", path) == 0)
}

private func draw(_ entry: TextEntry, family: WidgetFamily, width: Int, height: Int) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    TextWidget.view(entry, context: WidgetViewContext(family: family, size: CellSize(columns: width, rows: height)))
        .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
    return buffer
}

@Suite("text widget")
struct TextTests {
    @Test("static text: one entry, policy never; CRLF and CR end lines, tabs are four spaces")
    func staticText() async throws {
        let provider = TextProvider(source: .text("a\r\nb\rc\td"), wrap: true, watcher: nil, now: { at(5) })
        let timeline = try await provider.timeline(in: context)
        #expect(timeline.entries == [TextEntry(date: at(5), text: "a\nb\nc    d", wrap: true)])
        #expect(timeline.policy == .never)
    }

    @Test("a file is shown; a missing file says so, and is shown once it appears (its directory watched: policy never)")
    func fileAndMissingFile() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-file")
        defer { removeTree(directory) }
        let reloads = Atomic<Int>(0)
        let watcher = FileWatcher { reloads.add(1, ordering: .relaxed) }
        let provider = TextProvider(source: .file(directory + "/notes.txt"), wrap: true, watcher: watcher, now: { at(0) })
        let missing = try await provider.timeline(in: context)
        #expect(missing.entries.first?.notice == "no file at \(directory)/notes.txt")
        #expect(missing.entries.first?.isError == true)
        #expect(missing.policy == .never, "the watch on the directory tells when it appears")
        write(directory + "/notes.txt", "hello")
        #expect(await eventually { reloads.load(ordering: .relaxed) > 0 }, "creating the file reloads")
        let shown = try await provider.timeline(in: context)
        #expect(shown.entries.first?.text == "hello" && shown.entries.first?.notice == nil)
    }

    @Test("a file in a directory that does not exist yet: polled every 30 s until it can be watched")
    func missingDirectory() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-nodir")
        defer { removeTree(directory) }
        let provider = TextProvider(source: .file(directory + "/later/notes.txt"), wrap: true,
                                    watcher: FileWatcher {}, now: { at(100) })
        let timeline = try await provider.timeline(in: context)
        #expect(timeline.policy == .after(at(130)))
        mkdir(directory + "/later", 0o700)
        write(directory + "/later/notes.txt", "now")
        let found = try await provider.timeline(in: context)
        #expect(found.entries.first?.text == "now" && found.policy == .never)
    }

    @Test("replacing the file by rename reloads; other files in the directory do not")
    func watcherFiltersByName() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-watch")
        defer { removeTree(directory) }
        write(directory + "/notes.txt", "one")
        let reloads = Atomic<Int>(0)
        let watcher = FileWatcher { reloads.add(1, ordering: .relaxed) }
        let lease = watcher.lease(directory + "/notes.txt")
        defer { withExtendedLifetime(lease) {} }
        #expect(lease.renew())
        // Noise first: another file written, created, renamed, deleted.
        write(directory + "/other.txt", "x")
        replaceByRename(directory + "/other.log", "y")
        unlink(directory + "/other.txt")
        // The event: the watcher's thread has read and handled them all (it sleeps in read again).
        #expect(await eventually { watcherThreadsAsleepInRead() })
        #expect(reloads.load(ordering: .relaxed) == 0, "other files in the directory cost no reload")
        // Then the marker: the watched file replaced by rename (the temporary's own events are noise too).
        replaceByRename(directory + "/notes.txt", "two")
        #expect(await eventually { reloads.load(ordering: .relaxed) >= 1 })
        // The rename is one event for notes.txt; nothing for the noise.
        #expect(await eventually { watcherThreadsAsleepInRead() })
        #expect(reloads.load(ordering: .relaxed) == 1)
    }

    @Test("a file is read up to 1 MiB and says so; a directory or a FIFO is refused without hanging")
    func boundedAndRefused() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-big")
        defer { removeTree(directory) }
        write(directory + "/big.txt", String(repeating: "abcdefgh", count: 200_000))
        let big = TextProvider(source: .file(directory + "/big.txt"), wrap: true, watcher: nil, now: { at(0) }).entry()
        #expect(big.notice == "only the first 1 MiB is shown")
        #expect(big.text.unicodeScalars.count == TextProvider.maximumLineScalars, "one line, cut to what a panel can show")
        write(directory + "/lines.txt", String(repeating: "line\n", count: 200_000))
        let lines = TextProvider(source: .file(directory + "/lines.txt"), wrap: true, watcher: nil, now: { at(0) }).entry()
        #expect(lines.text.split(separator: "\n").count == TextProvider.maximumLines)
        #expect(lines.notice == nil, "1,000,000 bytes: read whole")
        #expect(TextProvider(source: .file(directory), wrap: true, watcher: nil, now: { at(0) }).entry().notice
            == "cannot read \(directory): Is a directory")
        mkfifo(directory + "/fifo", 0o600)
        #expect(TextProvider(source: .file(directory + "/fifo"), wrap: true, watcher: nil, now: { at(0) }).entry().isError)
    }

    @Test("each family's frame: wrapped at display width (CJK, emoji), escapes inert", arguments: [
        (WidgetFamily.small, 24, 7), (.medium, 50, 7), (.large, 50, 17), (.extraLarge, 98, 17),
    ])
    func families(family: WidgetFamily, width: Int, height: Int) {
        let text = "Notes 📝 for 東京 and 서울: the quick brown fox jumps over the lazy dog.\n\u{1B}[2Jno clear\n\nlast line"
        let frame = draw(TextEntry(date: at(0), text: text, wrap: true), family: family, width: width, height: height)
        expectSnapshot(TextWidget_text(frame), named: "text-\(family)-\(width)x\(height)")
        #expect(!TextBackend.lines(frame).joined().contains("\u{1B}"))
    }

    @Test("wrap false cuts lines with …; a missing file's notice is centred; a long file's notice is on top")
    func notices() {
        let cut = TextBackend.lines(draw(TextEntry(date: at(0), text: "0123456789abc", wrap: false), family: .small, width: 10, height: 2))
        #expect(cut[0] == "012345678…")
        let missing = TextBackend.lines(draw(TextEntry(date: at(0), text: "", notice: "no file at /x", isError: true, wrap: true),
                                             family: .small, width: 20, height: 3))
        #expect(missing[1] == "   no file at /x")
        let long = TextBackend.lines(draw(TextEntry(date: at(0), text: "a\nb\nc", notice: "only the first 1 MiB is shown", wrap: true),
                                          family: .small, width: 40, height: 2))
        #expect(long[0].hasPrefix("only the first 1 MiB is shown") && long[1].hasPrefix("a"))
    }

    @Test("the editor command: $EDITOR split into words (quotes group), looked up in PATH, then the file; vi by default")
    func editorCommand() {
        let path = ["PATH": "/usr/bin:/bin"]
        #expect(TextWidget.editorCommand(file: "/n.txt", environment: path).last == "/n.txt")
        #expect(TextWidget.editorCommand(file: "/n.txt", environment: path).first?.hasSuffix("vi") == true)
        #expect(TextWidget.editorCommand(file: "/n.txt", environment: path.merging(["EDITOR": "  "]) { $1 }).first?.hasSuffix("vi") == true)
        #expect(TextWidget.editorCommand(file: "/n.txt", environment: path.merging(["EDITOR": "sh -c 'x y'"]) { $1 })
            == ["/usr/bin/sh", "-c", "x y", "/n.txt"] || TextWidget.editorCommand(file: "/n.txt", environment: path.merging(["EDITOR": "sh -c 'x y'"]) { $1 })
            == ["/bin/sh", "-c", "x y", "/n.txt"])
        #expect(TextWidget.split(#""my editor" --wait a\ b"#) == ["my editor", "--wait", "a b"])
        #expect(TextWidget.split("") == [])
        #expect(TextWidget.path("~/notes.txt", environment: ["HOME": "/home/u"]) == "/home/u/notes.txt")
        #expect(TextWidget.path("notes.txt", environment: ["HOME": "/home/u"]) == "notes.txt")
    }

    @Test("a text panel removed (a config reload) stops watching its file; a directory no panel shows is unwatched")
    @MainActor
    func removedPanelUnwatched() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-removed")
        defer { removeTree(directory) }
        write(directory + "/a.txt", "a")
        write(directory + "/b.txt", "b")
        let watcher = FileWatcher {}
        let clock = ManualClock(now: at(0))
        let driver = TimelineDriver(clock: clock)
        func panel(_ name: String) -> WidgetInstanceID {
            let provider = TextProvider(source: .file(directory + "/" + name), wrap: true, watcher: watcher, now: { at(0) })
            return driver.add(kind: TextWidget.kind, family: .medium, size: context.size, provider: AnyTimelineProvider(provider))
        }
        let a = panel("a.txt"), b = panel("b.txt")
        await driver.settle()
        #expect(watcher.watched == [directory: ["a.txt", "b.txt"]])
        #expect(inotifyWatches(watcher.descriptor) == 1, "one watch for the directory")
        driver.remove(a)
        #expect(watcher.watched == [directory: ["b.txt"]], "b's panel still shows its file")
        driver.remove(b)
        #expect(watcher.watched == [:])
        #expect(inotifyWatches(watcher.descriptor) == 0, "the kernel's watch is gone too")
    }

    @Test("a file two panels show stays watched until the last of them goes")
    func sharedFileLease() throws {
        let directory = makeTemporaryDirectory(prefix: "text-lease")
        defer { removeTree(directory) }
        let watcher = FileWatcher {}
        var first: FileWatcher.Lease? = watcher.lease(directory + "/notes.txt")
        let second = watcher.lease(directory + "/notes.txt")
        #expect(first?.renew() == true && second.renew())
        first = nil
        #expect(watcher.watched == [directory: ["notes.txt"]])
        withExtendedLifetime(second) {}
    }

    @Test("the watcher's thread is named wh-watch, like the host's other threads (top -H, the benchmark)")
    func watcherThreadNamed() async throws {
        let directory = makeTemporaryDirectory(prefix: "text-thread")
        defer { removeTree(directory) }
        let lease = FileWatcher {}.lease(directory + "/notes.txt")
        #expect(lease.renew())
        #expect(await eventually { threadNames().contains(FileWatcher.threadName) }, "\(threadNames())")
        #expect(FileWatcher.threadName == "wh-watch")
        withExtendedLifetime(lease) {}
    }
}

/// The watches of inotify descriptor `fd` (its `inotify wd:` lines in /proc/self/fdinfo).
private func inotifyWatches(_ fd: Int32) -> Int {
    guard fd >= 0, let info = try? FileContents.text(at: "/proc/self/fdinfo/\(fd)") else { return 0 }
    return info.split(separator: "\n").count { $0.hasPrefix("inotify wd:") }
}

/// The names of this process's threads (/proc/self/task/TID/comm).
private func threadNames() -> [String] {
    guard let tasks = opendir("/proc/self/task") else { return [] }
    defer { closedir(tasks) }
    var names: [String] = []
    while let entry = readdir(tasks) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard tid.first?.isNumber == true, let comm = try? FileContents.text(at: "/proc/self/task/\(tid)/comm") else { continue }
        names.append(String(comm.prefix { $0 != "\n" }))
    }
    return names
}

/// Whether every `wh-watch` thread of this process sleeps in read(2) (state S, syscall 0 on
/// x86_64): it has read and handled every inotify event queued so far. Events are queued (and
/// the reader made runnable, state R) before the write, rename or unlink that caused them
/// returns, so once they are, a sleeping reader has handled them.
private func watcherThreadsAsleepInRead() -> Bool {
    guard let tasks = opendir("/proc/self/task") else { return false }
    defer { closedir(tasks) }
    var found = false
    while let entry = readdir(tasks) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard tid.first?.isNumber == true, let comm = try? FileContents.text(at: "/proc/self/task/\(tid)/comm"),
              comm == FileWatcher.threadName + "\n" else { continue }
        guard let stat = try? FileContents.text(at: "/proc/self/task/\(tid)/stat"), let close = stat.lastIndex(of: ")"),
              stat[stat.index(after: close)...].split(separator: " ").first == "S",
              let syscall = try? FileContents.text(at: "/proc/self/task/\(tid)/syscall"),
              syscall.split(separator: " ").first == "0" else { return false }
        found = true
    }
    return found
}

private func TextWidget_text(_ buffer: CellBuffer) -> String {
    TextBackend.lines(buffer).joined(separator: "\n") + "\n"
}
