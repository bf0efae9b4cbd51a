#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import WidgetHost

/// 2026-11-30T10:00:00Z
private let start = Date(timeIntervalSince1970: 1_796_032_800)

private let threePanels = """
    {"panels": [{"kind": "text", "family": "small", "title": "A", "options": {"text": "a"}},
                {"kind": "text", "family": "small", "title": "B", "options": {"text": "b"}},
                {"kind": "clock", "title": "C", "options": {"timeZone": "UTC"}}]}
    """

@MainActor
private func open(_ path: String?, environment: HostEnvironment) async throws -> HeadlessDashboard {
    let pilot = try HeadlessDashboard.open(catalog: .builtin(), configPath: path, size: TerminalSize(columns: 120, rows: 24),
                                           now: start, environment: environment).get()
    _ = await pilot.settle(within: 10)
    return pilot
}

private func environment(_ directory: TemporaryDirectory) -> HostEnvironment {
    HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": directory.path], homeDirectory: "/nonexistent")
}

private func contents(_ path: String) -> String? {
    (try? ConfigFileReader.read(path)).map { String(decoding: $0, as: UTF8.self) }
}

/// Runs `body` with a pilot on `config` written as `config.json` in a fresh directory (nil: no
/// file, the default dashboard), `XDG_CONFIG_HOME` that directory.
@MainActor
private func editing(_ config: String? = threePanels,
                     _ body: (_ pilot: HeadlessDashboard, _ path: String, _ directory: TemporaryDirectory) async throws -> Void)
    async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = config.map { directory.write("config.json", $0) }
    let pilot = try await open(path, environment: environment(directory))
    defer { pilot.close() }
    try await body(pilot, path ?? directory.path + "/widgethost/config.json", directory)
}

@MainActor
private extension HeadlessDashboard {
    func type(_ keys: String) {
        for key in keys { press(key == "\u{1B}" ? .escape : .character(key)) }
    }

    var statusBar: String { lines.last ?? "" }
}

