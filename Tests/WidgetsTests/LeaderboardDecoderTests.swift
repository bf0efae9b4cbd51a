import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
@testable import Widgets

private func decode(_ json: String) throws(LeaderboardDecoder.Failure) -> LeaderboardDecoder.Result {
    try LeaderboardDecoder.decode(Data(json.utf8))
}

/// A board with one good hero (Octo) around `element`.
private func boardWith(_ element: String) -> String {
    """
    {"updated": "2026-11-30T05:00:00Z", "heroes": [
      {"name": "Octo", "avatar": "🐙", "heroType": "Octopus", "level": 43, "exp": 86463,
       "health": 0.83, "healthRecoveryRatePerHour": 0.29},
      \(element)
    ]}
    """
}

private let goodFields = #""avatar": "🦄", "heroType": "Wizard", "level": 5, "health": 0.67, "healthRecoveryRatePerHour": 0.22"#

@Suite("Leaderboard decoder")
struct LeaderboardDecoderTests {
    @Test("the DESIGN §4 example decodes to one hero with every field")
    func designExampleDecodes() throws {
        let result = try decode(designExample)
        #expect(result.skipped == 0)
        #expect(result.board.updated == designUpdated)
        #expect(result.board.heroes == [LeaderboardHero(name: "Spouty", avatar: "🐳", heroType: "Spouter", level: 50,
                                                         exp: 20000, health: 0.99, healthRecoveryRatePerHour: 0.59)])
    }

    @Test("a board longer than the limit keeps its leaders: ranked first, then cut")
    func longBoardKeepsLeaders() throws {
        let count = LeaderboardDecoder.maximumHeroes + 50
        // The best heroes come last on the wire.
        let heroes = (0..<count).map { i in
            #"{"name":"h\#(i)","avatar":"x","heroType":"t","level":1,"exp":\#(i),"health":0.5,"healthRecoveryRatePerHour":0.1}"#
        }
        let result = try decode(#"{"updated":"2026-11-30T05:00:00Z","heroes":[\#(heroes.joined(separator: ","))]}"#)
        #expect(result.board.heroes.count == LeaderboardDecoder.maximumHeroes)
        #expect(result.board.heroes.first?.name == "h\(count - 1)")
        #expect(result.skipped == 0, "heroes cut for length are not unreadable")
    }

    @Test("unknown fields are ignored at the top level and in heroes")
    func unknownFieldsIgnored() throws {
        let json = """
        {"updated": "2026-11-30T05:00:00Z", "season": 7, "motd": {"text": "hi"},
         "heroes": [{"name": "Egghead", "exp": 1000, \(goodFields), "mood": "smug", "tags": [1, 2]}]}
        """
        let result = try decode(json)
        #expect(result.skipped == 0)
        #expect(result.board.heroes.map(\.name) == ["Egghead"])
    }

    @Test("a hero with a wrong type, a missing field, a name too long or negative exp is skipped and counted",
          arguments: [
              #"{"name": "Egghead", "exp": "a lot", \#(goodFields)}"#,
              #"{"name": "Egghead", \#(goodFields)}"#,
              #"{"name": "\#(String(repeating: "E", count: 65))", "exp": 1000, \#(goodFields)}"#,
              #"{"name": "", "exp": 1000, \#(goodFields)}"#,
              #"{"name": "Egghead", "exp": -1, \#(goodFields)}"#,
              #"{"name": "Egghead", "exp": 1000, "avatar": "🦄", "heroType": "Wizard", "level": 5, "health": 0.67, "healthRecoveryRatePerHour": -0.1}"#,
              #"{"name": "Egghead", "exp": 1000, "avatar": "🦄", "heroType": "Wizard", "level": 10001, "health": 0.67, "healthRecoveryRatePerHour": 0.2}"#,
              #"null"#,
              #"42"#,
              #"["Egghead"]"#,
          ])
    func badHeroSkipped(element: String) throws {
        let result = try decode(boardWith(element))
        #expect(result.skipped == 1)
        #expect(result.board.heroes.map(\.name) == ["Octo"])
    }

    @Test("several bad heroes are all counted while the good ones decode")
    func severalBadHeroes() throws {
        let result = try decode(boardWith(#"1, {"name": "Cake"}, {"name": "Egghead", "exp": 1000, \#(goodFields)}, "x""#))
        #expect(result.skipped == 3)
        #expect(result.board.heroes.map(\.name) == ["Octo", "Egghead"])
    }

    @Test("a name of exactly 64 characters is kept")
    func longestName() throws {
        let name = String(repeating: "n", count: 64)
        let result = try decode(boardWith(#"{"name": "\#(name)", "exp": 1, \#(goodFields)}"#))
        #expect(result.skipped == 0)
        #expect(result.board.hero(named: name) != nil)
    }

    @Test("a bad top level fails the whole board with a reason that names the problem",
          arguments: [
              ("<html>502 Bad Gateway</html>", LeaderboardDecoder.Failure.notJSON, "not JSON"),
              ("", .notJSON, "not JSON"),
              (#"{"updated": "2026-11-30T05:00:00Z", "heroes": [ {"name": "#, .notJSON, "not JSON"),
              (#"[1, 2, 3]"#, .notAnObject, "not a JSON object"),
              (#"{"heroes": []}"#, .missing("updated"), "has no 'updated'"),
              (#"{"updated": null, "heroes": []}"#, .missing("updated"), "has no 'updated'"),
              (#"{"updated": "2026-11-30T05:00:00Z"}"#, .missing("heroes"), "has no 'heroes'"),
              (#"{"updated": "yesterday", "heroes": []}"#, .badUpdated("yesterday"), "'updated' is not a date: yesterday"),
              (#"{"updated": 1796014800, "heroes": []}"#, .wrongType("updated", expected: "a date string"),
               "'updated' is not a date string"),
              (#"{"updated": "2026-11-30T05:00:00Z", "heroes": 6}"#, .wrongType("heroes", expected: "an array"),
               "'heroes' is not an array"),
              (#"{"updated": "2026-11-30T05:00:00Z", "heroes": {"name": "Octo"}}"#,
               .wrongType("heroes", expected: "an array"), "'heroes' is not an array"),
          ] as [(String, LeaderboardDecoder.Failure, String)])
    func badTopLevel(json: String, failure: LeaderboardDecoder.Failure, reason: String) {
        #expect(throws: failure) { try decode(json) }
        #expect(failure.description.contains(reason))
    }

    @Test("a long bad date is cut in the reason so it fits a footer")
    func longBadDate() {
        let junk = String(repeating: "x", count: 500)
        #expect(LeaderboardDecoder.Failure.badUpdated(junk).description.count < 100)
    }

    @Test("health is clamped to 0…1")
    func healthClamped() throws {
        let result = try decode(boardWith("""
            {"name": "Cake", "avatar": "🎂", "heroType": "Baker", "level": 15, "exp": 3121, "health": 1.7,
             "healthRecoveryRatePerHour": 0.22},
            {"name": "Egghead", "avatar": "🦄", "heroType": "Wizard", "level": 5, "exp": 1000, "health": -0.3,
             "healthRecoveryRatePerHour": 0.22}
            """))
        #expect(result.skipped == 0)
        #expect(result.board.hero(named: "Cake")?.health == 1)
        #expect(result.board.hero(named: "Egghead")?.health == 0)
    }

    @Test("heroes are ranked by exp, ties by name, whatever order the server sends")
    func ranking() throws {
        let json = """
        {"updated": "2026-11-30T05:00:00Z", "heroes": [
          {"name": "Zed", "exp": 500, \(goodFields)},
          {"name": "Amy", "exp": 500, \(goodFields)},
          {"name": "Top", "exp": 9000, \(goodFields)},
          {"name": "Low", "exp": 1, \(goodFields)}
        ]}
        """
        let board = try decode(json).board
        #expect(board.heroes.map(\.name) == ["Top", "Amy", "Zed", "Low"])
        #expect(board.rank(of: "Amy") == 2)
        #expect(board.rank(of: "Zed") == 3)
        #expect(board.rank(of: "Nobody") == nil)
        #expect(LeaderboardBoard(updated: designUpdated, heroes: roster).heroes.map(\.name)
                == ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"])
    }

    @Test("control characters and escape sequences in names are kept as data, and never reach the frame as ESC",
          arguments: [GlyphSet.unicode, .ascii])
    func escapeSequencesStayData(glyphs: GlyphSet) throws {
        let nasty = #"Evil\u001b[2J\u001b]0;pwned\u0007\u0000\r\nBob"#
        let json = """
        {"updated": "2026-11-30T05:00:00Z", "heroes": [
          {"name": "\(nasty)", "avatar": "\\u001b[31m", "heroType": "\\u009b1mType", "level": 1, "exp": 99999,
           "health": 0.5, "healthRecoveryRatePerHour": 0.1}]}
        """
        let result = try decode(json)
        #expect(result.skipped == 0)
        let name = try #require(result.board.heroes.first?.name)
        #expect(name.unicodeScalars.contains("\u{1B}"), "the decoder keeps the name as sent")
        #expect(name.hasPrefix("Evil") && name.hasSuffix("Bob"))

        let entry = LeaderboardEntry(date: testEpochDate, board: result.board, previous: nil, fetchedAt: testEpochDate,
                                     fetchError: "bad \u{1B}[5m error")
        for family in WidgetFamily.allCases {
            let lines = TextBackend.lines(render(entry, family: family, width: 60, height: 16, glyphs: glyphs))
            for line in lines {
                #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                        "control character drawn in \(family): \(line.debugDescription)")
            }
            #expect(lines.joined().contains("Evil"), "the rest of the name is still shown in \(family)")
        }
        let heroEntry = HeroEntry(date: testEpochDate, hero: result.board.heroes[0], rank: 1, name: name)
        let heroLines = TextBackend.lines(render(heroEntry, width: 30, height: 6, glyphs: glyphs))
        #expect(!heroLines.joined().unicodeScalars.contains("\u{1B}"))
    }
}
