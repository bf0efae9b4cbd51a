#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HostProcesses
import Synchronization
import Testing
import TerminalUI
import WidgetCore
import WidgetTestSupport
@testable import Widgets

// The `command` widget: real processes (/bin/sh) in real time for runs and timeouts; dates
// from a manual clock, so the timelines are exact.

private let hostEnvironment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"]

private func spec(_ command: String, interval: Int = 10, timeout: Int = 10, maxBytes: Int = 65_536,
                  tail: Bool = true, env: [String: String] = [:], directory: String? = nil) -> CommandSpec {
    CommandSpec(arguments: ["/bin/sh", "-c", command], environment: hostEnvironment.merging(env) { $1 },
                workingDirectory: directory, intervalSeconds: interval, timeoutSeconds: timeout, maxOutputBytes: maxBytes,
                showsTail: tail)
}

private func run(_ spec: CommandSpec, spawner: ProcessSpawner = ProcessSpawner()) async -> CommandRun {
    await CommandRunner(spawner: spawner).run(spec.arguments, environment: spec.environment,
                                              workingDirectory: spec.workingDirectory, timeoutSeconds: spec.timeoutSeconds,
                                              output: CapturedOutput(limit: spec.maxOutputBytes, keep: spec.showsTail ? .tail : .head))
}

/// `line` without its trailing spaces.
func trimmed(_ line: String) -> String {
    String(line.reversed().drop { $0 == " " }.reversed())
}

/// The state letter of `pid` (nil when it is gone).
func processState(_ pid: pid_t) -> String? {
    guard let stat = try? readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
}

func readText(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw POSIXErrorCode(rawValue: errno).map { POSIXError($0) } ?? POSIXError(.EIO) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func draw(_ entry: CommandEntry, family: WidgetFamily, width: Int, height: Int, placeholder: Bool = false,
                  at now: Date? = nil) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    CommandWidget.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: now ?? entry.date)
    return buffer
}

// Runs block in poll (as on the host's provider threads): off the cooperative pool.
@Suite("command widget: runs", .onOwnThreads(.blockingCalls))
struct CommandRunTests {
    @Test("a command that exits 3 reports exit 3 with its output (stdout and stderr), and leaves no child behind")
    func exitStatus() async {
        let spawner = ProcessSpawner()
        let result = await run(spec("echo out; echo err >&2; exit 3"), spawner: spawner)
        #expect(result.outcome == .exited(3))
        #expect(result.output.text == "out\nerr\n")
        #expect(spawner.runningCount == 0, "the child was waited for (the spawner forgets a child only after waitpid)")
    }

