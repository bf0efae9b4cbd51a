import JSONTree
import Testing
import TerminalUI
import WidgetTestSupport

/// The fuzz tests' seeded generator, so a failing case can be replayed from its seed.
private typealias SeededGenerator = FuzzRandom

private let fieldNames = ["type", "children", "gap", "weights", "spans", "text", "role", "bold", "align", "wrap",
                          "columns", "rows", "title", "min", "value", "label", "values", "colour"]
private let typeNames = ["vstack", "hstack", "text", "table", "bar", "sparkline", "spacer", "divider", "box", ""]
private let strings = ["", "CPU", "🐙 Octo", "龍之介の長い名前", "\u{1B}[2J", "a\nb", "\u{202E}evil", "muted", "left",
                       "center", "accent", "👨‍👩‍👧", "e\u{301}\u{301}\u{301}\u{301}\u{301}", "\u{0}\u{7F}\u{9B}"]
private let numbers: [JSONValue] = [.integer(0), .integer(1), .integer(-1), .integer(2), .integer(64), .integer(65),
                                    .integer(Int.max), .integer(Int.min), .number(0.5), .number(-0.0), .number(1e300),
                                    .number(-1e-300), .number(2.0), .number(1.7976931348623157e308)]

/// A random JSON value shaped roughly like a view: mostly the right fields and types, with
/// wrong ones, hostile numbers and strings, and deep nesting mixed in.
private func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
    let roll = Int.random(in: 0..<100, using: &rng)
    if depth > 70 || roll < 8 {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .string(strings.randomElement(using: &rng)!)
        case 1: return numbers.randomElement(using: &rng)!
        case 2: return .bool(Bool.random(using: &rng))
        case 3: return .null
        default: return .array([])
        }
    }
    if roll < 14 {
        return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    }
    var members: [(key: String, value: JSONValue)] = []
    let type = typeNames.randomElement(using: &rng)!
    if Int.random(in: 0..<20, using: &rng) > 0 { members.append(("type", .string(type))) }
    func field(_ name: String, _ value: JSONValue) { members.append((name, value)) }
    func maybe() -> Bool { Int.random(in: 0..<3, using: &rng) > 0 }
    switch type {
    case "vstack", "hstack":
        let count = depth > 40 ? 1 : Int.random(in: 0..<4, using: &rng)
        field("children", .array((0..<count).map { _ in randomValue(&rng, depth: depth + 1) }))
        if maybe() { field("gap", numbers.randomElement(using: &rng)!) }
        if maybe() { field("weights", .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in numbers.randomElement(using: &rng)! })) }
    case "text":
        field("spans", .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in
            .object(JSONObject(members: [("text", .string(strings.randomElement(using: &rng)!)),
                                         ("role", .string(["muted", "accent", "red"].randomElement(using: &rng)!)),
                                         ("bold", .bool(Bool.random(using: &rng)))]))
        }))
        if maybe() { field("align", .string(["left", "center", "right", "middle"].randomElement(using: &rng)!)) }
        if maybe() { field("wrap", .bool(Bool.random(using: &rng))) }
    case "table":
        field("columns", .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in
            .object(JSONObject(members: [("title", .string(strings.randomElement(using: &rng)!)),
                                         ("min", numbers.randomElement(using: &rng)!)]))
        }))
        field("rows", .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in
            .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in
                .object(JSONObject(members: [("text", .string(strings.randomElement(using: &rng)!))]))
            })
        }))
    case "bar":
        field("value", numbers.randomElement(using: &rng)!)
        if maybe() { field("label", .string(strings.randomElement(using: &rng)!)) }
    case "sparkline":
        field("values", .array((0..<Int.random(in: 0..<12, using: &rng)).map { _ in numbers.randomElement(using: &rng)! }))
    default:
        break
    }
    if Int.random(in: 0..<15, using: &rng) == 0 {
        field(fieldNames.randomElement(using: &rng)!, randomValue(&rng, depth: depth + 1))
    }
    return .object(JSONObject(members: members))
}

@Suite("ViewNode fuzz")
struct ViewNodeFuzzTests {
    @Test("random descriptions and mangled bytes never trap; what decodes draws at any size and round-trips")
    func fuzz() throws {
        let seed: UInt64 = 0x5EED_0F_71E1_5
        var rng = SeededGenerator(seed: seed)
        var accepted = 0
        let sizes = [(0, 0), (1, 1), (2, 1), (5, 3), (12, 6), (40, 12)]
        for iteration in 0..<2000 {
            let value = randomValue(&rng, depth: 1)
            // The same value as bytes, with a few bytes mangled half of the time.
            var bytes = Array(value.jsonText.utf8)
            if Bool.random(using: &rng), !bytes.isEmpty {
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[i] = [UInt8(ascii: "{"), UInt8(ascii: "]"), UInt8(ascii: "\""), 0x00, 0xFF, 0xC3, UInt8(ascii: "9")]
                        .randomElement(using: &rng)!
                }
            }
            _ = try? ViewNode.decode(bytes, path: "fuzz")
            guard let node = try? ViewNode.decode(value, path: "fuzz") else { continue }
            accepted += 1
            guard (try? ViewNode.decode(node.jsonValue)) == node else {
                Issue.record("seed \(seed), iteration \(iteration): round trip changed \(value.jsonText)")
                continue
            }
            let (width, height) = sizes[iteration % sizes.count]
            for glyphs in [GlyphSet.unicode, .ascii] {
                var buffer = CellBuffer(width: width + 2, height: height + 2)
                let before = buffer
                let rect = Rect(x: 1, y: 1, width: width, height: height)
                node.draw(into: &buffer, in: rect, glyphs: glyphs)
                for y in 0..<buffer.height {
                    for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                        Issue.record("seed \(seed), iteration \(iteration): drew outside \(rect) at (\(x), \(y)): \(value.jsonText)")
                    }
                }
            }
        }
        // The generator must produce valid views too, or the drawing half proves nothing.
        #expect(accepted > 200, "seed \(seed): only \(accepted) of 2000 random views were valid")
    }

    @Test("the deepest and widest views the limits allow draw quickly")
    func worstCase() throws {
        // 64 levels alternating hstack and vstack, each with wrapped text beside the next level.
        var node = ViewNode.text("the quick brown fox jumps over the lazy dog", wrap: true)
        for level in 1..<64 {
            let children = [ViewNode.text("level \(level) of the view", wrap: true), node]
            node = level % 2 == 0 ? .vstack(children) : .hstack(children)
        }
        _ = try ViewNode.decode(Array(node.jsonText.utf8))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            var buffer = CellBuffer(width: 200, height: 60)
            node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        }
        #expect(elapsed < .seconds(1), "drawing a 64-level view took \(elapsed)")
    }
}
