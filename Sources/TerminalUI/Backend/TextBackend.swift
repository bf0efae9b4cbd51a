/// Renders frames as text: plain lines for tests and `snapshot`, or lines with ANSI SGR
/// colours for `snapshot --color`.
///
/// Plain lines have trailing spaces trimmed and each wide glyph written once. Coloured lines
/// use `palette` (set `palette` to nil for plain output) and end with a reset (`ESC[0m`);
/// trailing blanks are trimmed only where they would look the same (default background, no
/// reverse or underline). `present` keeps the last frame in `lastFrame`.
public final class TextBackend: TerminalBackend {
    public private(set) var size: TerminalSize
    /// The palette for coloured output, or nil for plain text.
    public var palette: TerminalPalette?
    /// The frame last given to `present`.
    public private(set) var lastFrame: CellBuffer?

    public init(size: TerminalSize, palette: TerminalPalette? = nil) {
        self.size = size
        self.palette = palette
    }

    public func present(_ buffer: CellBuffer) {
        size = TerminalSize(columns: buffer.width, rows: buffer.height)
        lastFrame = buffer
    }

    /// The last frame as text (coloured when `palette` is set), one line per row, each ending
    /// in "\n"; "" before the first `present`.
    public func render() -> String {
        guard let frame = lastFrame else { return "" }
        let lines = palette.map { Self.ansiLines(frame, palette: $0) } ?? Self.lines(frame)
        return lines.map { $0 + "\n" }.joined()
    }

    /// The buffer's rows as plain text, trailing spaces trimmed.
    public static func lines(_ buffer: CellBuffer) -> [String] {
        (0..<buffer.height).map { y in
            var line = ""
            for x in 0..<buffer.width where !buffer[x, y].isContinuation { line += buffer[x, y].grapheme }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The buffer's rows with SGR sequences for `palette`, each ending in a reset.
    public static func ansiLines(_ buffer: CellBuffer, palette: TerminalPalette) -> [String] {
        (0..<buffer.height).map { y in
            var end = buffer.width
            while end > 0 {
                let cell = buffer[end - 1, y]
                let look = palette.resolve(cell.style)
                let invisible = cell.grapheme == " " && look.background == .terminalDefault
                    && look.attributes.isDisjoint(with: [.reverse, .underline])
                guard invisible else { break }
                end -= 1
            }
            var line = ""
            var current: RoleColors?
            for x in 0..<end where !buffer[x, y].isContinuation {
                let look = palette.resolve(buffer[x, y].style)
                if look != current {
                    line += sgr(look)
                    current = look
                }
                line += buffer[x, y].grapheme
            }
            return current == nil ? line : line + "\u{1B}[0m"
        }
    }

    /// The SGR sequence that selects `look` from any previous state.
    public static func sgr(_ look: RoleColors) -> String {
        var parameters = ["0"]
        let codes: [(CellAttributes, String)] = [(.bold, "1"), (.dim, "2"), (.underline, "4"), (.reverse, "7")]
        for (attribute, code) in codes where look.attributes.contains(attribute) { parameters.append(code) }
        if look.foreground != .terminalDefault { parameters.append(look.foreground.sgrParameters(background: false)) }
        if look.background != .terminalDefault { parameters.append(look.background.sgrParameters(background: true)) }
        return "\u{1B}[" + parameters.joined(separator: ";") + "m"
    }
}