    @Test("a command that hangs is killed with its whole process group at the timeout, and reaped")
    func hangingCommand() async throws {
        let spawner = ProcessSpawner()
        let clock = ContinuousClock()
        let started = clock.now
        // The grandchild's pid comes out first; both then sleep far past the timeout.
        let result = await run(spec("sleep 300 & echo $!; sleep 300", timeout: 1), spawner: spawner)
        let took = clock.now - started
        #expect(result.outcome == .timedOut(seconds: 1))
        #expect(took >= .seconds(1) && took < .seconds(10), "\(took)")
        #expect(spawner.runningCount == 0, "the child was waited for (the spawner forgets a child only after waitpid)")
        let grandchild = try #require(pid_t(result.output.text.split(separator: "\n").first ?? ""))
        // SIGKILLed with the group: gone, or a zombie waiting for init to collect it (a signal is
        // delivered asynchronously: on a loaded machine the grandchild may take a moment to die).
        #expect(await eventually { processState(grandchild) == nil || processState(grandchild) == "Z" },
                "grandchild \(grandchild): \(processState(grandchild) ?? "gone")")
    }

    @Test("a command that closes its output and keeps running is still killed at the timeout")
    func closedOutputStillTimedOut() async {
        let spawner = ProcessSpawner()
        let result = await run(spec("exec >&- 2>&-; sleep 300", timeout: 1), spawner: spawner)
        #expect(result.outcome == .timedOut(seconds: 1))
        #expect(spawner.runningCount == 0, "the child was waited for (the spawner forgets a child only after waitpid)")
    }

    @Test("50 MB of output is read to the end but only maxOutputBytes are kept: the last ones for tail, the first for head")
    func boundedOutput() async {
        let command = "i=0; while [ $i -lt 50 ]; do head -c 1000000 /dev/zero | tr '\\0' x; i=$((i+1)); done; echo; echo last"
        let tail = await run(spec(command, timeout: 30, maxBytes: 4096))
        #expect(tail.outcome == .exited(0))
        #expect(tail.output.total == 50_000_006)
        #expect(tail.output.bytes.count <= 2 * 4096)
        #expect(tail.output.text.utf8.count == 4096)
        #expect(tail.output.text.hasSuffix("xxx\nlast\n"))
        let lines = CommandText.lines(tail.output.text, keepLast: true, limit: 10)
        #expect(lines.map { $0.map(\.text).joined().count } == [CommandText.maximumLineScalars, 4])
        let head = await run(spec("printf first; " + command, timeout: 30, maxBytes: 4096, tail: false))
        #expect(head.outcome == .exited(0), "the command is not stopped by the limit")
        #expect(head.output.bytes.count == 4096)
        #expect(head.output.text.hasPrefix("firstxxx"))
    }

    @Test("argv is looked up in PATH; env is added to the host's environment; workingDirectory is where it runs")
    func argvEnvironmentDirectory() async throws {
        let options: WidgetOptions = ["argv": .list([.string("sh"), .string("-c"), .string("echo $GREETING $HOME; pwd")]),
                                      "env": .object(["GREETING": .string("hello")]), "workingDirectory": .string("/usr")]
        let spec = try CommandWidget.spec(options, hostEnvironment: hostEnvironment)
        #expect(spec.arguments.first == "/usr/bin/sh" || spec.arguments.first == "/bin/sh")
        let result = await run(spec)
        #expect(result.output.text == "hello /tmp\n/usr\n")
    }

    @Test("a program that cannot be started, or a missing directory, is a failure to start, not a crash")
    func cannotStart() async throws {
        let missing = try CommandWidget.spec(["argv": .list([.string("no-such-program-4711")])], hostEnvironment: hostEnvironment)
        guard case .failedToStart(let reason) = await run(missing).outcome else { Issue.record("expected a failure"); return }
        #expect(reason.contains("no-such-program-4711"))
        let result = await run(spec("true", directory: "/no/such/directory"))
        guard case .failedToStart = result.outcome else { Issue.record("\(result.outcome)"); return }
    }

    @Test("cancelling the call (the host's request timeout) kills the group at once")
    func cancellation() async {
        let spawner = ProcessSpawner()
        let clock = ContinuousClock()
        let started = clock.now
        // A child task, not `Task {}`: it keeps the suite's threads (an unstructured task would
        // run on Swift's shared pool, which other suites' blocking calls can hold for seconds).
        let outcome = await withTaskGroup(of: CommandRun.self) { group -> CommandRun.Outcome? in
            group.addTask { await run(spec("sleep 300", timeout: 30), spawner: spawner) }
            try? await Task.sleep(for: .milliseconds(200))
            group.cancelAll()
            return await group.next()?.outcome
        }
        #expect(outcome == .cancelled)
        #expect(clock.now - started < .seconds(10))
        #expect(spawner.runningCount == 0, "the child was waited for (the spawner forgets a child only after waitpid)")
    }

    @Test("the loop reaping the child first (SIGCHLD) is fine: the run still learns the exit status")
    func reapedByAnotherThread() async {
        let spawner = ProcessSpawner()
        let stop = Atomic<Bool>(false)
        let reaper = Task.detached {
            while !stop.load(ordering: .relaxed) {
                spawner.reapExited()
            }
        }
        // Children that exit at once, reaped while `spawn` is still returning (the race the
        // dashboard's SIGCHLD reaping runs).
        for round in 0..<300 {
            let status = round % 4
            #expect(await run(spec("exit \(status)"), spawner: spawner).outcome == .exited(Int32(status)))
        }
        stop.store(true, ordering: .relaxed)
        await reaper.value
        #expect(spawner.runningCount == 0)
    }
}

