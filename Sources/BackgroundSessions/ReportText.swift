/// Makes text from the journal safe to print on a terminal: credentials in URLs hidden,
/// controls made visible, length bounded.
///
/// BackgroundSessions sits below TerminalUI and cannot use its `Sanitizer`, so this applies
/// the same replacements (a test checks that they agree): C0 controls become control pictures
/// (`ESC` → `␛`, LF → `␊`), TAB a space, DEL `␡`; C1 controls, bidi controls and the
/// line/paragraph separators `�`. A field can therefore never start a new line, move the
/// cursor or change the terminal.
enum ReportText {
    /// `text` with credentials hidden, controls inert, and at most `limit` characters (the
    /// last one `…` when cut).
    static func field(_ text: String, limit: Int = 200) -> String {
        let safe = inert(redactingCredentials(text))
        guard limit > 0 else { return "" }
        var count = 0
        var end = safe.startIndex
        while end < safe.endIndex {
            if count == limit - 1 {
                // One character left: the rest if it is exactly one character, else "…".
                let next = safe.index(after: end)
                return next == safe.endIndex ? safe : String(safe[..<end]) + "…"
            }
            end = safe.index(after: end)
            count += 1
        }
        return safe
    }

    /// Controls replaced by visible, inert stand-ins (see the type).
    static func inert(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(replacement(for: scalar) ?? scalar) }
        return String(out)
    }

    /// The same table as TerminalUI's `Sanitizer.replacement(for:)`.
    static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x09: " "
        case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F: "\u{2421}"
        case 0x80...0x9F: "\u{FFFD}"
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: "\u{FFFD}"
        case 0x2028, 0x2029: "\u{FFFD}"
        default: nil
        }
    }

    /// Every `scheme://user:password@host` in `text` (a URL, or a reason that quotes one)
    /// with its user information hidden (`URLRedaction`, the one rule for every text).
    static func redactingCredentials(_ text: String) -> String {
        URLRedaction.redactingURLs(in: text)
    }
}
