@testable import JSONTree
import Testing

private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try JSONParser().parse(text)
}

private func syntaxError(_ text: String, parser: JSONParser = JSONParser()) -> JSONSyntaxError? {
    do {
        _ = try parser.parse(text)
        return nil
    } catch {
        return error
    }
}

private func syntaxError(bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try JSONParser().parse(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("JSON parser")
struct JSONParserTests {
    @Test("parses every kind of value and keeps object keys in document order")
    func valid() throws {
        let value = try parse(#"{"b": [1, -2.5, "x", true, false, null], "a": {}, "c": []}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == .array([.integer(1), .number(-2.5), .string("x"), .bool(true), .bool(false), .null]))
        #expect(object["a"] == .object(JSONObject()))
        #expect(object["c"] == .array([]))
    }

    @Test("keeps integers apart from fractional numbers")
    func numbers() throws {
        #expect(try parse("10") == .integer(10))
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("10.0") == .number(10.0))
        #expect(try parse("1e3") == .number(1000))
        #expect(try parse("2.5E-1") == .number(0.25))
        #expect(try parse("9223372036854775807") == .integer(Int.max))
        #expect(try parse("9223372036854775808") == .number(9_223_372_036_854_775_808.0))
    }

    @Test("decodes escapes, surrogate pairs and UTF-8")
    func strings() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\udc33""#) == .string("a\"b\\c/d\n\té🐳"))
        #expect(try parse("\"Spouty 🐳 café\"") == .string("Spouty 🐳 café"))
    }

    @Test("skips a leading byte-order mark and surrounding whitespace")
    func byteOrderMark() throws {
        #expect(try JSONParser().parse([0xEF, 0xBB, 0xBF] + Array(" \r\n\t[1] ".utf8)) == .array([.integer(1)]))
    }

    @Test("reports syntax errors with line and column", arguments: [
        ("", 1, 1, "empty"),
        ("{\n  \"a\" 1\n}", 2, 7, "expected ':'"),
        ("{\"a\": 1,\n}", 2, 1, "trailing comma"),
        ("[1, 2,]", 1, 7, "trailing comma"),
        ("[1 2]", 1, 4, "expected ',' or ']'"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"),
        ("{a: 1}", 1, 2, "expected a key"),
        ("[01]", 1, 2, "leading zeros"),
        ("[1.]", 1, 4, "decimal point"),
        ("[1e]", 1, 4, "exponent"),
        ("[-]", 1, 3, "after '-'"),
        ("[NaN]", 1, 2, "expected a value"),
        ("[tru]", 1, 2, "expected 'true'"),
        ("[nullx]", 1, 2, "expected 'null'"),
        ("\"abc", 1, 1, "unterminated"),
        ("\"a\tb\"", 1, 3, "control character"),
        ("\"\\x\"", 1, 2, "invalid escape"),
        ("\"\\u12G4\"", 1, 2, "four hex digits"),
        ("\"\\ud800\"", 1, 2, "unpaired surrogate"),
        ("\"\\udc00\"", 1, 2, "unpaired surrogate"),
        ("[1] [2]", 1, 5, "after the document"),
        ("// comment\n{}", 1, 1, "expected a value"),
        ("[1e999]", 1, 2, "out of range"),
        ("[\n\n   é]", 3, 4, "expected a value"),
    ])
    func syntaxErrors(text: String, line: Int, column: Int, fragment: String) {
        let error = syntaxError(text)
        #expect(error?.line == line, "\(text.debugDescription): \(String(describing: error))")
        #expect(error?.column == column, "\(text.debugDescription): \(String(describing: error))")
        #expect(error?.message.contains(fragment) == true, "\(text.debugDescription): \(String(describing: error))")
    }

    @Test("columns count characters, not bytes")
    func columnsCountScalars() {
        let error = syntaxError("{\"é🐳\": x}")
        #expect(error?.line == 1)
        #expect(error?.column == 8)
    }

    @Test("rejects duplicate keys at the second occurrence")
    func duplicateKeys() {
        let error = syntaxError("{\n  \"kind\": \"clock\",\n  \"kind\": \"hero\"\n}")
        #expect(error == JSONSyntaxError(line: 3, column: 3, message: "duplicate key \"kind\""))
    }

    @Test("rejects nesting deeper than the limit without exhausting the stack")
    func depthBomb() {
        let bomb = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = syntaxError(bomb)
        #expect(error?.column == 65)
        #expect(error?.message.contains("deeper than 64") == true)
        #expect(syntaxError(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) == nil)
        let objects = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(syntaxError(objects)?.message.contains("deeper") == true)
    }

    @Test("rejects documents larger than the limit before parsing them")
    func hugeInput() {
        let huge = "[" + String(repeating: "1,", count: 600_000) + "1]"
        #expect(syntaxError(huge)?.message.contains("the limit is 1048576") == true)
        let small = JSONParser(maximumBytes: 10, maximumDepth: 64)
        #expect(syntaxError("[1,2,3,4,5]", parser: small) != nil)
        #expect(syntaxError("[1,2,3,4]", parser: small) == nil)
    }

    @Test("rejects invalid UTF-8 with its position", arguments: [
        ([0x22, 0xFF, 0x22], 1, 2),                 // not a lead byte
        ([0x22, 0xC3, 0x22], 1, 2),                 // truncated sequence
        ([0x22, 0xC0, 0xAF, 0x22], 1, 2),           // overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2),     // encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 2), // above U+10FFFF
        ([0x22, 0xE2, 0x82], 1, 2),                 // cut off at the end
        ([0x5B, 0x80, 0x5D], 1, 2),                 // stray byte outside a string
    ] as [([UInt8], Int, Int)])
    func invalidUTF8(bytes: [UInt8], line: Int, column: Int) {
        let error = syntaxError(bytes: bytes)
        #expect(error != nil)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test("never crashes on arbitrary bytes")
    func arbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\",:0123456789-+.eEtrufalsn \\u\n".utf8) + [0xC3, 0xA9, 0xFF, 0x00]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            _ = syntaxError(bytes: bytes)
        }
    }

    @Test("renders values briefly and safely for messages")
    func shortDescriptions() {
        #expect(JSONValue.string("ten").shortDescription == "\"ten\"")
        #expect(JSONValue.string("a\u{1B}[2J").shortDescription == "\"a\\u001b[2J\"")
        #expect(JSONValue.string(String(repeating: "x", count: 100)).shortDescription.count == 43)
        #expect(JSONValue.number(10).shortDescription == "10.0")
        #expect(JSONValue.array([]).shortDescription == "an array")
    }
}
