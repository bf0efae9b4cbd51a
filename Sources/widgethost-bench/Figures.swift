import FoundationEssentials

/// One measured figure: what was run, the number, and the target it is held against.
struct Figure: Codable, Sendable {
    /// "1 scheduler", "3b terminal bytes" …: the section of README "Performance".
    var section: String
    var name: String
    var value: Double
    var unit: String
    /// The workload, in words.
    var workload: String
    /// The goal, e.g. "≥ 1000000"; nil when the figure has none.
    var target: String?
    /// Whether the goal is met; nil when there is none.
    var met: Bool?
}

/// Collects figures and prints them as they come.
final class Report {
    private(set) var figures: [Figure] = []
    var notes: [String] = []

    func add(_ figure: Figure) {
        figures.append(figure)
        print(Self.row(figure))
        fflushStdout()
    }

    static let header = pad("figure", 44) + pad("value", 16) + pad("unit", 14) + pad("target", 12) + "met"

    static func row(_ f: Figure) -> String {
        let met = f.met.map { $0 ? "yes" : "NO" } ?? ""
        return pad("\(f.section) \(f.name)", 44) + pad(format(f.value), 16) + pad(f.unit, 14) + pad(f.target ?? "", 12) + met
    }

    func table() -> String {
        ([Self.header] + figures.map(Self.row)).joined(separator: "\n")
    }

    static func pad(_ s: String, _ width: Int) -> String {
        let count = s.unicodeScalars.count
        return count >= width ? s + " " : s + String(repeating: " ", count: width - count)
    }

    static func format(_ v: Double) -> String {
        if v.isNaN { return "n/a" }
        if abs(v) >= 100 { return grouped(Int(v.rounded())) }
        let hundredths = Int((abs(v) * 100).rounded())
        let text = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
        return v < 0 ? "-" + text : text
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }

    func json(environment: [String: String]) -> [UInt8] {
        struct Document: Codable {
            var machine: [String: String]
            var figures: [Figure]
            var notes: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(Document(machine: environment, figures: figures, notes: notes))) ?? Data()
        return Array(data)
    }
}

