import JSONTree

/// A JSON Pointer (RFC 6901): `""` is the whole document, `/data/0/price` a path of reference
/// tokens in which `~1` stands for `/` and `~0` for `~`.
///
/// Array elements are named by their index in decimal without leading zeros (`-`, "after the
/// last element", names nothing that exists). A pointer that leads nowhere resolves to nil.
public struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// The unescaped reference tokens.
    public let tokens: [String]
    public let description: String

    /// Why a text is not a JSON Pointer.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`; throws when it is not empty and does not start with `/`, or holds a `~`
    /// not followed by `0` or `1`.
    public init(_ text: String) throws(SyntaxError) {
        description = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.first == "/" else {
            throw SyntaxError(description: "a JSON Pointer is empty or starts with '/'")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var tilde = false
            for character in raw {
                if tilde {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: throw SyntaxError(description: "'~' must be followed by 0 or 1 (~0 for '~', ~1 for '/')")
                    }
                    tilde = false
                } else if character == "~" {
                    tilde = true
                } else {
                    token.append(character)
                }
            }
            if tilde { throw SyntaxError(description: "'~' must be followed by 0 or 1 (~0 for '~', ~1 for '/')") }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The value this pointer names in `document`, or nil when there is none.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var value = document
        for token in tokens {
            switch value {
            case .object(let object):
                guard let member = object[token] else { return nil }
                value = member
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }

    /// `0`, or digits without a leading zero; nil for anything else (`-`, `01`, `+1`, too large).
    static func arrayIndex(_ token: String) -> Int? {
        guard let first = token.utf8.first, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              first != 0x30 || token.utf8.count == 1, token.utf8.count <= 18 else { return nil }
        return Int(token)
    }
}
