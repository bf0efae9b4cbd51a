import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

@Suite("Panel views")
struct PanelViewTests {
    @Test("the leaderboard's configured view is its ViewNode with a content height for large and extraLarge: a header, two rows a hero, the footer")
    func leaderboardContentHeight() {
        let widget = LeaderboardWidget.configuration(context: .none, registry: LeaderboardSessionRegistry())
        let entry = LeaderboardEntry(date: at(20), board: rosterBoard, fetchedAt: at(0))
        for family in WidgetFamily.allCases {
            let context = WidgetViewContext(family: family, size: CellSize(columns: 52, rows: 9))
            let view = widget.view(entry, context)
            #expect(view.node == LeaderboardView.view(entry, context: context))
            #expect(view.contentHeight == (family == .large || family == .extraLarge ? 6 * 2 + 3 : nil), "\(family)")
        }
        // An entry of another kind draws nothing.
        let other = widget.view(HeroEntry(date: at(0), hero: nil, rank: nil, name: "x"), WidgetViewContext(family: .large, size: CellSize(columns: 9, rows: 9)))
        var buffer = CellBuffer(width: 9, height: 9)
        other.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        #expect(buffer == CellBuffer(width: 9, height: 9) && other.contentHeight == nil)
    }

    @Test("centred lines stay one line each, in their role and bold, leaning up like centred text")
    func centeredLines() {
        var buffer = CellBuffer(width: 12, height: 4)
        PanelView.centeredLines([("a\nb", CellStyle(.negative, .bold)), ("c", CellStyle(.muted))])
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        expectFrame(buffer, equals: ["", "    a␊b", "     c", ""])
        #expect(buffer[4, 1].style == CellStyle(.negative, .bold) && buffer[0, 2].style == CellStyle(.muted))
    }
}
