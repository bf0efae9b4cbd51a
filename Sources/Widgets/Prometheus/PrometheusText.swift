/// Text from a Prometheus server (label names and values, error messages) made safe to keep
/// and show: control characters (C0, DEL, C1) and bidi controls become `�`, and the text is
/// cut to a bound (`…` at the end), before it reaches an entry, a file or the screen.
enum PrometheusText {
    /// The longest label value or name kept.
    static let maximumLabelLength = 120
    /// The longest error message kept.
    static let maximumMessageLength = 300

    static func clean(_ text: String, limit: Int) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result.unicodeScalars.removeLast()
                result += "…"
                return result
            }
            let value = scalar.value
            let unsafe = value < 0x20 || (0x7F...0x9F).contains(value) || (0x200E...0x200F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            result.unicodeScalars.append(unsafe ? "\u{FFFD}" : scalar)
            count += 1
        }
        return result
    }
}
