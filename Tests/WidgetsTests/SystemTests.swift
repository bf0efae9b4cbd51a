import Foundation
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let mediumContext = TimelineProviderContext(family: .medium, size: CellSize(columns: 38, rows: 9))

/// A fake proc file system in a temporary directory, deleted with the value.
private final class FakeProc {
    let path = makeTemporaryDirectory(prefix: "fakeproc")

    deinit { removeTree(path) }

    func write(_ name: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8))
    }

    func remove(_ name: String) {
        try? FileManager.default.removeItem(atPath: path + "/" + name)
    }

    /// `/proc/stat` with the all-CPU line and one line per core, each `(busy, idle)` ticks.
    func stat(total: (UInt64, UInt64), cores: [(UInt64, UInt64)]) {
        // user nice system idle iowait irq softirq steal guest guest_nice: busy split over
        // user and system, idle over idle and iowait, guest (inside user) never added twice.
        func line(_ label: String, _ busy: UInt64, _ idle: UInt64) -> String {
            "\(label) \(busy / 2) 0 \(busy - busy / 2) \(idle) 0 0 0 0 \(busy / 2) 0"
        }
        var text = line("cpu ", total.0, total.1) + "\n"
        for (i, core) in cores.enumerated() { text += line("cpu\(i)", core.0, core.1) + "\n" }
        text += "intr 12345 1 2 3\nctxt 999\nbtime 1700000000\nprocesses 4242\n"
        write("stat", text)
    }

    /// A whole machine: two cores, 16 GiB with 6 GiB available, 2 GiB swap with 1.5 free.
    static func machine() -> FakeProc {
        let proc = FakeProc()
        proc.stat(total: (1000, 9000), cores: [(400, 4600), (600, 4400)])
        proc.write("meminfo", """
            MemTotal:       16777216 kB
            MemFree:         1048576 kB
            MemAvailable:    6291456 kB
            Buffers:          102400 kB
            Cached:          4194304 kB
            SwapTotal:       2097152 kB
            SwapFree:        1572864 kB

            """)
        proc.write("loadavg", "0.52 0.58 0.59 1/234 5678\n")
        proc.write("uptime", "273600.45 1000000.00\n")
        return proc
    }
}

private let memory = MemoryInfo(total: 16 << 30, available: 6 << 30, swapTotal: 2 << 30, swapFree: 3 << 29)

/// A steady entry for frames: 23 % CPU, eight cores, memory and swap, load, 3 days up.
private let sampleEntry = SystemEntry(
    date: testEpoch, cpu: 0.23,
    cores: (0..<8).map { SystemEntry.CoreUsage(index: $0, usage: [0.05, 0.4, 0.95, 0.12, 0.75, 0.3, 0.0, 1.0][$0]) },
    memory: memory, load: LoadAverage(one: 0.52, five: 0.58, fifteen: 12.25), uptime: 3 * 86_400 + 4 * 3600,
    history: (0..<60).map { Double(($0 * 37) % 100) / 100 })

private func render(_ entry: SystemEntry, family: WidgetFamily, width: Int, height: Int, glyphs: GlyphSet = .unicode,
                    placeholder: Bool = false) -> CellBuffer {
    var buffer = CellBuffer(width: max(0, width), height: max(0, height))
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    SystemWidget.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    return buffer
}

