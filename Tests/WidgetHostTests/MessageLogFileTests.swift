import Extensions
import FoundationEssentials
import TerminalUI
import JSONTree
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets
@testable import WidgetHost

/// The replayable log's format (`MessageLogFile`): every message and every built-in entry type
/// written and read back, and what a damaged or hostile file gives instead of a crash.
@Suite("Message log: file format")
@MainActor
struct MessageLogFileTests {
    private let coding = MessageLogCoding(catalog: Catalog.builtin().adding(Self.extensionDefinition))
    private let start = Date(timeIntervalSinceReferenceDate: 817_898_208.5612276)

    @Test("every built-in widget names a Codable entry type (a widget without one could not be recorded)")
    func everyKindHasACodec() {
        for definition in Catalog.builtin().definitions {
            #expect(definition.entryCodec?.name == definition.manifest.kind, "\(definition.manifest.kind)")
        }
    }

    @Test("every message kind, and an answer of each entry type, is written as one line and read back the same")
    func roundTrip() throws {
        let records = Self.messages(at: start).enumerated().map { MessageLog.Record(date: start + Double($0) * 0.001, message: $1) }
        let header = MessageLogHeader(start: start, size: TerminalSize(columns: 100, rows: 30),
                                      config: .init(path: "/etc/x.json", text: "{ \"panels\": [] }\n"), theme: "mono",
                                      variables: ["TZ": "Europe/Berlin", "LANG": "C.UTF-8", "NO_COLOR": "1"])
        let encoder = MessageLogFile.encoder(coding)
        var bytes = try MessageLogFile.line(header, encoder: encoder)
        for record in records { bytes += try MessageLogFile.line(record, encoder: encoder) }
        #expect(bytes.split(separator: 0x0A).count == records.count + 1, "one line per record")
        let read = try MessageLogFile.parse(bytes, path: "run.jsonl", coding: coding)
        #expect(read.header == header)
        #expect(read.records.count == records.count)
        for (original, back) in zip(records, read.records) {
            #expect(back.date == original.date)
            #expect(back.message == original.message, "\(MessageLog.describe(original.message))")
            // Answers compare by dates and policy only: their entries must come back whole.
            if case .providerAnswered(let a) = original.message, case .providerAnswered(let b) = back.message,
               case .success(let x) = a.result, case .success(let y) = b.result {
                #expect(x.entries.map { "\(type(of: $0))" } == y.entries.map { "\(type(of: $0))" })
                #expect(x.entries.map(Self.dump) == y.entries.map(Self.dump))
            }
            if case .panelsBuilt(let a) = original.message, case .panelsBuilt(let b) = back.message {
                #expect(a.map { $0.fresh?.members.map(\.options) } == b.map { $0.fresh?.members.map(\.options) })
            }
        }
        let kinds = Set(records.compactMap { record -> String? in
            guard case .providerAnswered(let answer) = record.message, case .success(let timeline) = answer.result,
                  let first = timeline.entries.first else { return nil }
            return coding.codec(for: first)?.name
        })
        #expect(kinds == Set(Catalog.builtin().definitions.map(\.manifest.kind) + ["host.minute", "extension"]), "an answer of every entry type")
    }

