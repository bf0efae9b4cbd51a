import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets
@testable import WidgetHost

/// A message log's answers can hold any value JSON can: each built-in kind's entries at the
/// extremes (huge and negative numbers, NaN and ±Inf, dates far off, long text), written and
/// read as a replay reads them, drawn at several sizes without a crash.
@Suite("Message log: extreme values")
@MainActor
struct MessageLogExtremeTests {
    @Test("every built-in kind draws entries with extreme values read from a log, at 100x30, 20x6, 1x1 and 300x80")
    func extremeValuesDraw() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.path + "/config.json"
        let text = #"""
            { "panels": [
              { "kind": "clock", "family": "small" }, { "kind": "countdown", "family": "small", "options": { "to": "2026-12-31T23:59:00Z" } },
              { "kind": "system", "family": "medium" }, { "kind": "text", "family": "small", "options": { "text": "x" } },
              { "kind": "command", "family": "small", "options": { "command": "true" } },
              { "kind": "http-json", "family": "small", "options": { "url": "http://127.0.0.1:9/x", "fields": [ { "label": "A", "pointer": "/a" } ] } },
              { "kind": "prometheus", "family": "medium", "options": { "url": "http://127.0.0.1:9", "query": "up", "show": "sparkline" } },
              { "kind": "leaderboard", "family": "large", "options": { "url": "http://127.0.0.1:9/leaderboard" } },
              { "kind": "hero", "family": "small", "options": { "name": "Octo" } } ] }
            """#
        #expect(FileManager.default.createFile(atPath: config, contents: Data(text.utf8)))
        let start = Date(timeIntervalSinceReferenceDate: 817_898_208)
        let coding = MessageLogCoding(catalog: .builtin())
        let encoder = MessageLogFile.encoder(coding)
        var bytes = try MessageLogFile.line(MessageLogHeader(start: start, size: TerminalSize(columns: 100, rows: 30),
                                                             config: .recorded(config), theme: nil, variables: [:]), encoder: encoder)
        // The panels' instances in order from 1, one answer each (the status bar's clock is text
        // that updates itself, no timeline of its own).
        for (index, entries) in Self.extremes(at: start).enumerated() {
            do {
                let instance = index + 1
                let answer = ProviderAnswer(request: ReloadRequest(instance: WidgetInstanceID(rawValue: instance), generation: 1, reason: .initial),
                                            result: .success(AnyTimeline(entries: entries, policy: .never)))
                bytes += try MessageLogFile.line(MessageLog.Record(date: start + 1, message: .providerAnswered(answer)), encoder: encoder)
            }
        }
        let read = try MessageLogFile.parse(bytes, path: "run.jsonl", coding: coding)
        let dashboard = try HeadlessDashboard.open(catalog: .builtin(), configPath: config, size: TerminalSize(columns: 100, rows: 30),
                                                   now: start, environment: HostEnvironment(variables: ["LANG": "C.UTF-8", "TZ": "UTC"])).get()
        defer { dashboard.close() }
        dashboard.replay(read.records)
        #expect(dashboard.lines.joined().contains("Cake"), "the answers are applied:\n\(dashboard.lines.joined(separator: "\n"))")
        for (columns, rows) in [(100, 30), (20, 6), (1, 1), (300, 80)] {
            dashboard.replay([MessageLog.Record(date: start + 2, message: .resized(TerminalSize(columns: columns, rows: rows)))])
            for key: Key in [.tab, .enter, .escape] {
                dashboard.replay([MessageLog.Record(date: start + 3, message: .key(key))])
                #expect(dashboard.lines.count == rows)
            }
        }
    }

    static func extremes(at date: Date) -> [[any TimelineEntry]] {
        let long = String(repeating: "🐙\u{1B}[31m\n\t", count: 200)
        let far = Date(timeIntervalSinceReferenceDate: -1e15)
        let hero = LeaderboardHero(name: "Octo", avatar: "🐙", heroType: long, level: .max, exp: .min, health: .infinity,
                                   healthRecoveryRatePerHour: .nan)
        let fine = LeaderboardHero(name: "Cake", avatar: "🎂", heroType: "Birthday", level: 15, exp: 3121, health: 0.5,
                                   healthRecoveryRatePerHour: 1e300)
        var leaderboard = LeaderboardEntry(date: date, board: LeaderboardBoard(updated: far, heroes: [hero, fine]),
                                           previous: LeaderboardBoard(updated: far, heroes: [fine]), fetchedAt: far,
                                           fetchError: long, skipped: .max, isFetching: true, maxRows: .max)
        leaderboard.push = .polling
        var heroEntry = HeroEntry(date: date, hero: fine, rank: .min, name: long)
        heroEntry.relevance = TimelineEntryRelevance(score: .nan, duration: -.infinity)
        let prometheus = HTTPJSONFormat.allCases.map { format in
            PrometheusEntry(date: date, rows: [.init(label: long, latest: 1e308, points: [.infinity, -.infinity, .nan, 1e308, -1e308]),
                                               .init(label: "", latest: -.infinity, points: [])],
                            totalSeries: .min, display: .sparkline, format: format, alertAbove: .nan, alertBelow: -.infinity,
                            hasData: true, fetchedAt: far, fetchError: long, isFetching: true)
        }
        return [
            [ClockEntry(date: date, time: long, dateLine: long, zone: long)],
            [CountdownEntry(date: date, label: long, remaining: long, isDone: true, target: long, shortTarget: long)],
            [SystemEntry(date: date, cpu: 1e308, cores: [.init(index: .max, usage: -.infinity), .init(index: .min, usage: .nan)],
                         memory: MemoryInfo(total: .max, available: .max, swapTotal: .max, swapFree: 0),
                         load: LoadAverage(one: .nan, five: .infinity, fifteen: -1e308), uptime: 1e308,
                         history: [1e308, -1e308, .nan, .infinity], problems: Array(repeating: long, count: 10))],
            [TextEntry(date: date, text: long, notice: long, isError: true, wrap: true)],
            [CommandEntry(date: date, ranAt: far, lines: Array(repeating: [ViewNode.Span(long, role: .negative, bold: true)], count: 50),
                          showsTail: true, outcome: .timedOut(seconds: .max), droppedBytes: .max)],
            [HTTPJSONEntry(date: date, rows: Array(repeating: .init(label: long, value: long), count: 100), hasData: true,
                           fetchedAt: far, fetchError: long, isFetching: true)],
            prometheus,
            [leaderboard],
            [heroEntry],
        ]
    }
}
