import FoundationEssentials

/// Decodes the leaderboard wire format: strict about the top level, lenient per hero.
///
/// The body is untrusted. The top level must be an object with `updated` (ISO 8601) and a
/// `heroes` array, else the whole board is refused with a reason. A hero that fails to
/// decode or breaks a bound (name 1…64 characters, avatar ≤ 16, level 0…10 000, exp
/// 0…10¹², health finite — then clamped to 0…1 — and a finite rate ≥ 0; see `isValid`) is
/// skipped and counted. Unknown fields are ignored. At most `maximumHeroes` heroes are kept.
public enum LeaderboardDecoder {
    public static let maximumHeroes = 200

    public struct Result: Sendable, Equatable {
        public var board: LeaderboardBoard
        /// Heroes that were skipped as malformed.
        public var skipped: Int
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notJSON
        /// Valid JSON, but not an object at the top.
        case notAnObject
        case missing(String)
        /// A top-level key holds the wrong kind of value (`heroes` not an array, `updated` not a string).
        case wrongType(String, expected: String)
        case badUpdated(String)

        public var description: String {
            switch self {
            case .notJSON: "the server's answer is not a leaderboard (not JSON)"
            case .notAnObject: "the server's answer is not a leaderboard (not a JSON object)"
            case .missing(let key): "the server's answer has no '\(key)'"
            case .wrongType(let key, let expected): "the server's '\(key)' is not \(expected)"
            case .badUpdated(let text): "the server's 'updated' is not a date: \(text.prefix(40))"
            }
        }
    }

    public static func decode(_ data: Data) throws(Failure) -> Result {
        let top: TopLevel
        do {
            top = try JSONDecoder().decode(TopLevel.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw .missing(key.stringValue)
        } catch DecodingError.valueNotFound(_, let context) where context.codingPath.count == 1 {
            // `"updated": null` is as good as missing.
            throw .missing(context.codingPath[0].stringValue)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == 1 {
            // Saying "has no 'heroes'" when it is there but a number would send the reader astray.
            let key = context.codingPath[0].stringValue
            throw .wrongType(key, expected: key == "heroes" ? "an array" : "a date string")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .notAnObject
        } catch {
            throw .notJSON
        }
        guard let updated = try? Date(top.updated, strategy: .iso8601) else { throw .badUpdated(top.updated) }
        let heroes = top.heroes.compactMap(\.hero).filter(isValid)
        // Rank first, then keep the top `maximumHeroes`: a long board loses its tail, not its
        // leaders. Only heroes that could not be read count as skipped.
        var board = LeaderboardBoard(updated: updated, heroes: heroes)
        board.heroes = Array(board.heroes.prefix(maximumHeroes))
        return Result(board: board, skipped: top.heroes.count - heroes.count)
    }

    /// Whether a hero is within the bounds every consumer relies on: text short in characters
    /// *and* in bytes (one character can carry thousands of combining marks), level and exp
    /// small enough that differences and sums of them cannot overflow, health in 0…1 and a
    /// finite rate ≥ 0 (a tiny rate is allowed: it reads "not recovering").
    static func isValid(_ hero: LeaderboardHero) -> Bool {
        (1...64).contains(hero.name.count) && hero.name.utf8.count <= 256
            && hero.avatar.count <= 16 && hero.avatar.utf8.count <= 64
            && hero.heroType.count <= 64 && hero.heroType.utf8.count <= 256
            && (0...10_000).contains(hero.level) && (0...1_000_000_000_000).contains(hero.exp)
            && (0...1).contains(hero.health) && hero.healthRecoveryRatePerHour.isFinite && hero.healthRecoveryRatePerHour >= 0
    }

    /// `board` with only valid heroes, at most `maximumHeroes`: for a board read back from a
    /// file, which may have been edited or damaged since the decoder checked it.
    static func sanitized(_ board: LeaderboardBoard) -> LeaderboardBoard {
        var board = board
        board.heroes = Array(board.heroes.filter(isValid).prefix(maximumHeroes))
        return board
    }

    private struct TopLevel: Decodable {
        var updated: String
        var heroes: [LossyHero]
    }

    /// A hero, or nil when this element does not decode (without failing the array).
    private struct LossyHero: Decodable {
        var hero: LeaderboardHero?

        init(from decoder: any Decoder) throws {
            if var hero = try? LeaderboardHero(from: decoder) {
                // NaN cannot come from JSON; an infinite health is refused by `isValid` after this.
                if hero.health.isFinite { hero.health = min(1, max(0, hero.health)) }
                self.hero = hero
            } else {
                hero = nil
            }
        }
    }
}