@Suite("System widget")
struct SystemTests {
    @Test("CPU use is the difference of two readings, in total and per core; the first reading has none and asks again after 1 s, then every interval")
    func cpuFromTwoReadings() async throws {
        let proc = FakeProc.machine()
        let clock = ManualClock(now: testEpoch)
        let provider = SystemProvider(root: proc.path, interval: 2, now: { clock.now })
        let first = try await provider.timeline(in: mediumContext)
        #expect(first.entries.count == 1)
        #expect(first.entries[0].cpu == nil && first.entries[0].cores.isEmpty, "one reading cannot tell CPU use")
        #expect(first.policy == .after(at(1)))

        clock.advance(by: 1)
        // 300 busy of 1000 ticks in all; core 0: 50 of 500, core 1: 250 of 500.
        proc.stat(total: (1300, 9700), cores: [(450, 5050), (850, 4650)])
        let second = try await provider.timeline(in: mediumContext)
        let entry = try #require(second.entries.first)
        #expect(entry.date == at(1))
        #expect(entry.cpu == 0.3)
        #expect(entry.cores == [.init(index: 0, usage: 0.1), .init(index: 1, usage: 0.5)])
        #expect(entry.history == [0.3])
        #expect(second.policy == .after(at(3)), "then every intervalSeconds")

        clock.advance(by: 2)
        proc.stat(total: (2300, 9700), cores: [(950, 5050), (1350, 4650)])
        let third = try #require(try await provider.timeline(in: mediumContext).entries.first)
        #expect(third.cpu == 1)
        #expect(third.history == [0.3, 1], "the sparkline's values, oldest first")
    }

    @Test("a preview (one look) takes two readings a moment apart, so it shows CPU use (the host's real /proc)")
    func previewMeasures() async throws {
        let preview = TimelineProviderContext(family: .medium, size: CellSize(columns: 38, rows: 9), isPreview: true)
        let entry = try #require(try await SystemProvider(root: "/proc", now: { testEpoch }).timeline(in: preview).entries.first)
        #expect(entry.cpu != nil)
        let dashboard = try #require(try await SystemProvider(root: "/proc", now: { testEpoch }).timeline(in: mediumContext).entries.first)
        #expect(dashboard.cpu == nil, "the dashboard does not wait: its next reading comes after 1 s")
    }

    @Test("the widget reads the proc root the host passes in (WidgetContext.proc) and its intervalSeconds")
    func hostRoot() async throws {
        let proc = FakeProc.machine()
        let widget = SystemWidget.definition.widget(WidgetContext(now: { testEpoch }, proc: proc.path))
        let provider = try widget.makeProvider(["intervalSeconds": .integer(5)])
        let first = try await provider.timeline(in: mediumContext)
        #expect((first.entries.first as? SystemEntry)?.uptime == 273_600.45, "read from the fake tree")
        #expect(first.policy == .after(at(1)))
        #expect(try await provider.timeline(in: mediumContext).policy == .after(at(5)))
    }

    @Test("memory, swap, load and uptime are read from their files")
    func memoryLoadUptime() async throws {
        let proc = FakeProc.machine()
        let entry = try #require(try await SystemProvider(root: proc.path, now: { testEpoch }).timeline(in: mediumContext).entries.first)
        #expect(entry.memory == MemoryInfo(total: 16 << 30, available: 6 << 30, swapTotal: 2 << 30, swapFree: 3 << 29))
        #expect(entry.load == LoadAverage(one: 0.52, five: 0.58, fifteen: 0.59))
        #expect(entry.uptime == 273_600.45)
        #expect(entry.problems.isEmpty)
        #expect(text(render(entry, family: .medium, width: 38, height: 9)).contains("Mem  "), "10 GiB used of 16")
        #expect(text(render(entry, family: .medium, width: 38, height: 9)).contains("10G/16G"))
    }

    @Test("in a container (no per-core lines, no swap, no MemAvailable) the panel shows what exists")
    func container() async throws {
        let proc = FakeProc()
        proc.stat(total: (100, 900), cores: [])
        proc.write("meminfo", "MemTotal: 1048576 kB\nMemFree: 524288 kB\nBuffers: 0 kB\nCached: 262144 kB\n")
        proc.write("loadavg", "1.00 2.00 3.00 1/2 3\n")
        proc.write("uptime", "60.0 1.0\n")
        let provider = SystemProvider(root: proc.path, now: { testEpoch })
        _ = try await provider.timeline(in: mediumContext)
        proc.stat(total: (200, 1800), cores: [])
        let entry = try #require(try await provider.timeline(in: mediumContext).entries.first)
        #expect(entry.cores.isEmpty)
        #expect(entry.memory == MemoryInfo(total: 1 << 30, available: 768 << 20), "free + buffers + cached without MemAvailable")
        #expect(entry.problems.isEmpty)
        let frame = text(render(entry, family: .large, width: 38, height: 20))
        #expect(frame.contains("Swap none") && !frame.contains("cpu0"))
        #expect(frame.contains("CPU  ") && frame.contains("10%"))
    }

