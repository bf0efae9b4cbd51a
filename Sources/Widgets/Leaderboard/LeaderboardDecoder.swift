import FoundationEssentials

/// Decodes the leaderboard wire format: strict about the top level, lenient per hero.
///
/// The body is untrusted. The top level must be an object with `updated` (ISO 8601) and a
/// `heroes` array, else the whole board is refused with a reason. A hero that fails to
/// decode or breaks a bound (name 1…64 characters, avatar ≤ 16, level 0…10 000, exp
/// 0…10¹², health and rates finite) is skipped and counted. Unknown fields are ignored. At
/// most `maximumHeroes` heroes are kept.
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

    static func isValid(_ hero: LeaderboardHero) -> Bool {
        (1...64).contains(hero.name.count) && hero.avatar.count <= 16 && hero.heroType.count <= 64
            && (0...10_000).contains(hero.level) && (0...1_000_000_000_000).contains(hero.exp)
            && hero.health.isFinite && hero.healthRecoveryRatePerHour.isFinite && hero.healthRecoveryRatePerHour >= 0
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
                hero.health = min(1, max(0, hero.health))
                self.hero = hero
            } else {
                hero = nil
            }
        }
    }
}
