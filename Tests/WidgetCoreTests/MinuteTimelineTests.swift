import FoundationEssentials
import Testing
import WidgetCore

@Suite("Minute timeline (the status bar's clock)")
struct MinuteTimelineTests {
    @Test("entries on whole minutes from the one that holds now, 60 at least, more to cover the host's minimum interval; atEnd")
    func minutes() async throws {
        let now = Date(timeIntervalSince1970: 1_796_014_845.7)  // 05:00:45.7
        let provider = MinuteTimelineProvider(now: { now })
        let timeline = try await provider.timeline(in: TimelineProviderContext(family: .small, size: .zero))
        #expect(timeline.entries.count == 60 && timeline.policy == .atEnd)
        #expect(timeline.entries.first?.date == Date(timeIntervalSince1970: 1_796_014_800))
        #expect(timeline.entries.last?.date == Date(timeIntervalSince1970: 1_796_014_800 + 59 * 60))
        #expect(provider.entries(from: now, covering: 7200).count == 121)
        #expect(provider.entries(from: now, covering: .nan).count == 60)
        #expect(provider.entries(from: now, covering: .infinity).count == 100_000)
        #expect(provider.entries(from: Date(timeIntervalSince1970: -30)).first?.date == Date(timeIntervalSince1970: -60))
        #expect(provider.placeholder(in: TimelineProviderContext(family: .small, size: .zero)).date == .distantPast)
    }
}