@Suite("Edit mode", .serialized)
@MainActor
struct EditModePilotTests {
    @Test("E L + Tab x u x s: the panel moved, grown, the clock removed (undone, removed again); the file written byte for byte")
    func arrangeAndSave() async throws {
        try await editing { pilot, path, directory in
            pilot.type("E")
            #expect(pilot.statusBar.hasPrefix(" widgethost │ EDIT │ A"))
            #expect(pilot.statusBar.hasSuffix("a add  n page  Enter options  HJKL move  +/- size  x remove  u undo  s save  Esc done"))
            pilot.recordMessages()
            pilot.type("L")
            #expect(pilot.panelTitles == ["B", "A", "C"])
            #expect(pilot.focus == 1, "the focus follows the panel")
            #expect(pilot.statusBar.contains("EDIT* │ A"))
            let built = pilot.recordedMessages.records.compactMap { record -> String? in
                guard case .panelsBuilt = record.message else { return nil }
                return MessageLog.describe(record.message)
            }
            #expect(built == ["panelsBuilt 3 panels, 0 built, 3 kept"], "moved panels keep running")
            pilot.type("+")
            pilot.press(.tab)
            pilot.type("x")
            #expect(pilot.panelTitles == ["B", "A"])
            #expect(pilot.focus == 1, "the page's new last panel")
            pilot.type("u")
            #expect(pilot.panelTitles == ["B", "A", "C"])
            #expect(pilot.focus == 2, "undo puts the focus back too")
            pilot.type("x")
            #expect(contents(path) == threePanels, "nothing is written before s")
            pilot.type("s")
            #expect(pilot.statusBar.contains("EDIT │") && pilot.statusBar.contains("saved \(path)"))
            #expect(contents(path) == """
                {
                  "panels": [
                    {
                      "kind": "text",
                      "family": "small",
                      "title": "B",
                      "options": {
                        "text": "b"
                      }
                    },
                    {
                      "kind": "text",
                      "family": "medium",
                      "title": "A",
                      "options": {
                        "text": "a"
                      }
                    }
                  ]
                }

                """)
            #expect(contents(path + ".bak") == threePanels)
            let check = CheckConfigCommand.run(path: path, environment: HostEnvironment(), catalog: .builtin())
            #expect(check.exitCode == 0)
            pilot.type("\u{1B}")
            #expect(!pilot.statusBar.contains("EDIT"))
            #expect(pilot.panelTitles == ["B", "A"])
        }
    }

    @Test("? in edit mode lists edit mode's keys; q closes that help and never quits with the edits")
    func help() async throws {
        try await editing { pilot, _, _ in
            pilot.type("Ex?")
            let shown = pilot.lines.joined(separator: "\n")
            #expect(shown.contains("move the focused panel") && shown.contains("leave edit mode"), "\(shown)")
            pilot.type("q")
            #expect(pilot.quitStatus == nil && !pilot.isHelpShown)
            #expect(pilot.statusBar.contains("EDIT*"), "still editing, the edit kept: \(pilot.statusBar)")
        }
    }

    @Test("Esc with unsaved edits asks save? y/n/c: c stays, n drops the edits, y saves and leaves")
    func leaving() async throws {
        try await editing { pilot, path, directory in
            pilot.type("Ex\u{1B}")
            #expect(pilot.statusBar.contains("save? y/n/c"))
            pilot.type("q")
            #expect(pilot.statusBar.contains("save? y/n/c"), "another key: the question stands")
            #expect(pilot.quitStatus == nil)
            pilot.type("c")
            #expect(pilot.statusBar.contains("EDIT*") && !pilot.statusBar.contains("save?"))
            pilot.type("\u{1B}n")
            #expect(!pilot.statusBar.contains("EDIT"))
            #expect(pilot.panelTitles == ["A", "B", "C"])
            #expect(contents(path) == threePanels)
            pilot.type("Ex\u{1B}y")
            #expect(!pilot.statusBar.contains("EDIT"))
            #expect(pilot.panelTitles == ["B", "C"])
            #expect(contents(path)?.contains("\"title\": \"A\"") == false)
        }
    }

    @Test("a file changed on disk meanwhile is never overwritten without asking: c keeps editing, o overwrites (its text the .bak)")
    func changedOnDisk() async throws {
        try await editing { pilot, path, directory in
            pilot.type("Ex")
            let theirs = #"{"panels": [{"kind": "clock", "title": "Theirs"}]}"#
            directory.write("config.json", theirs)
            pilot.send(.configChanged(reason: "config file changed: reloading"))
            #expect(pilot.panelTitles == ["B", "C"], "not reloaded under the edit")
            pilot.type("s")
            #expect(pilot.statusBar.contains("the file changed on disk: o overwrite, r reload, c cancel"))
            #expect(contents(path) == theirs)
            pilot.type("c")
            #expect(pilot.statusBar.contains("EDIT*"))
            pilot.type("so")
            #expect(contents(path)?.contains("\"title\": \"A\"") == false)
            #expect(contents(path + ".bak") == theirs)
        }
    }

    @Test("r takes the file's version: the edits go, the file is read again for editing")
    func reloadFromDisk() async throws {
        try await editing { pilot, path, directory in
            pilot.type("Ex")
            directory.write("config.json", #"{"panels": [{"kind": "clock", "title": "Theirs"}]}"#)
            pilot.type("sr")
            _ = await pilot.settle(within: 10)
            #expect(pilot.panelTitles == ["Theirs"])
            #expect(pilot.statusBar.contains("EDIT │ Theirs"))
        }
    }

    @Test("a file made invalid on disk cannot be edited: E says why and stays out of edit mode")
    func invalidOnDisk() async throws {
        try await editing { pilot, _, directory in
            directory.write("config.json", #"{"panels": [{"kind": "clok"}]}"#)
            pilot.type("E")
            #expect(!pilot.statusBar.contains("EDIT"))
            #expect(pilot.statusBar.contains("cannot edit: \(directory.path)/config.json: panels"))
            #expect(pilot.panelTitles == ["A", "B", "C"])
        }
    }

    @Test("E is the host's: no widget action may take it")
    func reservedKey() {
        let manifest = WidgetManifest(kind: "bad", displayName: "Bad", description: "", defaultFamily: .small,
                                      actions: [WidgetAction(key: "E", title: "edit")])
        #expect(manifest.problems.contains { $0.contains("'E' is one of the host's own keys") })
    }

    @Test("the last panel cannot go (check-config would refuse the file); widget keys are off")
    func refusedEdit() async throws {
        try await editing(#"{"panels": [{"kind": "clock", "title": "Only"}]}"#) { pilot, path, directory in
            pilot.type("Ex")
            #expect(pilot.panelTitles == ["Only"])
            #expect(pilot.statusBar.contains("cannot: panels: expected at least one panel"))
            pilot.type("-")
            #expect(pilot.statusBar.contains("Only: no smaller family"))
        }
    }

    @Test("the default dashboard: s creates the config file; a directory that cannot be written keeps the edit")
    func defaultDashboard() async throws {
        try await editing(nil) { pilot, file, directory in
            pilot.type("EJs")
            let written = try #require(contents(file))
            #expect(written.hasPrefix("{\n  \"panels\": [\n    {\n      \"kind\": \"hero\",\n"))
            #expect(CheckConfigCommand.run(path: file, environment: HostEnvironment(), catalog: .builtin()).exitCode == 0)
            #expect(pilot.statusBar.contains("saved \(file)"))

            // Unwritable: root writes anywhere chmod allows nothing; sysfs refuses new files even to root.
            let asRoot = geteuid() == 0
            let readOnly = asRoot ? "/sys" : directory.makeDirectory("ro")
            if !asRoot { chmod(readOnly, 0o555) }
            defer { if !asRoot { chmod(readOnly, 0o755) } }
            let stuck = try await open(nil, environment: HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": readOnly],
                                                                         homeDirectory: "/nonexistent"))
            defer { stuck.close() }
            stuck.type("Exs")
            #expect(stuck.statusBar.contains("EDIT* │"))
            #expect(stuck.statusBar.contains("not saved: cannot create the directory \(readOnly)/widgethost"))
            #expect(stuck.panelCount == 3, "the edit is kept in memory")
        }
    }

    @Test("the gallery: a lists every kind, typing filters, the snapshot shows at the family chosen, Enter adds after the focus")
    func gallery() async throws {
        try await editing { pilot, path, directory in
            pilot.type("Ea")
            await pilot.settleProviders()
            #expect(pilot.lines[0].hasPrefix("┌ Add a widget"))
            #expect(pilot.lines.contains { $0.hasPrefix("│ mqtt ") }, "every kind is listed")
            #expect(pilot.statusBar.hasSuffix("type to filter  ↑↓ kind  ←→ family  Enter add  Esc back"))
            pilot.type("count")
            await pilot.settleProviders()
            #expect(pilot.lines[1].hasPrefix("│ filter: count▏") && pilot.lines[1].contains("┌ Countdown ──"))
            #expect(pilot.lines.contains { $0.contains("to 31 Dec 23:59") }, "the snapshot, from the manifest's example")
            #expect(pilot.lines.contains { $0.contains("← [small] medium →") })
            pilot.press(.right)
            await pilot.settleProviders()
            #expect(pilot.lines.contains { $0.contains("← small [medium] →") })
            pilot.press(.right)
            #expect(pilot.lines.contains { $0.contains("← small [medium] →") }, "no family past the last")
            pilot.press(.enter)
            #expect(pilot.panelTitles == ["A", "Countdown", "B", "C"])
            #expect(pilot.focus == 1)
            #expect(pilot.statusBar.contains("added countdown (to: the manifest's example)"))
            #expect(pilot.lines[0].hasPrefix("┌ Edit Widget: Countdown (countdown)"), "then its form: 'to' has no default")
            pilot.press(.escape)
            pilot.type("s")
            #expect(contents(path)?.contains("""
                    {
                      "kind": "countdown",
                      "family": "medium",
                      "options": {
                        "to": "2026-12-31T23:59"
                      }
                    },
                """) == true)
            pilot.type("a")
            pilot.type("zzz")
            #expect(pilot.lines.contains { $0.contains("no kind matches") })
            pilot.press(.escape)
            #expect(!pilot.lines[0].hasPrefix("┌ Add a widget"))
            #expect(pilot.statusBar.contains("EDIT │"))
        }
    }

    @Test("the Edit Widget form: the zone picked, a wrong value's message under its field and not applied, then moved and saved: file and screen agree")
    func form() async throws {
        try await editing { pilot, path, directory in
            pilot.type("E")
            pilot.press(.tab)
            pilot.press(.tab)
            pilot.press(.enter)
            #expect(pilot.lines[0].hasPrefix("┌ Edit Widget: C (clock)"))
            #expect(pilot.lines[1].hasPrefix("│ ▸ timeZone  UTC▏"))
            pilot.press(.control("u"))
            #expect(pilot.lines[1].hasPrefix("│ ▸ timeZone  (default \"local\")"))
            pilot.type("paris")
            #expect(pilot.lines.contains { $0.hasPrefix("│     → pick from a list") }, "timeZone is a dynamic option")
            #expect(pilot.lines.contains { $0.contains("⚠ expected a time zone name like 'Europe/Paris', 'UTC' or 'local', got \"paris\"") })
            pilot.press(.right)
            await pilot.settleProviders()
            #expect(pilot.lines.contains { $0.contains("┌ Pick timeZone (clock)") }, "the picker, from the tz database")
            #expect(pilot.lines.contains { $0.contains("search: paris▏") } && pilot.lines.contains { $0.contains("Europe/Paris  FR") })
            pilot.press(.backspace)
            pilot.type("s")
            await pilot.settleProviders()
            pilot.press(.enter)
            #expect(pilot.lines[1].hasPrefix("│ ▸ timeZone  Europe/Paris▏"))
            #expect(!pilot.lines.contains { $0.contains("⚠") })
            pilot.press(.down)
            pilot.type("yes")
            #expect(pilot.lines.contains { $0.hasPrefix("│     ⚠ expected true or false, got \"yes\"") })
            pilot.press(.enter)
            #expect(pilot.lines[0].hasPrefix("┌ Edit Widget"), "a form with a wrong value is not applied")
            #expect(pilot.statusBar.contains("fix the fields marked first"))
            pilot.press(.control("u"))
            pilot.type(" ")
            #expect(pilot.lines.contains { $0.hasPrefix("│ ▸ seconds   true▏") })
            pilot.press(.enter)
            #expect(!pilot.lines[0].hasPrefix("┌ Edit Widget"))
            pilot.type("KKs")
            await pilot.settleProviders()
            #expect(pilot.panelTitles == ["C", "A", "B"])
            #expect(pilot.lines.contains { $0.contains("CET") } && !pilot.lines.contains { $0.contains("UTC") }, "the screen shows the new zone")
            #expect(contents(path)?.hasPrefix("""
                {
                  "panels": [
                    {
                      "kind": "clock",
                      "title": "C",
                      "options": {
                        "timeZone": "Europe/Paris",
                        "seconds": true
                      }
                    },
                """) == true)
            pilot.press(.escape)
            #expect(!pilot.statusBar.contains("EDIT"))
            #expect(pilot.panelTitles == ["C", "A", "B"])
        }
    }

    @Test("n: a new page with the widget chosen in the gallery; the config gets pages, page 1 holding the panels it had")
    func newPage() async throws {
        try await editing { pilot, path, _ in
            pilot.type("En")
            #expect(pilot.lines[0].hasPrefix("┌ A new page's widget"))
            pilot.type("clock")
            pilot.press(.enter)
            #expect(pilot.panelTitles == ["A", "B", "C", "Clock"])
            #expect(pilot.focus == 3)
            #expect(pilot.lines[0].hasPrefix("┌ Clock"), "the new page is shown")
            #expect(pilot.statusBar.contains(" 1 Page 1  2 Page 2  │ EDIT* │ Clock │ added clock on Page 2"))
            pilot.type("s")
            #expect(contents(path)?.hasPrefix("""
                {
                  "pages": [
                    {
                      "title": "Page 1",
                      "panels": [
                """) == true)
            #expect(contents(path)?.hasSuffix("""
                    {
                      "title": "Page 2",
                      "panels": [
                        {
                          "kind": "clock"
                        }
                      ]
                    }
                  ]
                }

                """) == true)
            pilot.type("1")
            #expect(pilot.lines[0].hasPrefix("┌ A"))
        }
    }
}
