import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// WidgetKit's snapshot in a preview (`isPreview`: a gallery, `preview --snapshot`) shows
/// sample data at once, whatever the widget has fetched; outside a preview it shows the state
/// now (`LeaderboardTimelineTests.placeholderAndSnapshot`).
@Suite("Snapshots in a preview show sample data")
struct PreviewSnapshotTests {
    static let preview = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isPreview: true)
    static let context = WidgetContext(now: { at(600) })

    @Test("the leaderboard: the six Emoji Rangers, ranked, updated now, with nothing fetched")
    func leaderboard() async throws {
        let widget = LeaderboardWidget.configuration(context: Self.context, registry: LeaderboardSessionRegistry())
        let provider = try widget.makeProvider(["url": .string("http://127.0.0.1:1/leaderboard")])
        let entry = try #require(await provider.snapshot(in: Self.preview) as? LeaderboardEntry)
        #expect(entry.board?.heroes.map(\.name) == ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"])
        #expect(entry.date == at(600) && entry.fetchedAt == at(600) && entry.fetchError == nil)
        var live = Self.preview
        live.isPreview = false
        let real = try #require(await provider.snapshot(in: live) as? LeaderboardEntry)
        #expect(real.board == nil, "outside a preview: what was fetched (nothing)")
    }

    @Test("the hero: its sample self with its rank, or the board's first for a name not on it")
    func hero() async throws {
        let widget = HeroWidget.configuration(context: Self.context)
        let octo = try #require(await widget.makeProvider(["name": .string("Octo")]).snapshot(in: Self.preview) as? HeroEntry)
        #expect(octo.hero?.name == "Octo" && octo.rank == 1)
        let unknown = try #require(await widget.makeProvider(["name": .string("Nobody")]).snapshot(in: Self.preview) as? HeroEntry)
        #expect(unknown.hero?.name == "Octo" && unknown.rank == 1, "the board's first")
    }

    @Test("http-json: each field shows its format's sample, nothing fetched")
    func httpJSON() async throws {
        let widget = HTTPJSONWidget.configuration(context: Self.context)
        let fields = HTTPJSONFormat.allCases.map { format -> WidgetOptions.Value in
            .object(["label": .string(format.rawValue), "pointer": .string("/x"), "format": .string(format.rawValue)])
        }
        let provider = try widget.makeProvider(["url": .string("http://127.0.0.1:1/x"), "fields": .list(fields)])
        let entry = try #require(await provider.snapshot(in: Self.preview) as? HTTPJSONEntry)
        #expect(entry.hasData && entry.fetchError == nil)
        #expect(entry.rows.map(\.value) == ["sample", "12,345.68", "42.5%", "1.5 KiB", "2h 15m", "5m ago"])
    }
}
