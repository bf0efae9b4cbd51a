/// A JSON object whose keys keep their document order.
///
/// Keys are unique: the parser rejects duplicates, and `init(members:)` keeps the first.
public struct JSONObject: Sendable, Equatable {
    /// The members in document order.
    public private(set) var members: [(key: String, value: JSONValue)]
    private var index: [String: Int]

    /// Creates an object from key–value pairs; a repeated key keeps its first value.
    public init(members: [(key: String, value: JSONValue)] = []) {
        self.members = []
        self.index = [:]
        for member in members where index[member.key] == nil {
            index[member.key] = self.members.count
            self.members.append(member)
        }
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// The value for `key`, or nil when absent.
    public subscript(key: String) -> JSONValue? {
        index[key].map { members[$0].value }
    }

    /// Whether `key` is present.
    public func contains(_ key: String) -> Bool { index[key] != nil }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
