@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import HostProcesses
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget that counts its provider's calls: panel `NAME` shows "NAME #N" after N calls and
/// asks again a minute later, so every reload shows in the frame.
private let counterManifest = WidgetManifest(
    kind: "counter", displayName: "Counter", description: "Counts its reloads.", defaultFamily: .small,
    options: [OptionSpec(name: "name", type: .string, required: true, doc: "what to call it")])

private struct CounterEntry: TimelineEntry {
    var date: Date
    var text: String
}

private final class CallCount: Sendable {
    let value = Mutex(0)
}

private struct CounterProvider: TimelineProvider {
    let name: String
    let calls = CallCount()
    let now: @Sendable () -> Date

    func placeholder(in context: Context) -> CounterEntry { CounterEntry(date: .distantPast, text: "…") }
    func snapshot(in context: Context) async -> CounterEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<CounterEntry> {
        let count = calls.value.withLock { value -> Int in
            value += 1
            return value
        }
        let now = now()
        return Timeline(entries: [CounterEntry(date: now, text: "\(name) #\(count)")], policy: .after(now.addingTimeInterval(60)))
    }
}

private let counter = WidgetDefinition(manifest: counterManifest) { context in
    TerminalWidget(manifest: counterManifest, makeProvider: { options in
        AnyTimelineProvider(CounterProvider(name: options.string("name") ?? "?", now: context.now))
    }, view: { entry, _ in
        .centeredLines([((entry as? CounterEntry)?.text ?? "?", CellStyle(.foreground))])
    })
}

/// 2026-11-30T10:00:00Z
private let start = Date(timeIntervalSince1970: 1_796_032_800)
private let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: "/nonexistent")
private let size = TerminalSize(columns: 60, rows: 10)

private let twoCounters = """
    { "minimumReloadSeconds": 5, "panels": [
        { "kind": "counter", "family": "small", "title": "A", "options": { "name": "a" } },
        { "kind": "counter", "family": "small", "title": "B", "options": { "name": "b" } } ] }
    """

/// A pilot on `config` (written to a temporary file), its first answers in.
@MainActor
private func openPilot(_ config: String, in directory: TemporaryDirectory, size: TerminalSize = size,
                       io: HostIO? = nil) async throws -> HeadlessDashboard {
    let path = directory.write("dashboard.json", config)
    let pilot = try HeadlessDashboard.open(catalog: Catalog.builtin().adding([counter]), configPath: path, size: size, now: start,
                                           environment: environment, io: io).get()
    await pilot.settleProviders()
    return pilot
}

private func frame(_ pilot: HeadlessDashboard) -> String {
    MainActor.assumeIsolated { pilot.lines.joined(separator: "\n") }
}

