/// Text from a broker (topics, payloads, its refusals) made safe to keep and show, at parse
/// time: tabs and line breaks become spaces, other controls (C0, DEL, C1) and bidi controls
/// `�`, and the text is cut to `limit` scalars (`…` at the end). The cell buffer sanitises
/// again when drawing; this keeps what is stored small and inert.
enum MQTTText {
    /// The longest payload text or topic kept for a row.
    static let maximumLength = 200

    static func clean(_ text: String, limit: Int = maximumLength) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result.removeLast()
                result.append("…")
                return String(result)
            }
            let value = scalar.value
            if value == 0x09 || value == 0x0A || value == 0x0D {
                result.append(" ")
            } else {
                let unsafe = value < 0x20 || (0x7F...0x9F).contains(value) || (0x200E...0x200F).contains(value)
                    || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                result.append(unsafe ? "\u{FFFD}" : scalar)
            }
            count += 1
        }
        return String(result)
    }
}
