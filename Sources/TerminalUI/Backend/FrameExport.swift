/// A frame as an image to share: SVG (a fixed cell grid) or a standalone HTML page (a `<pre>`
/// with styled spans), in the theme's colours (DESIGN.md §13).
///
/// The text is the frame's cells exactly: what `TextBackend.lines` gives, row for row, and
/// everything is escaped — a widget's `<script>` or `]]>` is text, never markup. A wide glyph
/// takes its two cells; runs are cut at every wide glyph and style change, and each SVG run is
/// pinned to its cells' width (`textLength`), so the grid holds in any monospace font.
public enum FrameExport {
    /// A cell's size in SVG user units (pixels at 100%): a 14 px monospace font.
    static let cellWidth = 8.4
    static let cellHeight = 17.0
    static let fontFamily = "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace"
    /// Colours for the terminal's own default, which a theme may leave unset.
    static let defaultForeground = "#d0d0d0"
    static let defaultBackground = "#1c1c1c"

    /// One run of like-styled cells of a row.
    struct Run {
        var x: Int
        var cells: Int
        var text: String
        var look: RoleColors
    }

    /// The frame as an SVG document, in `mode`'s colours.
    public static func svg(_ buffer: CellBuffer, theme: Theme, mode: RenderingMode = .fullColor) -> String {
        let palette = TerminalPalette(theme: theme, capability: .direct, mode: mode)
        let page = pageColors(palette)
        let width = Double(buffer.width) * cellWidth, height = Double(buffer.height) * cellHeight
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(number(width))" height="\#(number(height))" "#
        out += #"viewBox="0 0 \#(number(width)) \#(number(height))" font-family="\#(escape(fontFamily))" font-size="14">"# + "\n"
        out += #"<rect width="100%" height="100%" fill="\#(page.background)"/>"# + "\n"
        for y in 0..<buffer.height {
            let top = Double(y) * cellHeight
            for run in runs(buffer, row: y, palette: palette) {
                let colors = colors(run.look, page: page)
                let left = Double(run.x) * cellWidth, span = Double(run.cells) * cellWidth
                if colors.background != page.background {
                    out += #"<rect x="\#(number(left))" y="\#(number(top))" width="\#(number(span))" height="\#(number(cellHeight))" fill="\#(colors.background)"/>"#
                    out += "\n"
                }
                guard run.text.contains(where: { $0 != " " }) else { continue }
                var attributes = #"x="\#(number(left))" y="\#(number(top + cellHeight * 0.78))" fill="\#(colors.foreground)""#
                attributes += #" textLength="\#(number(span))" lengthAdjust="spacingAndGlyphs""#
                if run.look.attributes.contains(.bold) { attributes += #" font-weight="bold""# }
                if run.look.attributes.contains(.underline) { attributes += #" text-decoration="underline""# }
                out += "<text \(attributes) xml:space=\"preserve\">\(escape(run.text))</text>\n"
            }
        }
        return out + "</svg>\n"
    }

    /// The frame as a standalone HTML page, in `mode`'s colours.
    public static func html(_ buffer: CellBuffer, theme: Theme, title: String = "widgethost", mode: RenderingMode = .fullColor) -> String {
        let palette = TerminalPalette(theme: theme, capability: .direct, mode: mode)
        let page = pageColors(palette)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>\(escape(title))</title>\n"
        out += "<style>body{margin:0;background:\(page.background)}"
        out += "pre{margin:0;padding:8px;font:14px/\(number(cellHeight))px \(fontFamily);color:\(page.foreground);background:\(page.background)}"
        out += "</style>\n</head>\n<body>\n<pre>"
        for y in 0..<buffer.height {
            for run in runs(buffer, row: y, palette: palette) {
                let colors = colors(run.look, page: page)
                var style: [String] = []
                if colors.foreground != page.foreground { style.append("color:\(colors.foreground)") }
                if colors.background != page.background { style.append("background:\(colors.background)") }
                if run.look.attributes.contains(.bold) { style.append("font-weight:bold") }
                if run.look.attributes.contains(.underline) { style.append("text-decoration:underline") }
                let text = escape(run.text)
                out += style.isEmpty ? text : "<span style=\"\(style.joined(separator: ";"))\">\(text)</span>"
            }
            if y < buffer.height - 1 { out += "\n" }
        }
        return out + "</pre>\n</body>\n</html>\n"
    }

    /// The row's cells as runs: a new run at each change of look and around each wide glyph.
    static func runs(_ buffer: CellBuffer, row y: Int, palette: TerminalPalette) -> [Run] {
        var runs: [Run] = []
        var x = 0
        while x < buffer.width {
            let cell = buffer[x, y]
            let cells = x + 1 < buffer.width && buffer[x + 1, y].isContinuation ? 2 : 1
            let look = palette.resolve(cell.style)
            let grapheme = cell.isContinuation ? " " : cell.grapheme
            if cells == 1, let last = runs.last, last.look == look, last.cells == last.text.count, last.x + last.cells == x,
               grapheme.count == 1 {
                runs[runs.count - 1].text += grapheme
                runs[runs.count - 1].cells += 1
            } else {
                runs.append(Run(x: x, cells: cells, text: grapheme, look: look))
            }
            x += cells
        }
        return runs
    }

    /// The page's own colours: the theme's foreground and background roles.
    static func pageColors(_ palette: TerminalPalette) -> (foreground: String, background: String) {
        let base = palette[.background]
        let text = palette[.foreground]
        return (hex(text.foreground) ?? defaultForeground, hex(base.background) ?? defaultBackground)
    }

    /// A look's colours on the page (reverse swaps them).
    static func colors(_ look: RoleColors, page: (foreground: String, background: String)) -> (foreground: String, background: String) {
        let foreground = hex(look.foreground) ?? page.foreground
        let background = hex(look.background) ?? page.background
        return look.attributes.contains(.reverse) ? (background, foreground) : (foreground, background)
    }

    static func hex(_ color: TerminalColor) -> String? {
        let rgb: (r: Int, g: Int, b: Int)
        switch color {
        case .terminalDefault: return nil
        case let .rgb(r, g, b): rgb = (Int(r), Int(g), Int(b))
        case let .indexed(n): rgb = ColorQuantizer.xtermRGB(n)
        }
        return "#" + [rgb.r, rgb.g, rgb.b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Text for XML and HTML, attribute values included.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
