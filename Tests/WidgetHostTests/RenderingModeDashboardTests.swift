import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget whose one entry carries an alert, drawing the mode its view and provider were given.
private struct Moded {
    struct Entry: TimelineEntry { var date: Date; var providerMode: WidgetRenderingMode }
    struct Provider: TimelineProvider {
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, providerMode: context.renderingMode) }
        func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
        func timeline(in context: Context) async throws -> Timeline<Entry> {
            Timeline(entries: [Entry(date: .distantPast, providerMode: context.renderingMode)], policy: .never)
        }
    }

    static func widget(alert: EntryAlert.Level?) -> TerminalWidget {
        TerminalWidget(manifest: WidgetManifest(kind: "moded", displayName: "Moded", description: "", defaultFamily: .small,
                                                usesNetwork: false),
                       makeProvider: { _ in AnyTimelineProvider(Provider()) },
                       view: { entry, context in
                           let given = (entry as? Entry)?.providerMode.rawValue ?? "?"
                           return PanelView(node: .vstack([.text("v " + context.renderingMode.rawValue), .text("p " + given)]))
                       })
            .alerting { _, _ in alert.map { EntryAlert(level: $0, text: "disk") } }
    }
}

@MainActor
private func board(_ mode: RenderingMode, alert: EntryAlert.Level?) async -> DashboardUnderTest {
    let board = DashboardUnderTest(size: TerminalSize(columns: 24, rows: 8), renderingMode: mode)
    board.install([PreparedPanel.of([("Disk", Moded.widget(alert: alert))], family: .small)])
    await board.settle()
    return board
}

@Suite("Rendering modes on the dashboard", .serialized)
@MainActor
struct RenderingModeDashboardTests {
    @Test("the view's and the provider's context carry the mode", arguments: RenderingMode.allCases)
    func context(mode: RenderingMode) async {
        let lines = TextBackend.lines(await board(mode, alert: nil).render())
        #expect(lines[1] == "│v \(mode.rawValue)" + String(repeating: " ", count: 20 - mode.rawValue.count) + "│", "\(lines)")
        #expect(lines[2].hasPrefix("│p \(mode.rawValue)"), "\(lines)")
    }

    @Test("mono: an alerted panel's border says its level by its lines (double, heavy), no colour; fullColor draws it as before")
    func alertWithoutColour() async {
        let calm = await board(.mono, alert: nil).render()
        let warning = await board(.mono, alert: .warning).render()
        let critical = await board(.mono, alert: .critical).render()
        #expect(TextBackend.lines(calm)[0].hasPrefix("┌ Disk ─"))
        #expect(TextBackend.lines(warning)[0].hasPrefix("╔ Disk ═"), "\(TextBackend.lines(warning))")
        #expect(TextBackend.lines(warning)[6].hasPrefix("╚═══"))
        #expect(TextBackend.lines(critical)[0].hasPrefix("┏ Disk ━"), "\(TextBackend.lines(critical))")
        #expect(TextBackend.lines(critical)[6].hasPrefix("┗━━━"))
        let mono = TerminalPalette(theme: .default, capability: .palette256, mode: .mono)
        let looks = [calm, warning, critical].map { mono.resolve($0[0, 4].style) }
        #expect(looks.allSatisfy { $0.foreground == .terminalDefault && $0.background == .terminalDefault })
        #expect(looks[1].attributes.contains(.underline) && !looks[0].attributes.contains(.underline), "the alert is underlined too")
        let full = await board(.fullColor, alert: .critical).render()
        #expect(TextBackend.lines(full)[0].hasPrefix("┌ Disk ─"), "fullColor keeps the light border and its colour")
        #expect(full[0, 4].style.role == .negative)
    }

    @Test("accented: the alert's border is the accent tone, the calm border the neutral one")
    func alertAccented() async {
        let palette = TerminalPalette(theme: .default, capability: .palette256, mode: .accented)
        let accent = TerminalPalette.map(Theme.default.color(.accent), to: .palette256)
        let neutral = TerminalPalette.map(Theme.default.color(.foreground), to: .palette256)
        #expect(palette.resolve(await board(.accented, alert: .warning).render()[0, 4].style).foreground == accent)
        #expect(palette.resolve(await board(.accented, alert: nil).render()[0, 4].style).foreground == neutral)
    }

    @Test("--rendering-mode for the dashboard and snapshot, in --help; a bad name is a usage error; not with --replay")
    func options() throws {
        var expected = DashboardOptions()
        expected.renderingMode = .accented
        #expect(try CommandLineParser.parse(["--rendering-mode", "accented"]) == .dashboard(expected))
        guard case .snapshot(let snapshot) = try CommandLineParser.parse(["snapshot", "--rendering-mode=mono"]) else {
            Issue.record("snapshot --rendering-mode is not a snapshot")
            return
        }
        #expect(snapshot.renderingMode == .mono)
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--rendering-mode", "vibrant"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["snapshot", "--replay", "/tmp/run.log", "--rendering-mode", "mono"]) }
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--rendering-mode MODE"))
        #expect(HelpText.text(for: .snapshot, catalog: .builtin()).contains("--rendering-mode MODE"))
    }
}

@Suite("snapshot in each rendering mode", .serialized)
@MainActor
struct SnapshotRenderingModeTests {
    private static let config = #"{ "panels": [ { "kind": "clock", "family": "small", "title": "UTC", "options": { "timeZone": "UTC" } } ] }"#
    private static let moment = SnapshotTime.absolute(Date(timeIntervalSince1970: 1_774_745_999))

    private func snapshot(_ mode: RenderingMode?, format: SnapshotFormat = .ansi, noColor: Bool = false) async throws -> String {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/config.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(Self.config.utf8))
        var variables = ["TZ": "UTC", "LANG": "C.UTF-8"]
        if noColor { variables["NO_COLOR"] = "1" }
        var options = SnapshotOptions(configPath: path, size: TerminalSize(columns: 40, rows: 12), at: Self.moment, waitSeconds: 60,
                                      format: format)
        options.renderingMode = mode
        let output = await SnapshotCommand.run(options, environment: HostEnvironment(variables: variables, homeDirectory: "/nonexistent"),
                                               catalog: .builtin())
        #expect(output.exitCode == 0, "\(output.standardError)")
        return output.standardOutput
    }

    /// The distinct 256-colour foregrounds of an ANSI frame.
    private func foregrounds(_ ansi: String) -> Set<String> {
        Set(ansi.matches(of: /38;5;(\d+)/).map { String($0.1) })
    }

    @Test("NO_COLOR selects mono: attributes, no colour; --rendering-mode mono is the same frame")
    func noColorIsMono() async throws {
        let plain = try await snapshot(nil, noColor: true)
        #expect(foregrounds(plain).isEmpty && plain.contains("\u{1B}[0;1m"), "\(plain)")
        let svg = try await snapshot(nil, format: .svg, noColor: true)
        let monoSVG = try await snapshot(.mono, format: .svg)
        #expect(svg == monoSVG)
    }

    @Test("accented: two tones, the clock's face in the accent; fullColor: as many as the theme's roles")
    func accented() async throws {
        let accented = try await snapshot(.accented)
        #expect(foregrounds(accented) == ["75", "252"], "\(accented)")
        let full = try await snapshot(nil)
        #expect(foregrounds(full).count > 2)
        #expect(full == (try await snapshot(.fullColor)))
    }
}
