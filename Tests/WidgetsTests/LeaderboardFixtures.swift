import FoundationEssentials
import Glibc
import TerminalUI
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// The example of DESIGN.md §4, byte for byte.
let designExample = """
{ "updated": "2026-11-30T05:00:00Z",
  "heroes": [ { "name": "Spouty", "avatar": "🐳", "heroType": "Spouter", "level": 50,
                "exp": 20000, "health": 0.99, "healthRecoveryRatePerHour": 0.59 } ] }
"""

/// 2026-11-30T05:00:00Z, the `updated` of the DESIGN example.
let designUpdated = Date(timeIntervalSince1970: 1_796_014_800)

/// A hero with the fields the tests care about; the rest filled in.
func hero(_ name: String, _ avatar: String = "🦸", type: String = "Ranger", level: Int = 1, exp: Int,
          health: Double = 0.5, rate: Double = 0.25) -> LeaderboardHero {
    LeaderboardHero(name: name, avatar: avatar, heroType: type, level: level, exp: exp, health: health,
                    healthRecoveryRatePerHour: rate)
}

/// The seed roster of DESIGN.md §4 (Emoji Rangers).
let roster: [LeaderboardHero] = [
    hero("Power Panda", "🐼", type: "Forest Dweller", level: 3, exp: 600, health: 0.14, rate: 0.25),
    hero("Egghead", "🦄", type: "Wizard", level: 5, exp: 1000, health: 0.67, rate: 0.22),
    hero("Spouty", "🐳", type: "Spouter", level: 50, exp: 20000, health: 0.99, rate: 0.59),
    hero("Mr. Spook", "💀", type: "Calaca", level: 13, exp: 2640, health: 0.14, rate: 0.25),
    hero("Cake", "🎂", type: "Baker", level: 15, exp: 3121, health: 0.67, rate: 0.22),
    hero("Octo", "🐙", type: "Octopus", level: 43, exp: 86463, health: 0.83, rate: 0.29),
]

/// The roster as a board updated at `testEpoch`.
let rosterBoard = LeaderboardBoard(updated: testEpochDate, heroes: roster)

/// The roster a minute later: Power Panda +15,000 (6th → 3rd ▲), Mr. Spook +860 (stays 4th),
/// Cake unchanged (3rd → 5th ▼), Egghead −40 (5th → 6th ▼); Octo and Spouty unchanged.
let laterBoard: LeaderboardBoard = {
    var heroes = roster
    heroes[0].exp = 15_600
    heroes[1].exp = 960
    heroes[3].exp = 3_500
    return LeaderboardBoard(updated: testEpochDate + 60, heroes: heroes)
}()

/// `testEpoch` of WidgetTestSupport, repeated so fixtures need not import it at file scope.
let testEpochDate = Date(timeIntervalSince1970: 1_800_000_000)

/// Draws `entry` as `family` into a buffer of `width`×`height` (the panel's content area).
func render(_ entry: LeaderboardEntry, family: WidgetFamily, width: Int, height: Int, glyphs: GlyphSet = .unicode,
            placeholder: Bool = false) -> CellBuffer {
    var buffer = CellBuffer(width: max(0, width), height: max(0, height))
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    LeaderboardView.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs, at: entry.date)
    return buffer
}

/// Draws a hero entry as `family` into a buffer of `width`×`height`.
func render(_ entry: HeroEntry, family: WidgetFamily = .small, width: Int, height: Int, glyphs: GlyphSet = .unicode,
            placeholder: Bool = false) -> CellBuffer {
    var buffer = CellBuffer(width: max(0, width), height: max(0, height))
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    HeroWidget.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs, at: entry.date)
    return buffer
}

/// The frame's rows joined with newlines (for snapshots and `contains` checks).
func text(_ buffer: CellBuffer) -> String {
    TextBackend.lines(buffer).joined(separator: "\n") + "\n"
}

/// A fresh empty directory under /tmp, deleted with everything in it when the value goes away.
struct TemporaryStateDirectory: ~Copyable {
    let path: String

    init() {
        path = makeTemporaryDirectory(prefix: "lbtests")
    }

    deinit { removeTree(path) }
}