@Suite("command widget: output")
struct CommandOutputTests {
    @Test("a tail keeps exactly the last limit bytes whatever the chunk sizes; a head the first")
    func capturedOutputSplits() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for chunk in [1, 3, 64, 99, 100, 101, 500, 1000] {
            var tail = CapturedOutput(limit: 100, keep: .tail)
            var head = CapturedOutput(limit: 100, keep: .head)
            for start in stride(from: 0, to: data.count, by: chunk) {
                let piece = Array(data[start..<min(data.count, start + chunk)])
                piece.withUnsafeBytes { tail.append($0); head.append($0) }
            }
            #expect(Array(tail.bytes.suffix(100)) == Array(data.suffix(100)), "chunk \(chunk)")
            #expect(tail.bytes.count < 200 && tail.total == 1000 && tail.isTruncated)
            #expect(head.bytes == Array(data.prefix(100)) && head.total == 1000)
        }
    }

    @Test("SGR colours become roles and bold; other escape sequences stay in the text to be shown inert; CRLF loses its CR")
    func ansiColours() throws {
        let text = "\u{1B}[31mred\u{1B}[0m \u{1B}[1;32mgreen\u{1B}[22m \u{1B}[38;5;196mx\u{1B}[m\r\n\u{1B}[2Jclear \u{1B}]52;c;aGk=\u{07}\n"
        let lines = CommandText.lines(text, keepLast: true, limit: 10)
        try #require(lines.count == 2)
        #expect(lines[0] == [ViewNode.Span("red", role: .negative), ViewNode.Span(" ", role: .foreground),
                             ViewNode.Span("green", role: .positive, bold: true), ViewNode.Span(" ", role: .positive),
                             ViewNode.Span("x", role: .foreground)])
        #expect(lines[1].map(\.text).joined() == "\u{1B}[2Jclear \u{1B}]52;c;aGk=\u{07}")
        // Drawn, the escapes are visible pictures, never bytes for the terminal.
        var buffer = CellBuffer(width: 40, height: 1)
        ViewNode.text(lines[1]).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        #expect(TextBackend.lines(buffer)[0].hasPrefix("␛[2Jclear ␛]52;c;aGk=␇"))
        #expect(CommandText.lines("a\nb\nc\n", keepLast: true, limit: 2).map { $0.map(\.text).joined() } == ["b", "c"])
        #expect(CommandText.lines("a\nb\nc", keepLast: false, limit: 2).map { $0.map(\.text).joined() } == ["a", "b"])
        // Hostile parameters: huge numbers, endless digits, a dangling escape.
        let hostile = "\u{1B}[99999999999999999999m\u{1B}[38;5m\u{1B}[38;2;1\u{1B}[" + String(repeating: "1", count: 200) + "mz\u{1B}"
        #expect(CommandText.lines(hostile, keepLast: true, limit: 1).count == 1)
    }
}

@Suite("command widget: timelines", .onOwnThreads(.blockingCalls))
struct CommandTimelineTests {
    private let context = TimelineProviderContext(family: .medium, size: CellSize(columns: 40, rows: 6))

    @Test("interval 10: one entry at the run's end and a reload 10 s later; 300: an entry a minute until then")
    func intervals() async throws {
        let now = Mutex(at(0))
        let provider = CommandProvider(spec: spec("echo hi", interval: 10), spawner: ProcessSpawner(), now: { now.withLock { $0 } })
        let short = try await provider.timeline(in: context)
        #expect(short.entries.map(\.date) == [at(0)])
        #expect(short.policy == .after(at(10)))
        #expect(short.entries[0].status.text == "ran <1m ago")
        now.withLock { $0 = at(1000) }
        let longProvider = CommandProvider(spec: spec("true", interval: 300), spawner: ProcessSpawner(), now: { now.withLock { $0 } })
        let long = try await longProvider.timeline(in: context)
        #expect(long.entries.map(\.date) == [0, 60, 120, 180, 240].map { at(1000 + $0) })
        #expect(long.entries.map(\.status.text) == ["ran <1m ago", "ran 1m ago", "ran 2m ago", "ran 3m ago", "ran 4m ago"])
        #expect(long.policy == .after(at(1300)))
    }

    @Test("interval 0 runs only when asked: policy never, ages each minute for an hour then each hour for a day")
    func onlyOnRequest() async throws {
        let provider = CommandProvider(spec: spec("true", interval: 0), spawner: ProcessSpawner(), now: { at(0) })
        let timeline = try await provider.timeline(in: context)
        #expect(timeline.policy == .never)
        #expect(timeline.entries.count == 60 + 24)
        #expect(timeline.entries.last?.date == at(86_400))
        #expect(timeline.entries.last?.status.text == "ran 24h ago")
    }

    @Test("never two runs at once for a panel: a call during a run answers with the last result")
    func oneRunInFlight() async throws {
        let directory = makeTemporaryDirectory(prefix: "command-inflight")
        defer { removeTree(directory) }
        let provider = CommandProvider(spec: spec("echo run >> \(directory)/runs; sleep 2; echo done"), spawner: ProcessSpawner(),
                                       now: { at(0) })
        async let first = provider.timeline(in: context)
        // The first run has started (it wrote its line) and sleeps for a second.
        #expect(await eventually { (try? readText("\(directory)/runs")) == "run\n" })
        let second = try await provider.timeline(in: context)
        #expect(second.entries.first?.ranAt == nil, "no result yet: the placeholder, not a second run")
        let answer = try await first
        #expect(answer.entries.first?.lines.map { $0.map(\.text).joined() } == ["done"])
        #expect(try readText("\(directory)/runs") == "run\n")
    }

