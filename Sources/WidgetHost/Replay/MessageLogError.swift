/// Why a message log cannot be replayed: the file, the line (1-based; nil for the file as a
/// whole) and what is wrong there, said in one line.
struct MessageLogError: Error, Equatable, CustomStringConvertible {
    var path: String
    var line: Int?
    var reason: String

    var description: String {
        if let line { return "\(path): line \(line): \(reason)" }
        return "\(path): \(reason)"
    }
}
