#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import FoundationEssentials
import HostProcesses
import TerminalUI
import Testing
import WidgetCore
import Widgets
import WidgetTestSupport
@testable import WidgetHost

/// 2026-11-30T10:00:00Z
private let start = Date(timeIntervalSince1970: 1_796_032_800)

private let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"],
                                          homeDirectory: "/nonexistent")

@MainActor
private extension HeadlessDashboard {
    func type(_ keys: String) {
        for key in keys { press(.character(key)) }
    }

    var statusBar: String { lines.last ?? "" }

    /// The picker's rows: what is between its box's sides, trimmed.
    var pickerText: String { lines.joined(separator: "\n") }
}

private func contents(_ path: String) -> String? {
    (try? ConfigFileReader.read(path)).map { String(decoding: $0, as: UTF8.self) }
}

/// The Edit Widget form's picker of `dynamic` options (DESIGN.md §10): keys → the config
/// written, byte for byte, with the items from the widget's `DynamicOptionsProvider`.
@Suite("Edit mode: the dynamic option picker", .serialized, .onOwnThreads(.processes))
@MainActor
struct EditModePickerTests {
    @Test("a hero picked from the board the leaderboard cached: → lists its heroes, typing filters, Enter picks, s writes it")
    func heroFromBoard() async throws {
        let state = TemporaryDirectory()
        defer { state.remove() }
        let fetched = start.addingTimeInterval(-60)
        let board = LeaderboardBoard(updated: fetched, heroes: [
            LeaderboardHero(name: "Octo", avatar: "🐙", heroType: "Octopus", level: 43, exp: 86_463, health: 0.83, healthRecoveryRatePerHour: 0.29),
            LeaderboardHero(name: "Power Panda", avatar: "🐼", heroType: "Panda", level: 40, exp: 50_000, health: 1, healthRecoveryRatePerHour: 0.1),
            LeaderboardHero(name: "Spouty", avatar: "🐳", heroType: "Whale", level: 50, exp: 20_118, health: 0.99, healthRecoveryRatePerHour: 0.1),
        ])
        let container = try WidgetContainer(kind: LeaderboardStore.kind, stateDirectory: state.path)
        #expect(LeaderboardStore(container: container).save(LeaderboardState(board: board, fetchedAt: fetched), session: "cached"))
        // Port 1 on loopback refuses at once: the board is the cached one.
        let config = """
            {"panels": [{"kind": "leaderboard", "options": {"url": "http://127.0.0.1:1/leaderboard", "session": "cached"}},
                        {"kind": "hero", "options": {"name": "Octo", "session": "cached"}},
                        {"kind": "hero", "title": "Nobody's", "options": {"name": "X", "session": "none"}}]}
            """
        let path = state.write("config.json", config)
        let pilot = try HeadlessDashboard.open(catalog: .builtin(), configPath: path, stateDirectory: state.path,
                                               size: TerminalSize(columns: 120, rows: 30), now: start, environment: environment).get()
        defer { pilot.close() }
        _ = await pilot.settle(within: 10)
        pilot.type("E")
        pilot.press(.tab)
        pilot.press(.enter)
        #expect(pilot.lines[0].hasPrefix("┌ Edit Widget: Octo (hero)"))
        #expect(pilot.lines.contains { $0.contains("→ pick from a list") }, "the dynamic row says how to pick")
        #expect(pilot.statusBar.contains("→ pick (dynamic)"))
        pilot.recordMessages()
        pilot.press(.right)
        #expect(pilot.statusBar.hasSuffix("type to search  ↑↓ choose  Enter pick  Esc back"))
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("┌ Pick name (hero)"))
        #expect(pilot.pickerText.contains("search: Octo▏"), "the row's text is the first query")
        #expect(pilot.pickerText.contains("Octo  level 43 · #1") && !pilot.pickerText.contains("Spouty"))
        pilot.press(.control("u"))
        #expect(pilot.pickerText.contains("Octo  level") && pilot.pickerText.contains("· asking…"),
                "the last answer stands (unfiltered, for an empty query) until the provider answers")
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("Power Panda  level 40 · #2") && pilot.pickerText.contains("Spouty  level 50 · #3"))
        #expect(pilot.pickerText.contains("1 of 3"))
        pilot.type("pan")
        #expect(pilot.pickerText.contains("Power Panda") && !pilot.pickerText.contains("Spouty"), "filtered here at once")
        await pilot.settleProviders()
        let asked = pilot.recordedMessages.records.compactMap { record -> String? in
            guard case .optionsAnswered(let answer) = record.message else { return nil }
            return answer.query
        }
        #expect(asked.first == "Octo" && asked.last == "pan" && asked.count <= 5, "one request out at a time, not one per key: \(asked)")
        pilot.press(.enter)
        #expect(pilot.lines[1].hasPrefix("│ ▸ name*    Power Panda▏"), "\(pilot.lines[1])")
        pilot.press(.enter)
        pilot.type("s")
        #expect(pilot.statusBar.contains("saved \(path)"))
        #expect(contents(path) == """
            {
              "panels": [
                {
                  "kind": "leaderboard",
                  "options": {
                    "url": "http://127.0.0.1:1/leaderboard",
                    "session": "cached"
                  }
                },
                {
                  "kind": "hero",
                  "options": {
                    "name": "Power Panda",
                    "session": "cached"
                  }
                },
                {
                  "kind": "hero",
                  "title": "Nobody's",
                  "options": {
                    "name": "X",
                    "session": "none"
                  }
                }
              ]
            }

            """)
        // A session no leaderboard fetched: the picker says so, the form is unchanged.
        pilot.press(.tab)
        pilot.press(.enter)
        pilot.press(.right)
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("⚠ no board of session 'none' yet: a leaderboard panel fetches it"))
        pilot.press(.escape)
        #expect(pilot.lines[0].hasPrefix("┌ Edit Widget: Nobody's (hero)"), "Esc leaves the picker, not the form")
        pilot.press(.escape)
        pilot.press(.escape)
        #expect(!pilot.statusBar.contains("EDIT"))
    }

    @Test("a run with the zone picker, recorded, replays to the same frames (its answers are in the log, nothing asked again)")
    func replays() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("config.json", #"{"panels": [{"kind": "clock", "title": "C", "options": {"timeZone": "UTC"}}]}"#)
        func open() throws -> HeadlessDashboard {
            try HeadlessDashboard.open(catalog: .builtin(), configPath: path, size: TerminalSize(columns: 80, rows: 20), now: start,
                                       environment: environment).get()
        }
        let recorded = try open()
        defer { recorded.close() }
        _ = await recorded.settle(within: 10)
        recorded.recordMessages()
        recorded.type("E")
        recorded.press(.enter)
        recorded.press(.control("u"))
        recorded.type("tok")
        recorded.press(.right)
        await recorded.settleProviders()
        recorded.type("y")
        await recorded.settleProviders()
        let picking = recorded.lines
        #expect(picking.joined().contains("Asia/Tokyo  JP,AU"), "\(picking.joined(separator: "\n"))")
        recorded.press(.enter)
        let picked = recorded.lines
        let log = recorded.recordedMessages.records
        #expect(log.filter { if case .optionsAnswered = $0.message { true } else { false } }.count == 2)

        let replayed = try open()
        defer { replayed.close() }
        _ = await replayed.settle(within: 10)
        replayed.replay(log[..<(log.count - 1)])
        #expect(replayed.lines == picking)
        replayed.replay(log[(log.count - 1)...])
        #expect(replayed.lines == picked)
    }

    static let fixture: String = {
        let here = #filePath
        let tests = here[..<here.lastIndex(of: "/")!]
        return String(tests[..<tests.lastIndex(of: "/")!]) + "/ExtensionsTests/Fixtures/options.py"
    }()

    @Test("an extension's dynamic option: the options request carries the query and the form's options; a slow, a failing, a bad and a hostile answer each show in the picker, and the loop goes on")
    func extensionOptions() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for folder in ["/ext", "/ext/picky", "/tmp"] { #expect(mkdir(scratch.path + folder, 0o700) == 0) }
        try scratch.write("ext/picky/extension.json", """
            {"name": "picky", "exec": ["python3", "\(Self.fixture)"], "protocol": 1,
             "widgets": [{"kind": "pick", "displayName": "Pick",
                          "options": {"site": {"type": "string", "default": "alpha.example", "doc": "the site", "dynamic": true},
                                      "session": {"type": "string", "default": "s1", "doc": "passed along"},
                                      "zone": {"type": "timeZone", "default": "UTC", "doc": "not dynamic"}}}],
             "limits": {"requestSeconds": 1}}
            """)
        let path = try scratch.write("config.json", #"{"panels": [{"kind": "picky/pick", "options": {"session": "s2"}}]}"#)
        let setup = ExtensionSetup.discover(catalog: .builtin(), explicitDirectory: scratch.path + "/ext", environment: environment)
        #expect(setup.problems.isEmpty)
        defer { setup.runtime.stopAll() }
        let io = HostIO(environment: environment, files: FileRoots(state: nil, temporary: scratch.path + "/tmp"),
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 7, makeTransport: { FakeTransport() })
        let pilot = try HeadlessDashboard.open(catalog: setup.catalog, configPath: path, size: TerminalSize(columns: 100, rows: 30),
                                               now: start, environment: environment, io: io, extensions: setup.runtime).get()
        defer { pilot.close() }
        _ = await pilot.settle(within: 10)
        pilot.type("E")
        pilot.press(.enter)
        #expect(pilot.lines[0].hasPrefix("┌ Edit Widget: Pick (picky/pick)"))
        pilot.press(.right)
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("ALPHA.EXAMPLE  session s2") && pilot.pickerText.contains("BETA.EXAMPLE  session s2"),
                "an empty row asks for everything, with the panel's options")
        pilot.type("bet")
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("BETA.EXAMPLE") && !pilot.pickerText.contains("ALPHA.EXAMPLE"))
        pilot.press(.enter)
        pilot.press(.enter)
        pilot.type("s")
        #expect(contents(path)?.contains(#""site": "beta.example""#) == true)

        func ask(_ query: String) async {
            pilot.press(.control("u"))
            pilot.type(query)
            await pilot.settleProviders()
        }
        pilot.press(.enter)
        pilot.press(.right)
        await ask("hostile")
        #expect(pilot.pickerText.contains("1 of 200"), "10,000 items: the first 200 kept")
        #expect(pilot.pickerText.contains("␛[2J␛]52;c;AAAA␇evil 0") && pilot.pickerText.contains("␛[31mred␍␊line"),
                "control characters shown inert")
        #expect(!pilot.pickerText.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        await ask("huge")
        #expect(pilot.pickerText.contains("⚠ the extension stopped: sent a line longer than 1 MiB"))
        await ask("bad")
        #expect(pilot.pickerText.contains("⚠ bad answer from the extension: items[0].value: expected a non-empty printable string"))
        await ask("fail")
        #expect(pilot.pickerText.contains("⚠ extension error 7: no sites today"))
        // The row holds "slow": the picker asks for it as it opens; no answer within requestSeconds.
        pilot.press(.escape)
        pilot.press(.control("u"))
        pilot.type("slow")
        pilot.press(.right)
        pilot.type("x")
        #expect(pilot.pickerText.contains("search: slowx▏") && pilot.pickerText.contains("asking"), "the loop is not held by the request")
        pilot.press(.backspace)
        let before = ContinuousClock.now
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("⚠ timed out after 1 s"))
        #expect(ContinuousClock.now - before < .seconds(10))
        // A time zone option not marked dynamic picks from the tz database, not from the extension.
        pilot.press(.escape)
        pilot.press(.down)
        pilot.press(.down)
        pilot.type("berlin")
        pilot.press(.right)
        await pilot.settleProviders()
        #expect(pilot.pickerText.contains("┌ Pick zone (picky/pick)") && pilot.pickerText.contains("Europe/Berlin  DE,DK,NO,SE,SJ"), "\(pilot.pickerText)")
        pilot.press(.enter)
        #expect(pilot.lines.contains { $0.hasPrefix("│ ▸ zone     Europe/Berlin▏") }, "\(pilot.pickerText)")
        pilot.press(.escape)
        #expect(!pilot.lines[0].hasPrefix("┌ Edit Widget"))
    }
}
