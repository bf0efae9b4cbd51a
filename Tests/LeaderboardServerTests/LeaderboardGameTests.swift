import Testing
@testable import LeaderboardServer

/// 2026-11-30T05:00:00Z.
private let start = 1_796_014_800

private func text(_ game: LeaderboardGame) -> String { String(decoding: game.boardJSON(), as: UTF8.self) }

private func hero(_ name: String, exp: Int, health: Double = 0.5, rate: Double = 0.25) -> Hero {
    Hero(name: name, avatar: "🙂", heroType: "Test", level: exp / 200, exp: exp,
         health: health, healthRecoveryRatePerHour: rate)
}

@Suite("Leaderboard game")
struct LeaderboardGameTests {
    @Test("the seed roster is served as DESIGN §4 shows it, ranked by exp")
    func seedBoard() {
        let board = text(LeaderboardGame(seed: 1, start: start))
        #expect(board.hasPrefix("{\"updated\": \"2026-11-30T05:00:00Z\", \"heroes\": [\n"))
        #expect(board.contains("{\"name\": \"Spouty\", \"avatar\": \"🐳\", \"heroType\": \"Spouter\", \"level\": 50, "
            + "\"exp\": 20000, \"health\": 0.99, \"healthRecoveryRatePerHour\": 0.59}"))
        let names = LeaderboardGame(seed: 1, start: start).heroes.map(\.name)
        #expect(names == ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"])
    }

    @Test("the same seed and tick count give the same bytes; another seed another board")
    func deterministic() {
        var a = LeaderboardGame(seed: 7, start: start)
        var b = LeaderboardGame(seed: 7, start: start)
        var c = LeaderboardGame(seed: 8, start: start)
        a.advance(ticks: 40)
        b.advance(ticks: 25)
        b.advance(ticks: 15)
        c.advance(ticks: 40)
        #expect(a.boardJSON() == b.boardJSON())
        #expect(a.boardJSON() != c.boardJSON())
        #expect(a.heroes != LeaderboardGame(seed: 7, start: start).heroes)
    }

    @Test("updated is the time of the last tick that changed a hero")
    func updated() {
        var game = LeaderboardGame(seed: 3, start: start)
        game.advance(ticks: 20)
        #expect(game.updated == start + 60)
        #expect(text(game).hasPrefix("{\"updated\": \"2026-11-30T05:01:00Z\""))

        var rules = GameRules()
        rules.battlesPerTick = 0
        var resting = LeaderboardGame(heroes: [hero("A", exp: 1, health: 1), hero("B", exp: 2, health: 1)],
                                      seed: 3, start: start, rules: rules)
        resting.advance(ticks: 5)
        #expect(resting.ticks == 5 && resting.updated == start)
        #expect(ISO8601.format(secondsSince1970: 0) == "1970-01-01T00:00:00Z")
    }

    @Test("health recovers at the rate per hour of game time and stops at 1")
    func recovery() {
        var rules = GameRules()
        rules.battlesPerTick = 0
        var game = LeaderboardGame(seed: 1, start: start, rules: rules)
        game.advance(ticks: 1)
        // 3 s × 60 = 0.05 h at 0.25/h.
        let panda = game.heroes.first { $0.name == "Power Panda" }!
        #expect(abs(panda.health - (0.14 + 0.0125)) < 1e-12)
        game.advance(ticks: 400)
        #expect(game.heroes.allSatisfy { $0.health == 1 })
        #expect(text(game).contains("\"health\": 1.0,"))
    }

    @Test("fighting never takes health below the floor")
    func floor() {
        var rules = GameRules()
        rules.timeScale = 0
        rules.battlesPerTick = 3
        rules.loserDamage = 0.3..<0.9
        rules.winnerDamage = 0.2..<0.5
        var game = LeaderboardGame(heroes: Hero.emojiRangers + [hero("Frail", exp: 5, health: 0.01)],
                                   seed: 11, start: start, rules: rules)
        game.advance(ticks: 50)
        let health = game.heroes.filter { $0.name != "Frail" }.map(\.health)
        #expect(health.allSatisfy { $0 == 0.05 })
        #expect(game.heroes.first { $0.name == "Frail" }!.health == 0.01)
    }

    @Test("exp and levels only grow, one level per 200 exp crossed")
    func levels() {
        var game = LeaderboardGame(seed: 5, start: start)
        var last = Dictionary(uniqueKeysWithValues: game.heroes.map { ($0.name, $0) })
        var gained = 0
        for _ in 0..<300 {
            game.advance(ticks: 1)
            for hero in game.heroes {
                let before = last[hero.name]!
                #expect(hero.exp >= before.exp && hero.level >= before.level)
                #expect(hero.level == LeaderboardGame.level(after: hero.exp, from: before.exp, level: before.level))
                gained += hero.exp - before.exp
                last[hero.name] = hero
            }
        }
        #expect(gained > 0)
        let spouty = game.heroes.first { $0.name == "Spouty" }!
        #expect(spouty.level - spouty.exp / 200 == 50 - 20000 / 200)
        #expect(LeaderboardGame.level(after: 799, from: 600, level: 3) == 3)
        #expect(LeaderboardGame.level(after: 800, from: 600, level: 3) == 4)
        #expect(LeaderboardGame.level(after: 1250, from: 600, level: 3) == 6)
    }

    @Test("ranking is by exp, highest first, ties by name")
    func ranking() {
        let game = LeaderboardGame(heroes: [hero("Mia", exp: 10), hero("Zed", exp: 50), hero("Abe", exp: 10),
                                            hero("Bo", exp: 50), hero("Al", exp: 99)],
                                   seed: 1, start: start)
        #expect(game.heroes.map(\.name) == ["Al", "Bo", "Zed", "Abe", "Mia"])
    }

    @Test("odd names are escaped")
    func escaping() {
        let odd = Hero(name: "Dr. \"Q\" \\ \n\t\r\u{01}\u{7F} ü 🦊", avatar: "🦊", heroType: "</script>",
                       level: 1, exp: 1, health: 0.1234, healthRecoveryRatePerHour: 0.05)
        let board = text(LeaderboardGame(heroes: [odd], seed: 1, start: start))
        #expect(board.contains("{\"name\": \"Dr. \\\"Q\\\" \\\\ \\n\\t\\r\\u0001\\u007f ü 🦊\", \"avatar\": \"🦊\", "
            + "\"heroType\": \"</script>\", \"level\": 1, \"exp\": 1, \"health\": 0.123, \"healthRecoveryRatePerHour\": 0.05}"))
        #expect(text(LeaderboardGame(heroes: [], seed: 1, start: start))
            == "{\"updated\": \"2026-11-30T05:00:00Z\", \"heroes\": []}\n")
    }

    @Test("decimals are plain, rounded to three places")
    func decimals() {
        func format(_ value: Double) -> String {
            var json = JSONWriter()
            json.decimal(value)
            return String(decoding: json.bytes, as: UTF8.self)
        }
        #expect(format(0.99) == "0.99")
        #expect(format(1) == "1.0")
        #expect(format(0.05) == "0.05")
        #expect(format(0.9996) == "1.0")
        #expect(format(0.0004) == "0.0")
        #expect(format(-0.25) == "-0.25")
        #expect(format(.nan) == "0")
    }
}
