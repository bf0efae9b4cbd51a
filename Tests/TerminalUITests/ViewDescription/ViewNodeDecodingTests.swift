import JSONTree
import Testing
import TerminalUI

/// The issues `json` is refused with, as "path: message" lines; [] when it decodes.
private func problems(_ json: String, path: String = "view") -> [String] {
    do {
        _ = try ViewNode.decode(Array(json.utf8), path: path)
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

/// The paths of the issues `json` is refused with.
private func paths(_ json: String, path: String = "view") -> [String] {
    do {
        _ = try ViewNode.decode(Array(json.utf8), path: path)
        return []
    } catch {
        return error.issues.map(\.path)
    }
}

/// A view using every node type and field, written as an extension would.
private let everything = """
{"type": "vstack", "gap": 1, "children": [
  {"type": "text", "spans": [{"text": "CPU", "role": "muted", "bold": true}, {"text": " 83%"}], "align": "center", "wrap": true},
  {"type": "hstack", "weights": [2, 1], "children": [
    {"type": "bar", "value": 0.83, "role": "positive", "label": "83%"},
    {"type": "sparkline", "values": [0.1, 0.5, 0.9, 3], "role": "accent"}]},
  {"type": "divider", "role": "muted"},
  {"type": "table", "columns": [{"title": "Hero", "align": "left", "min": 8}, {"title": "Exp", "align": "right"}],
   "rows": [[{"text": "Octo", "role": "accent", "bold": true}, {"text": "86463"}], []]},
  {"type": "spacer"}, {"type": "divider"}]}
"""

@Suite("ViewNode decoding")
struct ViewNodeDecodingTests {
    @Test("a description using every node and field decodes to the tree it says")
    func everyNode() throws {
        let node = try ViewNode.decode(Array(everything.utf8))
        let expected = ViewNode.vstack([
            .text([ViewNode.Span("CPU", role: .muted, bold: true), ViewNode.Span(" 83%")], alignment: .center, wrap: true),
            .hstack([.bar(0.83, role: .positive, label: "83%"), .sparkline([0.1, 0.5, 0.9, 3])], weights: [2, 1]),
            .divider(role: .muted),
            .table(ViewNode.Table(
                columns: [ViewNode.Column("Hero", minimum: 8), ViewNode.Column("Exp", alignment: .right)],
                rows: [[ViewNode.Cell("Octo", role: .accent, bold: true), ViewNode.Cell("86463")], []])),
            .spacer, .divider,
        ], gap: 1)
        #expect(node == expected)
    }

    @Test("encoding and decoding round-trip: node → JSON → node, and JSON → node → JSON")
    func roundTrip() throws {
        let node = try ViewNode.decode(Array(everything.utf8))
        #expect(try ViewNode.decode(node.jsonValue) == node)
        #expect(try ViewNode.decode(Array(node.jsonText.utf8)) == node)
        #expect(try ViewNode.decode(Array(node.jsonText.utf8)).jsonText == node.jsonText)
        // Defaults are left out, so a minimal description stays minimal.
        #expect(ViewNode.text("hi").jsonText == #"{"type":"text","spans":[{"text":"hi"}]}"#)
        #expect(ViewNode.bar(0.5).jsonText == #"{"type":"bar","value":0.5}"#)
        // Hostile strings survive the trip unchanged (they are made inert when drawn, not here).
        let hostile = ViewNode.text("\u{1B}[2J\"\\\u{202E}🐙龍")
        #expect(try ViewNode.decode(Array(hostile.jsonText.utf8)) == hostile)
    }

    @Test("a view built in Swift with numbers out of range still encodes to a description that decodes")
    func swiftBuiltInRange() throws {
        let node = ViewNode.vstack([
            .bar(.nan), .bar(.infinity, label: ""), .sparkline([.nan, -.infinity, 2]),
            .hstack([.spacer, .spacer, .spacer], gap: 500, weights: [0, Int.max]),
            .table(ViewNode.Table(columns: [ViewNode.Column("a", minimum: -5), ViewNode.Column("b", minimum: Int.max)], rows: [])),
        ], gap: -3)
        #expect(try ViewNode.decode(node.jsonValue) == node)
        #expect(node == .vstack([
            .bar(0), .bar(1, label: ""), .sparkline([0, 0, 2]),
            .hstack([.spacer, .spacer, .spacer], gap: 64, weights: [1, 1_000_000, 1]),
            .table(ViewNode.Table(columns: [ViewNode.Column("a", minimum: 0), ViewNode.Column("b", minimum: 1000)], rows: [])),
        ]))
    }

    @Test("bar values outside 0…1 are clamped, not refused; numbers must be finite JSON numbers")
    func numbers() throws {
        #expect(try ViewNode.decode(Array(#"{"type":"bar","value":1.7}"#.utf8)) == .bar(1))
        #expect(try ViewNode.decode(Array(#"{"type":"bar","value":-2}"#.utf8)) == .bar(0))
        #expect(try ViewNode.decode(Array(#"{"type":"vstack","children":[],"gap":2.0}"#.utf8)) == .vstack([], gap: 2))
        #expect(problems(#"{"type":"bar","value":"83%"}"#) == [#"view.value: expected a number, found "83%""#])
        #expect(problems(#"{"type":"bar"}"#) == ["view.value: is required"])
        #expect(problems(#"{"type":"sparkline","values":[1,null,2]}"#) == ["view.values[1]: expected a number, found null"])
        #expect(problems(#"{"type":"vstack","children":[],"gap":1.5}"#) == ["view.gap: expected an integer 0…64, found 1.5"])
        #expect(problems(#"{"type":"vstack","children":[],"gap":1e300}"#) == ["view.gap: expected an integer 0…64, found 1e+300"])
        #expect(problems(#"{"type":"vstack","children":[],"gap":65}"#) == ["view.gap: 65 is out of range 0…64"])
        #expect(problems(#"{"type":"hstack","children":[{"type":"spacer"}],"weights":[0]}"#)
            == ["view.weights[0]: 0 is out of range 1…1000000"])
        #expect(problems(#"{"type":"hstack","children":[{"type":"spacer"}],"weights":[1,2]}"#)
            == ["view.weights: has 2 weights for 1 children; give one per child"])
        #expect(problems(#"{"type":"table","columns":[{"min":-1}],"rows":[]}"#) == ["view.columns[0].min: -1 is out of range 0…1000"])
        #expect(problems(#"{"type":"text","spans":[{"text":"a","bold":1}],"wrap":"yes"}"#)
            == ["view.spans[0].bold: expected true or false, found 1", #"view.wrap: expected true or false, found "yes""#])
    }

    @Test("unknown node types, fields and roles are errors naming their path under the base path")
    func unknowns() {
        let json = """
        {"type": "vstack", "children": [
          {"type": "text", "spans": [{"text": "a", "colour": "red"}]},
          {"type": "bar", "value": 0.5, "role": "red"},
          {"type": "box"},
          {"type": "table", "columns": [{"title": "a", "align": "middle"}], "rows": [[{"text": "x", "role": "blink"}]]},
          {"type": "spacer", "size": 2}]}
        """
        #expect(problems(json, path: "entries[3].view") == [
            "entries[3].view.children[0].spans[0].colour: unknown field (expected text, role, bold, link, privacySensitive, accentable)",
            #"entries[3].view.children[1].role: unknown role "red" (expected one of background, foreground, border, borderFocused, title, accent, positive, negative, warning, muted, statusBar, statusText, stale, placeholder)"#,
            #"entries[3].view.children[2].type: unknown node type "box" (expected one of vstack, hstack, text, table, bar, sparkline, spacer, divider, date)"#,
            #"entries[3].view.children[3].columns[0].align: unknown alignment "middle" (expected left, center or right)"#,
            #"entries[3].view.children[3].rows[0][0].role: unknown role "blink" (expected one of background, foreground, border, borderFocused, title, accent, positive, negative, warning, muted, statusBar, statusText, stale, placeholder)"#,
            "entries[3].view.children[4].size: unknown field (expected type)",
        ])
        // A hostile key is quoted, escaped and cut in the path, never passed on raw.
        let xs = String(repeating: "x", count: 100)
        #expect(paths(#"{"type":"spacer","\u001b[2J"# + xs + #"":1}"#)
            == [#"view["\u001b[2J"# + String(repeating: "x", count: 36) + #"…"]"#])
        #expect(paths(#"{"type":"spacer","a.b":1,"snake_case9":2}"#) == [#"view["a.b"]"#, "view.snake_case9"])
    }

    @Test("wrong shapes: not an object, no type, a type that is not a string, missing and mistyped fields")
    func shapes() {
        #expect(problems("[]") == ["view: expected a view node (an object with \"type\"), found an array"])
        #expect(problems("{}") == ["view.type: is required (one of vstack, hstack, text, table, bar, sparkline, spacer, divider, date)"])
        #expect(problems(#"{"type": 3}"#) == ["view.type: expected a string, found 3"])
        #expect(paths(#"{"type":"vstack"}"#) == ["view.children"])
        #expect(paths(#"{"type":"hstack","children":{}}"#) == ["view.children"])
        #expect(paths(#"{"type":"vstack","children":[1, {"type":"spacer"}, "x"]}"#) == ["view.children[0]", "view.children[2]"])
        #expect(paths(#"{"type":"text","spans":["a", {"role":"muted"}]}"#) == ["view.spans[0]", "view.spans[1].text"])
        #expect(paths(#"{"type":"text"}"#) == ["view.spans"])
        #expect(paths(#"{"type":"table","columns":[3],"rows":[{}, [3]]}"#) == ["view.columns[0]", "view.rows[0]", "view.rows[1][0]"])
        #expect(paths(#"{"type":"table"}"#) == ["view.columns", "view.rows"])
        #expect(paths(#"{"type":"bar","value":0.5,"label":7}"#) == ["view.label"])
        #expect(paths(#"{"type":"divider","role":true}"#) == ["view.role"])
    }

    @Test("JSON syntax errors name the view and the line and column")
    func syntax() {
        #expect(problems(#"{"type": "spacer",}"#, path: "entries[0].view") == ["entries[0].view: line 1, column 19: trailing comma before '}'"])
        #expect(problems("").count == 1)
        #expect(problems(#"{"type":"spacer","type":"text"}"#).count == 1)
    }

    @Test("at most 64 levels: the 65th is an error at its path, however it is given")
    func depth() throws {
        func nested(_ levels: Int) -> String {
            String(repeating: #"{"type":"vstack","children":["#, count: levels - 1) + #"{"type":"spacer"}"#
                + String(repeating: "]}", count: levels - 1)
        }
        _ = try ViewNode.decode(Array(nested(64).utf8))
        let deepPath = "view" + String(repeating: ".children[0]", count: 64)
        #expect(problems(nested(65)) == ["\(deepPath): the view is nested deeper than 64 levels"])
        // Far deeper JSON is refused by the parser's own bound before any recursion.
        #expect(problems(nested(5000)).count == 1)
        // Built in Swift and given as a JSON value: the same rule.
        var node = ViewNode.spacer
        for _ in 1..<65 { node = .vstack([node]) }
        #expect(throws: ViewDescriptionError.self) { try ViewNode.decode(node.jsonValue) }
    }

    @Test("at most 64 KiB, measured as bytes given or as compact JSON of a value")
    func size() throws {
        let text = String(repeating: "x", count: 65_000)
        _ = try ViewNode.decode(Array(#"{"type":"text","spans":[{"text":"\#(text)"}]}"#.utf8))
        let big = String(repeating: "x", count: 66_000)
        #expect(problems(#"{"type":"text","spans":[{"text":"\#(big)"}]}"#)
            == ["view: the view is 66037 bytes; the limit is 65536"])
        let value = JSONValue.object(JSONObject(members: [("type", .string("text")),
                                                          ("spans", .array([.object(JSONObject(members: [("text", .string(big))]))]))]))
        #expect(throws: ViewDescriptionError.self) { try ViewNode.decode(value, path: "entries[0].view") }
        // Many small nodes count as much as one long string.
        let many = JSONValue.array(Array(repeating: .object(JSONObject(members: [("type", .string("spacer"))])), count: 5000))
        let stack = JSONValue.object(JSONObject(members: [("type", .string("vstack")), ("children", many)]))
        do {
            _ = try ViewNode.decode(stack)
            Issue.record("a view of 5000 spacers (85 KB) was accepted")
        } catch {
            #expect(error.issues.map(\.description) == ["view: the view is more than 65536 bytes of JSON; the limit is 65536"])
        }
    }

    @Test("every problem is reported, in document order, up to 50 with a count of the rest")
    func manyProblems() {
        let children = (0..<200).map { _ in #"{"type":"nope"}"# }.joined(separator: ",")
        let found = problems(#"{"type":"vstack","children":[\#(children)]}"#)
        #expect(found.count == 50)
        #expect(found.first?.hasPrefix("view.children[0].type: unknown node type") == true)
        #expect(found.last == "view.children[49].type: and 151 more problems")
    }
}
