/// The state of one `JSONParser.parse` call: the input and the position in it.
///
/// Internal to `JSONParser`; one parse, one cursor.
struct JSONCursor {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0
    var depth = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        if position == bytes.count { throw error("the document is empty") }
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw error("unexpected \(describeCurrent()) after the document's value") }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input; expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > maximumDepth { throw error("nesting is deeper than \(maximumDepth) levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        var seen: Set<String> = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else {
                throw error(position < bytes.count
                    ? "unexpected \(describeCurrent()); expected a key in double quotes"
                    : "unexpected end of input; expected a key")
            }
            let keyStart = position
            let key = try parseString()
            if !seen.insert(key).inserted {
                throw error("duplicate key \(JSONValue.quoted(key, limit: 40))", at: keyStart)
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after the key") }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
                skipWhitespace()
                if peek(UInt8(ascii: "}")) { throw error("trailing comma before '}'") }
                continue
            }
            if peek(UInt8(ascii: "}")) {
                position += 1
                depth -= 1
                return .object(JSONObject(members: members))
            }
            throw error("expected ',' or '}' after an object member")
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            depth -= 1
            return .array([])
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
                skipWhitespace()
                if peek(UInt8(ascii: "]")) { throw error("trailing comma before ']'") }
                continue
            }
            if peek(UInt8(ascii: "]")) {
                position += 1
                depth -= 1
                return .array(elements)
            }
            throw error("expected ',' or ']' after an array element")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let start = position
        for byte in literal.utf8 {
            guard position < bytes.count, bytes[position] == byte else {
                throw error("invalid literal; expected '\(literal)'", at: start)
            }
            position += 1
        }
        if position < bytes.count, isIdentifierByte(bytes[position]) {
            throw error("invalid literal; expected '\(literal)'", at: start)
        }
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        var isIntegral = true
        if peek(UInt8(ascii: "-")) { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw error("expected a digit after '-'")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw error("numbers must not have leading zeros", at: start)
            }
        } else {
            skipDigits()
        }
        if peek(UInt8(ascii: ".")) {
            isIntegral = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("expected a digit after the decimal point")
            }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isIntegral = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("expected a digit in the exponent")
            }
            skipDigits()
        }
        if position < bytes.count, isIdentifierByte(bytes[position]) || bytes[position] == UInt8(ascii: ".") {
            throw error("unexpected \(describeCurrent()) in a number")
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isIntegral, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            throw error("number \(text.prefix(40)) is out of range", at: start)
        }
        return .number(number)
    }

    mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    // MARK: Strings

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        position += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(try parseEscape())
            case 0..<0x20:
                throw error("control character U+\(hex4(UInt32(byte))) in a string; escape it")
            case 0..<0x80:
                scalars.append(Unicode.Scalar(byte))
                position += 1
            default:
                scalars.append(try decodeUTF8Scalar())
            }
        }
    }

    mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = position
        position += 1
        guard position < bytes.count else { throw error("unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4(escapeStart: start)
            if (0xD800...0xDBFF).contains(high) {
                let lowStart = position
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate \\u\(hex4(high))", at: start)
                }
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired surrogate \\u\(hex4(high))", at: start)
                }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                // A valid pair always yields a valid scalar; the guard keeps the parser total.
                guard let scalar = Unicode.Scalar(value) else { throw error("invalid escape", at: start) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw error("unpaired surrogate \\u\(hex4(high))", at: start)
            }
            return scalar
        default:
            position -= 1
            throw error("invalid escape \\\(describeCurrent())", at: start)
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count, let digit = hexValue(bytes[position]) else {
                throw error("\\u must be followed by four hex digits", at: escapeStart)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Decodes one multi-byte UTF-8 sequence at `position`, rejecting overlong forms,
    /// surrogates and values above U+10FFFF.
    mutating func decodeUTF8Scalar() throws(JSONSyntaxError) -> Unicode.Scalar {
        let lead = bytes[position]
        let length: Int
        var value: UInt32
        let lowest: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F); lowest = 0x80
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F); lowest = 0x800
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07); lowest = 0x10000
        default: throw error("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        guard position + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        for offset in 1..<length {
            let byte = bytes[position + offset]
            guard byte & 0xC0 == 0x80 else { throw error("invalid UTF-8 sequence") }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= lowest, let scalar = Unicode.Scalar(value) else {
            throw error("invalid UTF-8 sequence")
        }
        position += length
        return scalar
    }

    // MARK: Helpers

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func peek(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "_")
    }

    func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Names the byte at `position` for a message: `'x'`, `byte 0xFF` or `end of input`.
    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let target = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<target where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        // Count scalars, not bytes: skip UTF-8 continuation bytes.
        let column = bytes[lineStart..<target].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return JSONSyntaxError(line: line, column: column, message: message)
    }
}
