import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let octo = HeroEntry(date: at(0), hero: hero("Octo", "🐙", type: "Octopus", level: 43, exp: 86463, health: 0.5, rate: 0.2256),
                             rank: 1, name: "Octo")
private let clock = ClockEntry(date: at(0), time: "14:05", dateLine: "Mon 30 Nov 2026", zone: "CET")

/// Draws `node` into a fresh `width`×`height` buffer, the way `PanelView(node:)` does.
private func draw(_ node: ViewNode, width: Int, height: Int, glyphs: GlyphSet = .unicode) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    PanelView(node: node).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    return buffer
}

@Suite("Widget views as data")
struct WidgetViewDescriptionTests {
    @Test("the hero and clock views are view descriptions: sent as JSON and decoded, they draw the widget's own frame")
    func asData() throws {
        for (width, height) in [(24, 7), (30, 9), (10, 4), (3, 5), (1, 1), (0, 0)] {
            for glyphs in [GlyphSet.unicode, .ascii] {
                for placeholder in [false, true] {
                    let context = WidgetViewContext(family: .small, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
                    var own = CellBuffer(width: width, height: height)
                    HeroWidget.view(octo, context: context).draw(into: &own, in: own.bounds, glyphs: glyphs)
                    let hero = try ViewNode.decode(Array(HeroWidget.node(octo, context: context, glyphs: glyphs).jsonText.utf8),
                                                   path: "entries[0].view")
                    #expect(draw(hero, width: width, height: height, glyphs: glyphs) == own, "hero \(width)×\(height)")

                    var clockFrame = CellBuffer(width: width, height: height)
                    ClockWidget.view(clock, context: context).draw(into: &clockFrame, in: clockFrame.bounds, glyphs: glyphs)
                    // Its big digits are glyph tokens: written out for the terminal as an extension would.
                    let clockNode = try ViewNode.decode(ClockWidget.node(clock, context: context).resolvingGlyphs(glyphs).jsonValue)
                    #expect(draw(clockNode, width: width, height: height, glyphs: glyphs) == clockFrame, "clock \(width)×\(height)")
                }
            }
        }
        // The description itself, as an extension would send it.
        let context = WidgetViewContext(family: .small, size: CellSize(columns: 20, rows: 2))
        #expect(ClockWidget.node(clock, context: context).jsonText == """
            {"type":"vstack","children":[{"type":"spacer"},\
            {"type":"text","spans":[{"text":"14:05","role":"accent","bold":true}],"align":"center","accentable":true},\
            {"type":"spacer"}]}
            """)
    }

    @Test("clock frames: centred time, the date from 3 rows, the zone from 4; placeholder and tiny areas")
    func clockFrames() {
        func frame(_ width: Int, _ height: Int, placeholder: Bool = false) -> CellBuffer {
            var buffer = CellBuffer(width: width, height: height)
            let context = WidgetViewContext(family: .small, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
            ClockWidget.view(clock, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
            return buffer
        }
        expectFrame(frame(20, 5), equals: ["", "       14:05", "  Mon 30 Nov 2026", "        CET", ""])
        expectFrame(frame(20, 2), equals: ["       14:05", ""])
        expectFrame(frame(12, 3), equals: ["   14:05", "Mon 30 Nov …", ""])
        expectFrame(frame(4, 1), equals: ["14:…"])
        expectFrame(frame(1, 1), equals: ["…"])
        expectFrame(frame(0, 0), equals: [])
        let redacted = frame(20, 5, placeholder: true)
        #expect(redacted[7, 1].style == CellStyle(.placeholder) && frame(20, 5)[7, 1].style == CellStyle(.accent, .bold, accentable: true))
    }

    @Test("the hero at 24×7 is the recorded snapshot when drawn from its JSON description")
    func heroSnapshotFromJSON() throws {
        let context = WidgetViewContext(family: .small, size: CellSize(columns: 24, rows: 7))
        let json = HeroWidget.node(octo, context: context, glyphs: .unicode).jsonText
        let node = try ViewNode.decode(Array(json.utf8))
        expectSnapshot(text(draw(node, width: 24, height: 7)), named: "hero-small-24x7")
    }
}