    /// Every case of `DashboardMessage`: a new case fails to compile here until it is added.
    static func messages(at date: Date) -> [DashboardMessage] {
        let every: [DashboardMessage] = [
            .key(.tab), .key(.character("é")), .key(.control("l")), .key(.function(5)), .key(.unknown(410)), .key(.ctrlC),
            .resized(TerminalSize(columns: 80, rows: 24)), .quit, .suspend, .childExited,
            .key(.mouse(MouseEvent(.press, column: 3, row: 7))), .key(.mouse(MouseEvent(.wheelDown, column: 0, row: 0))),
            .pageRotationDue, .relevanceExpired, .linkOpened(failure: nil), .linkOpened(failure: "no xdg-open"),
            .timelinesDue, .reloadsRequested([.kind("leaderboard"), .all]), .reloadsRequested([.caused("http-json", .outage), .kind("hero"), .caused("leaderboard", .answer),
                                                                    .caused("mqtt", .push), .caused("leaderboard", .user)]),
            .widgetsFound(BoundWidgets(widgets: [Catalog.builtin().definitions[0].widget(.none)])),
            .configChanged(reason: "SIGHUP"), .extensionsFound(notice: "1 extension skipped"), .extensionsFound(notice: nil),
            .configLoaded(config, Theme.mono), .panelsBuilt(panels), .configRejected(notice: "config not reloaded: x"),
            .configRejected(notice: nil), .clockSet(step: -3600.5),
            .actionFinished(WidgetInstanceID(rawValue: 2), action: WidgetAction(key: "+", title: "heal the hero"), failure: "timed out"),
            .providerAnswered(ProviderAnswer(request: request(9), result: .failure(WidgetActionError("no such file")))),
            .editorOpened(.opened(editable(original: nil))), .editorOpened(.failed("cannot edit: x")),
            .configSaved(.saved(editable(original: Array("{\"panels\": []}\n".utf8)))), .configSaved(.changedOnDisk),
            .configSaved(.failed("cannot write /c.json: Permission denied")),
            .galleryPreviewed(GalleryPreview(kind: "clock", family: .medium, entry: nil, failure: "no sample")),
            .optionsAnswered(OptionsAnswer(kind: "clock", option: "timeZone", query: "par",
                                           items: [DynamicOptionItem(value: "Europe/Paris", title: "Europe/Paris", subtitle: "FR")], failure: nil)),
            .optionsAnswered(OptionsAnswer(kind: "hero", option: "name", query: "", items: [], failure: "no board of session 'x' yet")),
            .activityRequested(ActivityRequest(action: .start, id: "build", title: "Build ✔", detail: "step 1", progress: 0.25,
                                               staleAfter: 600)),
            .activityRequested(ActivityRequest(action: .end, id: "build", state: .failure, dismissAfter: 0)),
            .activitiesRestored([Activity(id: "deploy", title: "Deploy", progress: 0.5, started: date, updated: date + 1.5, staleAfter: 60)],
                                events: [HistoryEvent(time: date, kind: .activity, title: "Deploy", level: .info, text: "deploy started")]),
            .activitiesDue,
            .textsDue,
        ]
        // Exhaustive over the cases (keeps `every` honest).
        for message in every {
            switch message {
            case .key, .resized, .quit, .suspend, .childExited, .pageRotationDue, .relevanceExpired, .providerAnswered,
                 .timelinesDue, .reloadsRequested, .widgetsFound, .configChanged, .extensionsFound, .configLoaded,
                 .panelsBuilt, .configRejected, .clockSet, .actionFinished, .linkOpened, .editorOpened, .configSaved, .galleryPreviewed, .optionsAnswered,
                 .activityRequested, .activitiesRestored, .activitiesDue, .textsDue: break
            }
        }
        return every + entries(at: date).enumerated().map { index, entries in
            var timeline = AnyTimeline(entries: entries, policy: [.atEnd, .never, .after(date + 600)][index % 3])
            timeline.policyRetriesFailure = index % 3 == 2
            return .providerAnswered(ProviderAnswer(request: request(index), result: .success(timeline)))
        }
    }

    static func editable(original: [UInt8]?) -> EditableConfig {
        let panel = JSONValue.object(JSONObject(members: [("kind", .string("clock")), ("title", .string("é \u{1B}"))]))
        return EditableConfig(path: "/home/me/.config/widgethost/config.json", original: original,
                              document: ConfigDocument(.object(JSONObject(members: [("panels", .array([panel]))])))!)
    }

    static func request(_ index: Int) -> ReloadRequest {
        ReloadRequest(instance: WidgetInstanceID(rawValue: index + 1), generation: UInt64(index + 2),
                      reason: [.initial, .policy, .widgetCenter, .user, .retry, .environment, .outage, .answer, .push][index % 9])
    }

