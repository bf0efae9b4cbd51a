/// Makes untrusted text inert before it reaches the cell buffer.
///
/// Control characters and escape sequences in data from the network or a config file must
/// never be sent to the terminal (an `ESC [ 2 J` would clear the screen, an OSC 52 would
/// write the user's clipboard). They are shown in visible form instead:
/// - C0 controls become Unicode control pictures (`ESC` → `␛`, `BEL` → `␇`, LF → `␊`), so
///   `ESC [ 2 J` reads `␛[2J`; TAB becomes one space; DEL becomes `␡`.
/// - C1 controls (U+0080…U+009F, including the one-byte CSI U+009B), bidi embeddings,
///   overrides, isolates and marks, and the line/paragraph separators become U+FFFD `�`.
/// `CellBuffer.write` calls this on every string; call it yourself only for text you measure
/// or send elsewhere.
public enum Sanitizer {
    /// Returns `text` with every control shown inert; printable text is unchanged.
    public static func sanitize(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(replacement(for: scalar) ?? scalar)
        }
        return String(out)
    }

    /// Like `sanitize`, but keeps line feeds: for multi-line text that goes to stdout or
    /// stderr (command output, diagnostics), where lines are meant but nothing else is.
    public static func sanitizeLines(_ text: String) -> String {
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar == "\n" ? scalar : replacement(for: scalar) ?? scalar)
        }
        return String(out)
    }

    /// The visible stand-in for an unsafe scalar, or nil when the scalar is safe as it is.
    public static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
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
}
