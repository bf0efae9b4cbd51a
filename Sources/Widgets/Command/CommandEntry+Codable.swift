import FoundationEssentials
import TerminalUI

/// A `command` entry in a replayable message log: its lines as runs of text with a role and
/// boldness (the only parts of a span the command's output makes, `CommandText`).
extension CommandEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case date, ranAt, lines, showsTail, outcome, droppedBytes
    }

    private struct Run: Codable {
        var text: String
        var role: StyleRole
        var bold: Bool
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let runs = try c.decode([[Run]].self, forKey: .lines)
        self.init(date: try c.decode(Date.self, forKey: .date),
                  ranAt: try c.decodeIfPresent(Date.self, forKey: .ranAt),
                  lines: runs.map { $0.map { ViewNode.Span($0.text, role: $0.role, bold: $0.bold) } },
                  showsTail: try c.decode(Bool.self, forKey: .showsTail),
                  outcome: try c.decodeIfPresent(CommandRun.Outcome.self, forKey: .outcome),
                  droppedBytes: try c.decode(Int.self, forKey: .droppedBytes))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(date, forKey: .date)
        try c.encodeIfPresent(ranAt, forKey: .ranAt)
        try c.encode(lines.map { $0.map { Run(text: $0.resolved(.unicode), role: $0.role, bold: $0.bold) } }, forKey: .lines)
        try c.encode(showsTail, forKey: .showsTail)
        try c.encodeIfPresent(outcome, forKey: .outcome)
        try c.encode(droppedBytes, forKey: .droppedBytes)
    }
}