    @Test("a timed-out run says so with its age; exit 3 says exit 3; the last lines that fit are shown")
    func statusLines() async throws {
        let provider = CommandProvider(spec: spec("seq 1 20; sleep 30", timeout: 1), spawner: ProcessSpawner(), now: { at(0) })
        let entry = try #require(try await provider.timeline(in: context).entries.first)
        #expect(entry.status.text == "timed out after 1s · ran <1m ago")
        let frame = TextBackend.lines(draw(entry, family: .medium, width: 40, height: 4))
        #expect(frame.map { trimmed($0) } == ["18", "19", "20", "timed out after 1s · ran <1m ago"])
        let later = TextBackend.lines(draw(entry, family: .medium, width: 40, height: 4, at: at(185)))
        #expect(trimmed(later[3]) == "timed out after 1s · ran 3m ago", "the age at the frame's time, from the same entry")
    }
}

@Suite("command widget: views")
struct CommandViewTests {
    private static let output = """
        \u{1B}[1mFilesystem      Size  Used Avail Use% Mounted on\u{1B}[0m
        overlay          98G   61G   33G  \u{1B}[33m65%\u{1B}[0m /
        tmpfs            64M     0   64M   0% /dev
        /dev/sda1        98G   61G   33G  \u{1B}[31m95%\u{1B}[0m /etc/hosts
        shm              64M     0   64M   0% /dev/shm
        tmpfs           7.8G     0  7.8G   0% /proc/acpi

        """
    private static func entry(_ outcome: CommandRun.Outcome, tail: Bool = true, date: TimeInterval = 125) -> CommandEntry {
        CommandEntry(date: at(date), ranAt: at(0), lines: CommandText.lines(output, keepLast: tail, limit: 500),
                     showsTail: tail, outcome: outcome, droppedBytes: 0)
    }

    @Test("each family's frame", arguments: [
        (WidgetFamily.small, 24, 7), (.medium, 50, 7), (.large, 50, 17), (.extraLarge, 98, 17),
    ])
    func families(family: WidgetFamily, width: Int, height: Int) {
        let frame = draw(Self.entry(.exited(3)), family: family, width: width, height: height)
        expectSnapshot(text(frame), named: "command-\(family)-\(width)x\(height)")
    }

    @Test("head shows the first lines; a clean exit shows only the age; the colours are roles")
    func headAndRoles() {
        let frame = draw(Self.entry(.exited(0), tail: false), family: .medium, width: 50, height: 4)
        let lines = TextBackend.lines(frame).map { trimmed($0) }
        #expect(lines[0].hasPrefix("Filesystem") && lines[2].hasPrefix("tmpfs") && lines[3] == "ran 2m ago")
        #expect(frame[0, 0].style == CellStyle(.foreground, .bold))
        let percent = lines[1].distance(from: lines[1].startIndex, to: lines[1].firstRange(of: "65%")!.lowerBound)
        #expect(frame[percent, 1].style.role == .warning)
        #expect(frame[0, 3].style.role == .muted)
        let failed = draw(Self.entry(.exited(3)), family: .medium, width: 50, height: 4)
        #expect(failed[0, 3].style.role == .negative)
    }

    @Test("before the first run, with no output, redacted, and in tiny rectangles")
    func edges() {
        #expect(TextBackend.lines(draw(.notRun(date: at(0), showsTail: true), family: .small, width: 20, height: 3))[2]
            .hasPrefix("not run yet"))
        let silent = CommandEntry(date: at(0), ranAt: at(0), lines: [], showsTail: true, outcome: .exited(0), droppedBytes: 0)
        #expect(TextBackend.lines(draw(silent, family: .small, width: 20, height: 3))[0].hasPrefix("(no output)"))
        let placeholder = draw(Self.entry(.exited(0)), family: .small, width: 20, height: 3, placeholder: true)
        #expect(placeholder[0, 0].style.role == .placeholder)
        for (width, height) in [(0, 0), (1, 1), (2, 1), (1, 3), (5, 2)] {
            _ = draw(Self.entry(.timedOut(seconds: 9)), family: .small, width: width, height: height)
        }
    }
}