    /// One answer's entries per entry type, with the odd values a real run has (NaN from
    /// Prometheus, nil fields, emoji).
    static func entries(at date: Date) -> [[any TimelineEntry]] {
        let hero = LeaderboardHero(name: "Spouty", avatar: "🐳", heroType: "Spouter", level: 50, exp: 20_118, health: 0.99,
                                   healthRecoveryRatePerHour: 0.1)
        let board = LeaderboardBoard(updated: date, heroes: [hero])
        var leaderboard = LeaderboardEntry(date: date, board: board, previous: board, fetchedAt: date, fetchError: "timed out",
                                           skipped: 1, isFetching: true, maxRows: 7)
        leaderboard.push = .live
        return [
            [ClockEntry(date: date, time: "09:56", dateLine: "Wed 2 Dec 2026", zone: "UTC"),
             ClockEntry(date: date + 60, time: "09:57", dateLine: "", zone: "UTC")],
            [leaderboard, LeaderboardEntry(date: date + 60, board: nil)],
            [HeroEntry(date: date, hero: hero, rank: 2, name: "Spouty"), HeroEntry(date: date, hero: nil, rank: nil, name: "Nobody")],
            [SystemEntry(date: date, cpu: 0.5, cores: [.init(index: 0, usage: 1)], memory: MemoryInfo(total: 8, available: 4),
                         load: LoadAverage(one: 1, five: 2, fifteen: 3), uptime: 60, history: [0.1, 0.5], problems: ["/proc/loadavg missing"])],
            [CountdownEntry(date: date, label: "New Year", remaining: "42s", isDone: false, target: "Thu 31 Dec 2026 23:59", shortTarget: "31 Dec")],
            [CommandEntry(date: date, ranAt: date, lines: [[ViewNode.Span("ok ", role: .positive, bold: true), ViewNode.Span("done")]],
                          showsTail: true, outcome: .timedOut(seconds: 5), droppedBytes: 12)],
            [TextEntry(date: date, text: "hello\u{1B}[31m", notice: "only the first 1 MiB is shown", isError: false, wrap: true)],
            [HTTPJSONEntry(date: date, rows: [.init(label: "Stars", value: "1,234"), .init(label: "Gone", value: nil)], hasData: true,
                           fetchedAt: date, fetchError: nil, isFetching: false)],
            [PrometheusEntry(date: date, rows: [.init(label: "up", latest: .nan, points: [1, .infinity, -.infinity, .nan])],
                             totalSeries: 3, display: .sparkline, format: .percent, alertAbove: 0.9, alertBelow: nil, hasData: true,
                             fetchedAt: date, fetchError: "bad query", isFetching: false)],
            [MQTTEntry(date: date, rows: [.init(label: "home/kitchen/temp", value: "21.5"), .init(label: "gone", value: nil)],
                       listsTopics: true, topicCount: 2, droppedMessages: 3, notice: "home/x: not UTF-8", link: .down("refused"),
                       receivedAt: date),
             MQTTEntry(date: date + 1, rows: [], listsTopics: false, topicCount: 0, droppedMessages: 0, notice: nil, link: .live,
                       receivedAt: nil)],
            [MinuteEntry(date: date), MinuteEntry(date: date + 60)],
            [ActivitiesPanelEntry(date: date)], [EventsPanelEntry(date: date)],
            [ExtensionEntry(date: date, relevance: TimelineEntryRelevance(score: 0.5, duration: 60),
                            view: .vstack([.text("CPU", role: .muted, bold: true), .bar(0.83, role: .positive, label: "83%")]),
                            failure: .restarting(reason: "crashed", inSeconds: 4))],
        ]
    }

    /// A validated config (defaults filled in, as a loaded config has them), with a stack.
    static let config: DashboardConfig = {
        let text = #"""
            { "theme": "mono", "minimumReloadSeconds": 7, "dailyReloadBudget": 100,
              "panels": [ { "kind": "clock", "family": "small", "title": "UTC 🕐", "options": { "timeZone": "UTC", "seconds": false } },
                          { "kind": "stack", "family": "medium", "panels": [
                              { "kind": "text", "options": { "text": "hi\u001b[31m", "wrap": true } },
                              { "kind": "clock", "title": "Berlin", "options": { "timeZone": "Europe/Berlin" } } ] } ] }
            """#
        return try! ConfigLoader(validator: Catalog.builtin().validator()).load(bytes: Array(text.utf8), path: "c.json").config!
    }()

    static var panels: [PreparedPanel] {
        let clock = Catalog.builtin().definitions[0].widget(.none)
        let options = config.panels[0].options
        let fresh = PreparedPanel.Fresh(title: "UTC 🕐", members: [
            PreparedPanel.Member(widget: clock, title: "UTC 🕐", options: options, provider: try! clock.makeProvider(options)),
        ], setupError: nil)
        return [PreparedPanel(config: config.panels[0], fresh: fresh), PreparedPanel(config: config.panels[1], fresh: nil)]
    }

    /// An extension kind's definition (its entries are `ExtensionEntry`), never bound.
    static var extensionDefinition: [WidgetDefinition] {
        let manifest = WidgetManifest(kind: "demo/cpu", displayName: "CPU", description: "", supportedFamilies: [.small], defaultFamily: .small)
        return [WidgetDefinition(manifest: manifest) { _ in
            TerminalWidget(manifest: manifest, makeProvider: { _ in AnyTimelineProvider(NoProvider()) },
                           view: { _, _ in PanelView(node: .spacer) })
        }.entryType(ExtensionEntry.self, name: "extension")]
    }

    /// An entry as text, every field (the entries are Equatable, but `any` hides it).
    static func dump(_ entry: any TimelineEntry) -> String {
        var text = ""
        Swift.dump(entry, to: &text)
        return text
    }
}
