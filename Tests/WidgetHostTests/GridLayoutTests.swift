import TerminalUI
import Testing
import WidgetCore
@testable import WidgetHost

@Suite("Grid layout")
struct GridLayoutTests {
    private let defaultFamilies: [WidgetFamily] = [.large, .small, .small, .medium]

    @Test("the default dashboard fills 80x23 with four unit columns and no holes")
    func defaultAt80x24() throws {
        let frames = try #require(GridLayout().frames(for: defaultFamilies, in: Rect(x: 0, y: 0, width: 80, height: 23)))
        #expect(frames == [
            Rect(x: 0, y: 0, width: 40, height: 23),
            Rect(x: 40, y: 0, width: 20, height: 12),
            Rect(x: 60, y: 0, width: 20, height: 12),
            Rect(x: 40, y: 12, width: 40, height: 11),
        ])
    }

    @Test("panels tile the area exactly at 80x24, 100x30 and 200x60")
    func tiles() throws {
        for (w, h) in [(80, 23), (100, 29), (200, 59)] {
            let area = Rect(x: 0, y: 0, width: w, height: h)
            let frames = try #require(GridLayout().frames(for: defaultFamilies, in: area))
            #expect(frames.reduce(0) { $0 + $1.area } == w * h, "\(w)x\(h): no holes")
            for (i, a) in frames.enumerated() {
                #expect(a.intersection(area) == a)
                for b in frames[(i + 1)...] { #expect(a.intersection(b).isEmpty, "\(a) overlaps \(b)") }
            }
        }
    }

    @Test("the large panel keeps half the width and the full height for the leaderboard")
    func largeKeepsRoom() throws {
        let frames = try #require(GridLayout().frames(for: defaultFamilies, in: Rect(x: 0, y: 1, width: 100, height: 29)))
        #expect(frames[0] == Rect(x: 0, y: 1, width: 50, height: 29))
    }

    @Test("a family wider than the grid is narrowed; a narrow terminal stacks panels")
    func narrow() throws {
        let frames = try #require(GridLayout().frames(for: [.extraLarge, .small], in: Rect(x: 0, y: 0, width: 30, height: 40)))
        #expect(frames == [Rect(x: 0, y: 0, width: 30, height: 27), Rect(x: 0, y: 27, width: 30, height: 13)])
    }

    @Test("too small an area has no layout, down to 0x0 and 1x1")
    func tooSmall() {
        #expect(GridLayout().frames(for: defaultFamilies, in: Rect(x: 0, y: 0, width: 19, height: 30)) == nil)
        #expect(GridLayout().frames(for: defaultFamilies, in: Rect(x: 0, y: 0, width: 80, height: 4)) == nil)
        #expect(GridLayout().frames(for: defaultFamilies, in: .zero) == nil)
        #expect(GridLayout().frames(for: defaultFamilies, in: Rect(x: 0, y: 0, width: 1, height: 1)) == nil)
        #expect(GridLayout().frames(for: [], in: .zero) == [])
    }
}

@Suite("Grid layout: no holes")
struct GridLayoutHoleTests {
    @Test("every-widget.json's families at 100x29: the 2x1 hole the flow leaves goes to a neighbour")
    func everyWidget() throws {
        let families: [WidgetFamily] = [.large, .small, .small, .medium, .medium, .small, .small, .small]
        let area = Rect(x: 0, y: 0, width: 100, height: 29)
        let frames = try #require(GridLayout().frames(for: families, in: area))
        #expect(frames.reduce(0) { $0 + $1.area } == area.area)
    }

    @Test("property: random configs (1–24 panels, every family) at random sizes from 40x12 to 300x100 tile the area exactly")
    func randomConfigs() {
        var random = SplitMix64(seed: 24)
        func pick(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        let all: [WidgetFamily] = [.small, .medium, .large, .extraLarge]
        var laidOut = 0
        for trial in 0..<3_000 {
            let families = (0..<pick(1...24)).map { _ in all[pick(0...3)] }
            let area = Rect(x: 0, y: 0, width: pick(40...300), height: pick(11...99))
            guard let frames = GridLayout().frames(for: families, in: area) else { continue }
            laidOut += 1
            var owner = Array(repeating: -1, count: area.area)
            var overlap = false
            for (i, frame) in frames.enumerated() {
                guard frame.intersection(area) == frame, frame.width > 0, frame.height > 0 else {
                    Issue.record("trial \(trial): \(families) in \(area): frame \(frame) outside or empty")
                    return
                }
                for y in frame.y..<frame.maxY { for x in frame.x..<frame.maxX {
                    if owner[y * area.width + x] >= 0 { overlap = true }
                    owner[y * area.width + x] = i
                } }
            }
            let holes = owner.filter { $0 < 0 }.count
            if overlap || holes > 0 {
                Issue.record("trial \(trial): \(families) in \(area.width)x\(area.height): \(holes) empty cells, overlap \(overlap)")
            }
        }
        #expect(laidOut > 1_000, "most random configs fit (\(laidOut) of 3000)")
    }
}