@Suite("The pilot: messages and simulated time in, frames out", .serialized)
@MainActor
struct PilotTests {
    @Test("Tab moves the focus to the next panel: the status bar names it")
    func tab() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        #expect(pilot.lines.last?.contains("│ A") == true, "\(frame(pilot))")
        pilot.press(.tab)
        #expect(pilot.lines.last?.contains("│ B") == true, "\(frame(pilot))")
        pilot.press(.tab)
        #expect(pilot.lines.last?.contains("│ A") == true, "\(frame(pilot))")
    }

    @Test("r reloads the focused panel only; R reloads every panel")
    func reloads() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        #expect(frame(pilot).contains("a #1") && frame(pilot).contains("b #1"), "\(frame(pilot))")
        pilot.advance(by: 10)  // past the minimum interval, before the minute's reload
        pilot.press(.tab)
        pilot.press(.character("r"))
        await pilot.settleProviders()
        #expect(frame(pilot).contains("a #1") && frame(pilot).contains("b #2"), "\(frame(pilot))")
        pilot.advance(by: 10)
        pilot.press(.character("R"))
        await pilot.settleProviders()
        #expect(frame(pilot).contains("a #2") && frame(pilot).contains("b #3"), "\(frame(pilot))")
    }

    @Test("Enter zooms the focused panel to the whole screen; Esc shows every panel again")
    func zoom() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        pilot.press(.tab)
        pilot.press(.enter)
        let zoomed = pilot.lines
        #expect(zoomed[0].hasPrefix("┌ B") && zoomed[0].hasSuffix("┐") && zoomed[0].count == size.columns, "\(frame(pilot))")
        #expect(!frame(pilot).contains("a #1"), "only the zoomed panel shows\n\(frame(pilot))")
        pilot.press(.escape)
        #expect(frame(pilot).contains("a #1") && frame(pilot).contains("b #1"), "\(frame(pilot))")
        #expect(!pilot.isZoomed)
    }

    @Test("p pauses automatic reloads: the status bar says so and the minute's reload waits; p again goes on")
    func pause() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        pilot.press(.character("p"))
        #expect(pilot.lines.last?.contains("paused") == true, "\(frame(pilot))")
        #expect(await pilot.run(for: 120))
        #expect(frame(pilot).contains("a #1"), "no automatic reload while paused\n\(frame(pilot))")
        pilot.press(.character("p"))
        await pilot.settleProviders()
        #expect(pilot.lines.last?.contains("paused") == false, "\(frame(pilot))")
        #expect(await pilot.run(for: 60))
        #expect(!frame(pilot).contains("a #1"), "reloads again once unpaused\n\(frame(pilot))")
    }

    @Test("t moves to the next theme: the frame's colours change with it")
    func theme() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        func coloured() -> String {
            let backend = TextBackend(size: size)
            backend.palette = TerminalPalette(theme: pilot.theme, capability: .palette256)
            backend.present(pilot.render())
            return backend.render()
        }
        let before = (pilot.theme.name, coloured())
        pilot.press(.character("t"))
        #expect(pilot.theme.name != before.0)
        #expect(coloured() != before.1, "the same frame in the next theme's colours")
        #expect(pilot.takeFrameRequests() > 0)
    }

    @Test("a resize lays the panels out again; too small says so, and back again")
    func resize() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        pilot.resize(to: TerminalSize(columns: 18, rows: 5))
        #expect(frame(pilot).contains("too small"), "\(frame(pilot))")
        pilot.resize(to: TerminalSize(columns: 24, rows: 20))
        await pilot.settleProviders()
        let lines = pilot.lines
        #expect(lines.count == 20 && lines[0].count == 24 && lines[0].hasPrefix("┌ A"), "\(frame(pilot))")
        #expect(lines.contains { $0.hasPrefix("┌ B") }, "narrow: the panels stack\n\(frame(pilot))")
    }

    @Test("a config reload replaces the panels; a bad one keeps them and says why")
    func configReload() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        _ = directory.write("dashboard.json", """
            { "panels": [ { "kind": "counter", "family": "medium", "title": "Only C", "options": { "name": "c" } } ] }
            """)
        pilot.send(.configChanged(reason: "test"))
        await pilot.settleProviders()
        #expect(pilot.lines[0].hasPrefix("┌ Only C"), "\(frame(pilot))")
        #expect(frame(pilot).contains("c #1") && !frame(pilot).contains("a #1"), "\(frame(pilot))")
        _ = directory.write("dashboard.json", #"{ "panels": [ { "kind": "nope" } ] }"#)
        pilot.send(.configChanged(reason: "test"))
        #expect(frame(pilot).contains("│ config not re…"), "\(frame(pilot))")
        #expect(pilot.notice?.hasPrefix("config not reloaded: ") == true)
        #expect(pilot.panelTitles == ["Only C"])
    }

    @Test("a clock step back reloads every widget from the new now, as a free environment reload: the clock shows the earlier time")
    func clockStep() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot("""
            { "panels": [ { "kind": "clock", "family": "small", "title": "UTC",
                            "options": { "timeZone": "UTC", "hour24": true, "seconds": false } } ] }
            """, in: directory)
        defer { pilot.close() }
        #expect(frame(pilot).contains("10:00"), "\(frame(pilot))")
        pilot.recordMessages()
        pilot.setClock(to: start.addingTimeInterval(-2 * 3600))
        await pilot.settleProviders()
        #expect(frame(pilot).contains("08:00") && !frame(pilot).contains("10:00"), "\(frame(pilot))")
        // The dashboard was told the step, and the clock's new timeline was asked for as an
        // environment reload (free of the budget, not the user's), not a user or policy one.
        let messages = pilot.recordedMessages.records.map(\.message)
        #expect(messages.first == .clockSet(step: -2 * 3600))
        let reasons = messages.compactMap { if case .providerAnswered(let answer) = $0 { answer.request.reason } else { nil } }
        #expect(!reasons.isEmpty && reasons.allSatisfy { $0 == .environment }, "\(reasons)")
    }

    @Test("a session event: the leaderboard's download ends, its event is delivered and the board is drawn")
    func sessionEvent() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let transport = FakeTransport()
        var io = HostIO(environment: environment, files: FileRoots(state: nil, temporary: directory.path),
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 1,
                        makeTransport: { transport })
        io.widgetEnvironment = environment.variables
        let pilot = try await openPilot("""
            { "panels": [ { "kind": "leaderboard", "family": "large", "title": "Board",
                            "options": { "url": "http://127.0.0.1:9/leaderboard" } } ] }
            """, in: directory, size: TerminalSize(columns: 80, rows: 24), io: io)
        defer { pilot.close() }
        #expect(!frame(pilot).contains("Spouty"))
        let id = try #require(transport.runningIDs.first, "the first timeline starts a download")
        let request = try #require(transport.startedRequests.last)
        let board = Array("""
            { "updated": "2026-11-30T09:59:00Z",
              "heroes": [ { "name": "Spouty", "avatar": "🐳", "heroType": "Spouter", "level": 50,
                            "exp": 20000, "health": 0.99, "healthRecoveryRatePerHour": 0.59 } ] }
            """.utf8)
        let fd = open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = board.withUnsafeBytes { write(fd, $0.baseAddress!, board.count) }
        close(fd)
        #expect(transport.finish(id, with: .downloaded(DownloadedFile(path: request.destinationPath, status: 200,
                                                                     byteCount: board.count, validators: Validators(),
                                                                     attempts: 1))))
        // The event is delivered on the manager's queue; the widget asks for a reload.
        #expect(await pilot.settle(within: 10))
        #expect(frame(pilot).contains("Spouty") && frame(pilot).contains("20,000"), "\(frame(pilot))")
    }

    @Test("q asks to quit with status 0; SIGTERM's message too")
    func quit() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPilot(twoCounters, in: directory)
        defer { pilot.close() }
        #expect(pilot.quitStatus == nil)
        pilot.press(.character("q"))
        #expect(pilot.quitStatus == 0)
        #expect(SignalTranslator.message(for: SIGTERM, windowSize: size, hasTerminal: true) == .quit)
        #expect(SignalTranslator.message(for: SIGHUP, windowSize: nil, hasTerminal: true) == .quit, "the terminal is gone")
        #expect(SignalTranslator.message(for: SIGHUP, windowSize: size, hasTerminal: true) == .configChanged(reason: "SIGHUP: reloading the config"))
        #expect(SignalTranslator.message(for: SIGWINCH, windowSize: size, hasTerminal: true) == .resized(size))
        // The terminal is asked about only for a resize or a hangup, never for SIGCHLD.
        var asked = 0
        let chld = SignalTranslator.message(for: SIGCHLD, probe: { asked += 1; return (size, true) })
        #expect(chld == .childExited && asked == 0)
        let winch = SignalTranslator.message(for: SIGWINCH, probe: { asked += 1; return (size, true) })
        #expect(winch == .resized(size) && asked == 1)
    }

    @Test("the runner is built from what it is given (io, WidgetCenter) and fails a bad config before touching anything")
    func runnerConstruction() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("bad.json", #"{ "panels": [ { "kind": "nope" } ] }"#)
        let transportMade = Mutex(false)
        let io = HostIO(environment: environment, files: FileRoots(state: directory.path + "/state", temporary: directory.path),
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 1,
                        makeTransport: { transportMade.withLock { $0 = true }; return FakeTransport() })
        let runner = DashboardRunner(options: DashboardOptions(configPath: path), io: io, catalog: .builtin(), center: WidgetCenter())
        let output = runner.run()
        #expect(output.exitCode == 2 && output.standardError.contains("nope"), "\(output.standardError)")
        #expect(!transportMade.withLock { $0 }, "nothing was opened")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/state") == false, "the state directory is untouched")
    }
}
