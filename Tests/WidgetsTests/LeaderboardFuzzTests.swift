import BackgroundSessions
import FoundationEssentials
import Glibc
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// The fuzzer's seed: fixed, so a failure is reproducible; `WIDGETHOST_FUZZ_SEED` overrides it
/// to explore (every failure message names the seed and the iteration).
private let fuzzSeed: UInt64 = getenv("WIDGETHOST_FUZZ_SEED").flatMap { UInt64(String(cString: $0)) } ?? 0x5EED_B0A7D
private let fuzzIterations = 200

/// A JSON document as the fuzzer edits it; numbers are kept as their text, so values no
/// `Double` holds (`1e400`, 30 digits) reach the decoder as a server could send them.
private indirect enum JSON {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null
    /// Bytes spliced in as they are (not necessarily JSON).
    case raw(String)

    var text: String {
        switch self {
        case .object(let members): "{" + members.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .string(let s): Self.quoted(s)
        case .number(let n): n
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        case .raw(let r): r
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

private func heroJSON(_ hero: LeaderboardHero) -> JSON {
    .object([("name", .string(hero.name)), ("avatar", .string(hero.avatar)), ("heroType", .string(hero.heroType)),
             ("level", .number("\(hero.level)")), ("exp", .number("\(hero.exp)")), ("health", .number("\(hero.health)")),
             ("healthRecoveryRatePerHour", .number("\(hero.healthRecoveryRatePerHour)"))])
}

private let validBoard = JSON.object([("updated", .string("2026-11-30T05:00:00Z")), ("heroes", .array(roster.map(heroJSON)))])

private let heroFields = ["name", "avatar", "heroType", "level", "exp", "health", "healthRecoveryRatePerHour"]
private let numericFields = ["level", "exp", "health", "healthRecoveryRatePerHour"]

/// Numbers at the edges: huge, tiny, negative, beyond Double and Int64, and not-numbers.
private let hostileNumbers = [
    "1e-300", "-1e-300", "4.9e-324", "1e308", "-1e308", "1e400", "-1e400", "1.7976931348623157e308",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "123456789012345678901234567890", "0", "-0", "-1", "0.5", "1.0000000000000002",
    "0.9999999999999999", "1e-5", "10001", "1000000000001", "2.5", "1e3", "NaN", "Infinity", "-Infinity", "0x10",
]

private func hostileString(_ rng: inout FuzzRandom) -> String {
    switch Int.random(in: 0..<9, using: &rng) {
    case 0: return ""
    case 1: return "\u{1B}[2J\u{1B}]52;c;aGk=\u{07}"
    case 2: return String(repeating: "W", count: Int.random(in: 60...2000, using: &rng))
    case 3: return "\u{202E}kooS .rM\u{2066}"
    case 4: return "a\u{0}b\u{7F}c\u{9B}d\u{85}"
    case 5: return "e" + String(repeating: "\u{301}", count: Int.random(in: 1...1000, using: &rng))
    case 6: return "👨‍👩‍👧‍👦🏳️‍🌈\u{FE0F}"
    case 7: return "\u{2028}\u{FFFF}\u{FFFD}"
    default: return String(repeating: "界", count: Int.random(in: 1...80, using: &rng))
    }
}

private func hostileValue(_ rng: inout FuzzRandom) -> JSON {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0...2: return .number(hostileNumbers.randomElement(using: &rng)!)
    case 3, 4:
        // Any magnitude a Double has, and some it has not: tiny rates and huge levels alike.
        let sign = Bool.random(using: &rng) ? "" : "-"
        return .number("\(sign)\(Int.random(in: 1...9, using: &rng)).\(Int.random(in: 0...99, using: &rng))e\(Int.random(in: -330...330, using: &rng))")
    case 5: return .string(hostileString(&rng))
    case 6: return [.null, .bool(true), .array([]), .object([])].randomElement(using: &rng)!
    case 7:
        let depth = Int.random(in: 10...700, using: &rng)
        return .raw(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
    case 8: return .string(["2026-11-30T05:00:00Z", "99999-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "-0001-01-01T00:00:00Z",
                            "2026-11-30T05:00:00+99:99", "2000000000-01-01T00:00:00Z"].randomElement(using: &rng)!)
    default: return .number("\(Int.random(in: Int.min...Int.max, using: &rng))")
    }
}

/// One random edit of the board document.
private func mutate(_ doc: JSON, _ rng: inout FuzzRandom) -> JSON {
    guard case .object(var top) = doc else { return doc }
    let heroesIndex = top.firstIndex { $0.0 == "heroes" }
    switch Int.random(in: 0..<10, using: &rng) {
    case 0...4:
        // A hero's field: a hostile value, or gone.
        guard let heroesIndex, case .array(var heroes) = top[heroesIndex].1, !heroes.isEmpty else { return doc }
        let h = Int.random(in: 0..<heroes.count, using: &rng)
        guard case .object(var fields) = heroes[h] else { heroes[h] = hostileValue(&rng); break }
        // Numbers are where traps hide: half the edits go to the numeric fields.
        let field = Bool.random(using: &rng) ? numericFields.randomElement(using: &rng)! : heroFields.randomElement(using: &rng)!
        fields.removeAll { $0.0 == field }
        if Int.random(in: 0..<6, using: &rng) > 0 { fields.append((field, hostileValue(&rng))) }
        heroes[h] = .object(fields)
        top[heroesIndex].1 = .array(heroes)
    case 5:
        // Many heroes (beyond the limit), copies of one.
        guard let heroesIndex, case .array(let heroes) = top[heroesIndex].1, let first = heroes.first else { return doc }
        top[heroesIndex].1 = .array(heroes + Array(repeating: first, count: Int.random(in: 1...300, using: &rng)))
    case 6:
        top.removeAll { $0.0 == "updated" }
        if Int.random(in: 0..<4, using: &rng) > 0 { top.append(("updated", hostileValue(&rng))) }
    case 7:
        if let heroesIndex { top[heroesIndex].1 = hostileValue(&rng) }
    case 8:
        top.append(("x\(Int.random(in: 0..<100, using: &rng))", hostileValue(&rng)))
    default:
        return Int.random(in: 0..<2, using: &rng) == 0 ? hostileValue(&rng) : .array([doc])
    }
    return .object(top)
}

/// A byte-level edit of the text: cut short, or a random byte put in.
private func corrupt(_ bytes: [UInt8], _ rng: inout FuzzRandom) -> [UInt8] {
    guard !bytes.isEmpty else { return bytes }
    var bytes = bytes
    let i = Int.random(in: 0..<bytes.count, using: &rng)
    if Bool.random(using: &rng) { bytes.removeSubrange(i...) } else { bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i) }
    return bytes
}

/// A scalar that must never reach a frame: C0 and C1 controls, DEL, bidi controls, separators.
private func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    Sanitizer.replacement(for: scalar) != nil && scalar != " "
}

@Suite("Leaderboard fuzzing: hostile boards never trap the decoder or the views")
struct LeaderboardFuzzTests {
    @Test("random mutations of a valid board decode to heroes within bounds (or a reason), and render in every view")
    func fuzzDecoderAndViews() throws {
        var rng = FuzzRandom(seed: fuzzSeed)
        var decoded = 0
        for iteration in 0..<fuzzIterations {
            let place = "seed \(fuzzSeed) iteration \(iteration) (WIDGETHOST_FUZZ_SEED=\(fuzzSeed))"
            var doc = validBoard
            for _ in 0..<Int.random(in: 1...4, using: &rng) { doc = mutate(doc, &rng) }
            var bytes = Array(doc.text.utf8)
            if Int.random(in: 0..<8, using: &rng) == 0 { bytes = corrupt(bytes, &rng) }

            let result: LeaderboardDecoder.Result
            do {
                result = try LeaderboardDecoder.decode(Data(bytes))
            } catch {
                #expect(!error.description.isEmpty && error.description.count <= 200, "\(place): \(error.description.prefix(300))")
                continue
            }
            decoded += 1
            let board = result.board
            #expect(board.heroes.count <= LeaderboardDecoder.maximumHeroes, "\(place)")
            #expect(result.skipped >= 0, "\(place)")
            for hero in board.heroes {
                #expect(LeaderboardDecoder.isValid(hero), "\(place): \(hero)")
                #expect((0...1).contains(hero.health) && hero.healthRecoveryRatePerHour.isFinite
                        && hero.healthRecoveryRatePerHour >= 0, "\(place): \(hero)")
            }
            try renderEverywhere(board, glyphs: iteration % 2 == 0 ? .unicode : .ascii, place: place)
        }
        #expect(decoded > fuzzIterations / 5, "the mutations should leave many boards readable (seed \(fuzzSeed))")
    }

    /// Draws `board` as the leaderboard (every family, several sizes and moments) and as each
    /// of its first heroes' cards, and checks no unsafe character reached a frame.
    private func renderEverywhere(_ board: LeaderboardBoard, glyphs: GlyphSet, place: String) throws {
        var state = LeaderboardState()
        state.received(LeaderboardDecoder.Result(board: board, skipped: 1), at: at(0))
        state.previous = LeaderboardBoard(updated: board.updated, heroes: Array(board.heroes.reversed().prefix(5)))
        state.failed("HTTP 500 \u{1B}[31m", at: at(5))
        for (start, end) in [(at(0), at(130)), (at(1e9), at(1e9 + 60)), (at(-1e6), at(-1e6))] {
            let entries = LeaderboardEntry.timeline(state, from: start, until: end, maxRows: 10, retryAt: end)
            #expect(!entries.isEmpty && entries.count <= 120, "\(place)")
            guard let entry = entries.last else { continue }
            for (family, width, height) in [(WidgetFamily.small, 24, 7), (.medium, 50, 7), (.large, 52, 21), (.extraLarge, 1, 1)] {
                let lines = TextBackend.lines(render(entry, family: family, width: width, height: height, glyphs: glyphs))
                #expect(!lines.joined().unicodeScalars.contains(where: isUnsafe), "\(place): \(family) \(width)x\(height)")
            }
        }
        for hero in board.heroes.prefix(3) {
            for elapsed in [59, 1e12, -1e12] {
                var projected = hero
                projected.health = hero.health(after: elapsed)
                #expect((0...1).contains(projected.health), "\(place): \(hero) after \(elapsed)")
                let entry = HeroEntry(date: at(elapsed), hero: projected, rank: board.rank(of: hero.name), name: hero.name)
                let lines = TextBackend.lines(render(entry, width: 24, height: 7, glyphs: glyphs))
                #expect(!lines.joined().unicodeScalars.contains(where: isUnsafe), "\(place): hero \(hero.name)")
            }
        }
    }

    // MARK: The reported cases

    @Test("a hero recovering at 1e-300 per hour reads '>99999d' in both views instead of trapping; slower still, 'not recovering'")
    func tinyRecoveryRate() throws {
        let json = #"{"updated":"2026-11-30T05:00:00Z","heroes":[{"name":"Slow","avatar":"🐌","heroType":"Snail","level":1,"exp":5,"#
            + #""health":0.2,"healthRecoveryRatePerHour":1e-300}]}"#
        let result = try LeaderboardDecoder.decode(Data(json.utf8))
        let slow = try #require(result.board.hero(named: "Slow"))
        #expect(slow.secondsToFullHealth.map { $0 > 1e300 } == true)
        var state = LeaderboardState()
        state.received(result, at: at(0))
        let entry = LeaderboardEntry.timeline(state, from: at(0), until: at(0), maxRows: 10)[0]
        let board = text(render(entry, family: .large, width: 52, height: 21))
        #expect(board.contains("Snail · full health in >99999d"))
        let card = text(render(HeroEntry(date: at(0), hero: slow, rank: 1, name: "Slow"), width: 24, height: 7))
        #expect(card.contains("full in >99999d"))
        var stopped = slow
        stopped.healthRecoveryRatePerHour = .leastNonzeroMagnitude   // 4.9e-324: (1 - h) / rate overflows to infinity
        #expect(stopped.secondsToFullHealth == nil)
        #expect(text(render(HeroEntry(date: at(0), hero: stopped, rank: 1, name: "Slow"), width: 24, height: 7)).contains("not recovering"))
    }

    @Test("durations never trap: NaN, negative, infinite and huge read as bounded text",
          arguments: [(Double.nan, "<1m"), (-1, "<1m"), (-Double.infinity, "<1m"), (0, "<1m"), (59, "1m"), (3600, "1h"),
                      (86_400 * 3, "3d"), (Double.infinity, ">99999d"), (1e300, ">99999d"), (Double.greatestFiniteMagnitude, ">99999d"),
                      (86_400 * 99_999, "99999d"), (86_400 * 99_999 + 60, ">99999d")] as [(Double, String)])
    func durationsAreTotal(seconds: Double, expected: String) {
        #expect(DurationText.duration(seconds) == expected)
    }

    @Test("whole seconds for 'retry in Ns' are clamped for any Duration or Double")
    func wholeSecondsAreTotal() {
        #expect(DurationText.wholeSeconds(.seconds(Int64.max)) == 86_400 * DurationText.maximumDays)
        #expect(DurationText.wholeSeconds(.seconds(Int64.min)) == 0)
        #expect(DurationText.wholeSeconds(.milliseconds(24_200)) == 25)
        #expect(DurationText.wholeSeconds(Double.nan) == 0 && DurationText.wholeSeconds(Double.infinity) == 86_400 * DurationText.maximumDays)
        #expect(DurationText.age(from: Date(timeIntervalSince1970: -1e300), to: Date(timeIntervalSince1970: 1e300)) == ">99999d")
    }

    @Test("a damaged state file cannot bring heroes the views do not expect: they are dropped on load")
    func damagedStateFile() throws {
        let dir = TemporaryStateDirectory()
        let container = try WidgetContainer(kind: "leaderboard", stateDirectory: dir.path)
        // exp Int.max on the board and Int.min on the previous one: their difference overflowed
        // in the table's gain column.
        func board(_ exp: Int, _ health: Double) -> String {
            #"{"updated":0,"heroes":[{"name":"Octo","avatar":"🐙","heroType":"Octopus","level":1,"exp":\#(exp),"#
                + #""health":\#(health),"healthRecoveryRatePerHour":0.2},{"name":"Cake","avatar":"🎂","heroType":"Baker","#
                + #""level":1,"exp":5,"health":0.5,"healthRecoveryRatePerHour":0.2}]}"#
        }
        let file = #"{"board":\#(board(Int.max, 0.5)),"previous":\#(board(Int.min, 7)),"fetchedAt":0,"skipped":-3,"# +
            #""consecutiveFailures":-9223372036854775808,"lastBodyRejected":false}"#
        try container.write(Array(file.utf8), to: "board-leaderboard.json")
        let state = LeaderboardStore(container: container).load(session: "leaderboard")
        #expect(state.board?.heroes.map(\.name) == ["Cake"])
        #expect(state.previous?.heroes.map(\.name) == ["Cake"])
        #expect(state.skipped == 0 && state.consecutiveFailures == 0)
        let entry = LeaderboardEntry.timeline(state, from: at(0), until: at(0), maxRows: 10)[0]
        #expect(text(render(entry, family: .large, width: 52, height: 21)).contains("Cake"))
    }
}
