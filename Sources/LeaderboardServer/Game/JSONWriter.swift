/// Appends JSON text to a byte buffer: strings escaped per RFC 8259, numbers in plain notation.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// Appends `text` as is (punctuation and keys the caller knows are valid).
    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends a quoted string: `"` `\` and controls escaped, everything else as UTF-8.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                raw("\\u00")
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int) { raw(String(value)) }

    /// Appends `value` rounded to `digits` decimals, trailing zeros dropped but one kept
    /// (`0.99`, `1.0`, `0.142`); not finite values become 0.
    mutating func decimal(_ value: Double, digits: Int = 3) {
        guard value.isFinite else { return raw("0") }
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        if value < 0 && scaled != 0 { raw("-") }
        var fraction = String(scaled % scale)
        fraction = String(repeating: "0", count: digits - fraction.count) + fraction
        while fraction.count > 1, fraction.last == "0" { fraction.removeLast() }
        raw("\(scaled / scale).\(fraction)")
    }
}