    @Test("a missing or odd file is named on the panel and the rest still shows; with no file at all the timeline fails")
    func missingAndOdd() async throws {
        let proc = FakeProc.machine()
        proc.remove("loadavg")
        proc.write("uptime", "nan 0\n")
        proc.write("meminfo", "MemTotal: 99999999999999999999 kB\n")
        let entry = try #require(try await SystemProvider(root: proc.path, now: { testEpoch }).timeline(in: mediumContext).entries.first)
        #expect(entry.problems == ["/proc/meminfo unexpected", "/proc/loadavg missing", "/proc/uptime unexpected"])
        #expect(entry.memory == nil && entry.load == nil && entry.uptime == nil)
        let frame = text(render(entry, family: .medium, width: 38, height: 9))
        #expect(frame.contains("/proc/meminfo unexpected\n/proc/loadavg missing\n/proc/uptime unexpected"))
        #expect(frame.contains("CPU "))

        let empty = makeTemporaryDirectory(prefix: "noproc")
        defer { removeTree(empty) }
        await #expect(throws: SystemProvider.Unreadable.self) {
            _ = try await SystemProvider(root: empty, now: { testEpoch }).timeline(in: mediumContext)
        }
        let error = SystemProvider.Unreadable(problems: ["/proc/stat missing"])
        #expect(error.description == "/proc/stat missing")
    }

    @Test("counters that go backwards (a reset, a core gone) give no CPU figure rather than a wrong one")
    func countersBackwards() async throws {
        let proc = FakeProc.machine()
        let provider = SystemProvider(root: proc.path, now: { testEpoch })
        _ = try await provider.timeline(in: mediumContext)
        proc.stat(total: (10, 90), cores: [(5, 45)])
        let entry = try #require(try await provider.timeline(in: mediumContext).entries.first)
        #expect(entry.cpu == nil && entry.cores.isEmpty && entry.history.isEmpty)
        #expect(CPUTimes(busy: 5, total: 10).usage(since: CPUTimes(busy: 5, total: 10)) == nil, "no time passed")
    }

    @Test("the sparkline keeps at most 240 readings; overlapping timelines on the pool are safe")
    func historyBoundedAndThreadSafe() async throws {
        let proc = FakeProc.machine()
        let history = SystemHistory()
        for i in 0..<300 {
            let ticks = UInt64(i) * 100
            _ = history.record(SystemSample(cpu: CPUTimes(busy: ticks / 2, total: ticks)), at: at(Double(i)))
        }
        #expect(history.record(SystemSample(cpu: CPUTimes(busy: 15_000, total: 30_000)), at: at(300)).history.count == SystemHistory.capacity)

        let provider = SystemProvider(root: proc.path, now: { testEpoch })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { _ = try await provider.timeline(in: mediumContext) } }
            try await group.waitForAll()
        }
        let last = try #require(try await provider.timeline(in: mediumContext).entries.first)
        #expect(last.problems.isEmpty)
    }

    @Test("hostile proc files never crash the parser (seeded, bounded)")
    func hostileFiles() {
        let seed: UInt64 = 0x5157_454D
        var random = FuzzRandom(seed: seed)
        let pieces = ["cpu", "cpu0", "cpu99999999999999999999", " ", "\n", "18446744073709551615", "18446744073709551616", "-1",
                      "nan", "inf", "1e308", "0x10", "kB", "MemTotal:", "MemAvailable:", "SwapTotal:", "SwapFree:", ":", "\u{0}",
                      "é", "1", "0", "99"]
        for _ in 0..<2_000 {
            let text = (0..<random.below(40)).map { _ in random.pick(pieces) }.joined()
            let stat = SystemSample.parseStat(text)
            if let stat {
                #expect(stat.0.busy <= stat.0.total, "seed \(seed): \(text.debugDescription)")
            }
            if let memory = SystemSample.parseMeminfo(text) {
                #expect(memory.available <= memory.total && memory.swapFree <= memory.swapTotal, "seed \(seed)")
            }
            if let load = SystemSample.parseLoadavg(text) { #expect(load.one.isFinite, "seed \(seed)") }
            if let uptime = SystemSample.parseUptime(text) { #expect(uptime.isFinite && uptime >= 0, "seed \(seed)") }
        }
        #expect(SystemSample.parseStat("cpu 18446744073709551615 1 0 0\n") == nil, "a sum that overflows is odd, not a trap")
        #expect(SystemSample.parseStat("cpu 1 2 3\n") == nil, "too few fields")
        #expect(SystemSample.parseMeminfo("MemTotal: 18446744073709551615 kB\n") == nil)
    }

    @Test("frames: small, medium, large (cores in two columns) and extraLarge (four)")
    func frames() {
        expectSnapshot(text(render(sampleEntry, family: .small, width: 18, height: 9)), named: "system-small-18x9")
        expectSnapshot(text(render(sampleEntry, family: .medium, width: 38, height: 9)), named: "system-medium-38x9")
        expectSnapshot(text(render(sampleEntry, family: .large, width: 38, height: 20)), named: "system-large-38x20")
        expectSnapshot(text(render(sampleEntry, family: .extraLarge, width: 78, height: 14)), named: "system-extraLarge-78x14")
        expectSnapshot(text(render(sampleEntry, family: .medium, width: 38, height: 9, glyphs: .ascii, placeholder: true)),
                       named: "system-medium-placeholder-ascii")
    }

    @Test("the sparkline is scaled to 100 %, newest reading at the right edge, a quarter of the rows under a divider")
    func sparkline() {
        var entry = sampleEntry
        entry.cores = []
        entry.history = [0.5, 0.25, 1]
        let lines = TextBackend.lines(render(entry, family: .medium, width: 20, height: 12))
        #expect(Array(lines.suffix(4)) == ["────────────────────", "                   █", "                 ▄ █",
                                           "                 █▆█"], "\(lines)")
    }

    @Test("many cores that do not fit say how many more there are")
    func manyCores() {
        var entry = sampleEntry
        entry.cores = (0..<64).map { .init(index: $0, usage: 0.5) }
        let lines = TextBackend.lines(render(entry, family: .large, width: 38, height: 12))
        #expect(lines.contains("+58 more cores"), "\(lines)")
    }

    @Test("tiny rectangles never crash and nothing is drawn outside the panel")
    func tiny() {
        for family in WidgetFamily.allCases {
            for (width, height) in [(0, 0), (1, 1), (2, 1), (1, 3), (3, 2), (5, 5), (10, 1), (18, 3)] {
                for placeholder in [false, true] {
                    var buffer = CellBuffer(width: width + 4, height: height + 4)
                    let rect = Rect(x: 2, y: 2, width: width, height: height)
                    let before = buffer
                    SystemWidget.view(sampleEntry, context: WidgetViewContext(family: family, size: CellSize(columns: width, rows: height),
                                                                              isPlaceholder: placeholder))
                        .draw(into: &buffer, in: rect, glyphs: .unicode)
                    for y in 0..<buffer.height {
                        for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                            Issue.record("system \(family) \(width)x\(height) drew outside its rect at (\(x), \(y))")
                        }
                    }
                }
            }
        }
    }

    /// Its bytes are `ByteCountText.compact` (ByteCountTextTests).
    @Test("numbers as shown: percentages and load figures for any input")
    func formats() {
        #expect(SystemWidget.percent(.nan) == "0%" && SystemWidget.percent(2) == "100%" && SystemWidget.percent(0.234) == "23%")
        #expect(SystemWidget.decimal(0.5) == "0.50" && SystemWidget.decimal(12.25) == "12.3" && SystemWidget.decimal(.infinity) == "0.00")
    }
}
