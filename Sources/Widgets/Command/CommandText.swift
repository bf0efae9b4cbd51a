import TerminalUI

/// A command's output as lines of styled spans: ANSI SGR colours become theme roles, every
/// other escape sequence is left in the text for `Sanitizer` to show inert (`␛[2J`).
///
/// Mapping (roles, never colours): red → `negative`, green → `positive`, yellow → `warning`,
/// blue, magenta, cyan → `accent`, black and bright black, and SGR 2 (dim) → `muted`,
/// white and 39 → the default; SGR 1 is bold. Backgrounds, 256-colour and direct colours
/// are dropped. A CR before a line's end (CRLF) is removed.
enum CommandText {
    /// Scalars kept of a line (escapes included): more than any panel is wide.
    static let maximumLineScalars = 1000

    /// Lines of `text`; only the first or last `limit` lines are styled and returned.
    static func lines(_ text: String, keepLast: Bool, limit: Int) -> [[ViewNode.Span]] {
        // Split on the scalar: "\r\n" is one Character, so a String split would miss it.
        var raw = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        if raw.last?.isEmpty == true { raw.removeLast() }   // the final newline ends a line
        let chosen = keepLast ? raw.suffix(max(0, limit)) : raw.prefix(max(0, limit))
        // The style carries over lines, as in a terminal; start from the default when the
        // earlier lines were dropped (their escapes are not seen).
        var style = Style()
        return chosen.map { line in
            var line = line
            while line.last == "\r" { line.removeLast() }
            // Wider than any panel; a 64 KiB line would cost its glyphs on every frame.
            if line.count > maximumLineScalars { line = line.prefix(maximumLineScalars) }
            return spans(of: line, style: &style)
        }
    }

    struct Style: Equatable {
        var color: StyleRole?
        var bold = false
        var dim = false

        var role: StyleRole { color ?? (dim ? .muted : .foreground) }
    }

    static func spans(of line: Substring.UnicodeScalarView, style: inout Style) -> [ViewNode.Span] {
        var spans: [ViewNode.Span] = []
        var current = String.UnicodeScalarView()
        func flush(_ style: Style) {
            guard !current.isEmpty else { return }
            spans.append(ViewNode.Span(String(current), role: style.role, bold: style.bold))
            current = String.UnicodeScalarView()
        }
        let scalars = Array(line)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[",
               let (parameters, end) = sgr(scalars, from: index + 2) {
                flush(style)
                apply(parameters, to: &style)
                index = end
                continue
            }
            current.append(scalars[index])
            index += 1
        }
        flush(style)
        return spans
    }

    /// The parameters of an SGR sequence (`ESC [ 1;31 m`) whose parameters start at `start`,
    /// and the index after it; nil for any other sequence (left in the text, shown inert).
    static func sgr(_ scalars: [Unicode.Scalar], from start: Int) -> ([Int], Int)? {
        var index = start
        while index < scalars.count, index - start < 64,
              ("0"..."9").contains(scalars[index]) || scalars[index] == ";" || scalars[index] == ":" {
            index += 1
        }
        guard index < scalars.count, scalars[index] == "m" else { return nil }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        let parameters = text.split(separator: ";", omittingEmptySubsequences: false).map { field -> Int in
            // "38:5:1" (colon sub-parameters) counts as its first number; a huge one as 0.
            let first = field.split(separator: ":").first ?? ""
            return first.count <= 4 ? Int(first) ?? 0 : 0
        }
        return (parameters, index + 1)
    }

    static func apply(_ parameters: [Int], to style: inout Style) {
        var index = 0
        while index < parameters.count {
            let code = parameters[index]
            switch code {
            case 0: style = Style()
            case 1: style.bold = true
            case 2: style.dim = true
            case 22: style.bold = false; style.dim = false
            case 30, 90: style.color = .muted
            case 31, 91: style.color = .negative
            case 32, 92: style.color = .positive
            case 33, 93: style.color = .warning
            case 34, 35, 36, 94, 95, 96: style.color = .accent
            case 37, 97, 39: style.color = nil
            case 38, 48:
                // Extended colours are dropped, with their arguments: 5;N or 2;R;G;B.
                if index + 1 < parameters.count {
                    index += parameters[index + 1] == 5 ? 2 : parameters[index + 1] == 2 ? 4 : 1
                }
                if code == 38 { style.color = nil }
            default: break   // backgrounds, underline, blink…: dropped
            }
            index += 1
        }
    }
}
