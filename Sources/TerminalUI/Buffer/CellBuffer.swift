/// A grid of cells that widgets draw into; backends turn it into terminal output.
///
/// Every string written goes through `Sanitizer` and `TextNormalizer`, so the buffer never
/// holds a control character and its widths agree with the terminal's. Wide glyphs keep
/// two invariants: a wide glyph never crosses the right edge of the clip rectangle (it is
/// replaced by a space), and overwriting one half of a wide glyph turns the other half into
/// a space in the same style. Out-of-range writes are ignored. A value type: copy it to keep
/// the previous frame for `changes(since:)`.
public struct CellBuffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Where linked text was drawn (a text span's `link`): what a click there opens.
    public private(set) var links: [LinkArea] = []

    /// Where privacy-sensitive content was drawn (a view's `privacySensitive` spans, cells,
    /// bars and sparklines): what the privacy mode redacts (`redactPrivate(glyphs:)`).
    public private(set) var privateAreas: [Rect] = []

    /// A rectangle of the buffer that is a link.
    public struct LinkArea: Hashable, Sendable {
        public var rect: Rect
        public var url: String
    }

    /// A buffer of `width` × `height` blank cells in `style` (negative sizes count as 0).
    public init(width: Int, height: Int, style: CellStyle = .plain) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank(style), count: self.width * self.height)
    }

    /// Notes that `rect` (clipped to the buffer) shows `url`; the latest drawn wins a cell.
    public mutating func addLink(_ url: String, _ rect: Rect) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        // A link drawn glyph by glyph is one area.
        if let last = links.last, last.url == url, last.rect.y == area.y, last.rect.height == area.height, last.rect.maxX == area.x {
            links[links.count - 1].rect.width += area.width
            return
        }
        guard links.count < 4096 else { return }
        links.append(LinkArea(rect: area, url: url))
    }

    /// Notes that `rect` (clipped to the buffer) shows privacy-sensitive content.
    public mutating func addPrivateArea(_ rect: Rect) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        // Drawn glyph by glyph, a span is one area.
        if let last = privateAreas.last, last.y == area.y, last.height == area.height, last.maxX == area.x {
            privateAreas[privateAreas.count - 1].width += area.width
            return
        }
        // Past the bound, the rest of the buffer's rows from here are private: never shown.
        guard privateAreas.count < 4096 else {
            let top = min(privateAreas[privateAreas.count - 1].y, area.y)
            privateAreas[privateAreas.count - 1] = Rect(x: 0, y: top, width: width, height: height - top)
            return
        }
        privateAreas.append(area)
    }

    /// The privacy mode: every privacy-sensitive area drawn so far is redacted (`redact`).
    public mutating func redactPrivate(glyphs: GlyphSet) {
        for area in privateAreas { redact(area, glyphs: glyphs) }
    }

    /// The link drawn at (x, y), if any.
    public func link(atX x: Int, y: Int) -> String? {
        links.last { $0.rect.contains(x: x, y: y) }?.url
    }

    /// The whole buffer as a rectangle at the origin.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at (x, y). Reading outside the buffer returns a blank cell; writing outside
    /// is ignored. A written cell's grapheme is normalised to its first glyph (a space when
    /// none) and goes through the same wide-glyph repair as `write`.
    public subscript(x: Int, y: Int) -> Cell {
        get { bounds.contains(x: x, y: y) ? cells[y * width + x] : .blank() }
        set {
            let glyph = TextNormalizer.glyphs(of: newValue.grapheme).first ?? Glyph(text: " ", width: 1)
            put(Cell(glyph.text, style: newValue.style), x: x, y: y, glyphWidth: glyph.width)
        }
    }

    /// Sets every cell of `rect` (clipped to the buffer) to `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell = .blank()) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { put(cell, x: x, y: y, glyphWidth: 1) }
        }
    }

    /// Writes `text` on row `y` from column `x`, clipped to `clip` (and the buffer).
    ///
    /// The text is sanitised and normalised; glyphs left of `clip` are skipped (a wide glyph
    /// cut by the left edge leaves a space), a wide glyph that does not fit before the right
    /// edge becomes a space. Returns the column after the last glyph written or skipped,
    /// which is where the next write should go (it may lie beyond `clip`).
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: CellStyle = .plain, clip: Rect? = nil) -> Int {
        let area = (clip ?? bounds).intersection(bounds)
        var column = x
        guard !area.isEmpty, y >= area.y, y < area.maxY else {
            return x + DisplayWidth.of(text)
        }
        for glyph in TextNormalizer.glyphs(of: text) {
            defer { column += glyph.width }
            if column >= area.maxX { continue }
            if column + glyph.width <= area.x { continue }
            if column < area.x || column + glyph.width > area.maxX {
                for c in max(column, area.x)..<min(column + glyph.width, area.maxX) {
                    put(.blank(style), x: c, y: y, glyphWidth: 1)
                }
                continue
            }
            put(Cell(glyph.text, style: style), x: column, y: y, glyphWidth: glyph.width)
        }
        return column
    }

    /// Sets the style of every cell in `rect` without changing its text.
    public mutating func setStyle(_ style: CellStyle, in rect: Rect) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { cells[y * width + x].style = style }
        }
    }

    /// Marks every cell of `rect` accentable (a view node's `"accentable": true`), text and
    /// blanks alike: the `accented` rendering mode draws them in the accent tone.
    public mutating func markAccentable(_ rect: Rect) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { cells[y * width + x].style.accentable = true }
        }
    }

    /// The cells that differ from `previous`, as runs per row, top to bottom.
    ///
    /// When the sizes differ every cell is reported (the backend must redraw everything).
    public func changes(since previous: CellBuffer?) -> [CellRun] {
        var runs: [CellRun] = []
        let full = previous.map { $0.width != width || $0.height != height } ?? true
        for y in 0..<height {
            var run: CellRun?
            for x in 0..<width {
                let i = y * width + x
                if full || cells[i] != previous!.cells[i] {
                    if run == nil { run = CellRun(x: x, y: y, cells: []) }
                    run!.cells.append(cells[i])
                } else if let finished = run {
                    runs.append(finished)
                    run = nil
                }
            }
            if let finished = run { runs.append(finished) }
        }
        return runs
    }

    /// Places a cell whose glyph is `glyphWidth` (1 or 2) columns wide and repairs any
    /// wide glyph it cuts in half.
    /// Writes one of a drawing primitive's own glyphs (a `GlyphSet`'s bar block or track: one
    /// column wide, inert, already normal) at (`x`, `y`) inside `clip` (and the buffer),
    /// without the sanitising and grapheme splitting a text `write` does: a bar is drawn cell
    /// by cell every frame, and that work was most of its cost.
    mutating func putPrimitiveGlyph(_ glyph: String, x: Int, y: Int, style: CellStyle, clip: Rect) {
        guard clip.contains(x: x, y: y) else { return }
        put(Cell(glyph, style: style), x: x, y: y, glyphWidth: 1)
    }

    private mutating func put(_ cell: Cell, x: Int, y: Int, glyphWidth: Int) {
        guard bounds.contains(x: x, y: y) else { return }
        let span = (glyphWidth == 2 && x + 1 < width) ? 2 : 1
        let row = y * width
        if cells[row + x].isContinuation, x > 0 {
            cells[row + x - 1] = .blank(cells[row + x - 1].style)
        }
        let after = x + span
        if after < width, cells[row + after].isContinuation {
            cells[row + after] = .blank(cells[row + after].style)
        }
        if glyphWidth == 2 && span == 1 {
            cells[row + x] = .blank(cell.style)
            return
        }
        cells[row + x] = cell
        if span == 2 { cells[row + x + 1] = .continuation(cell.style) }
    }
}

extension CellBuffer {
    /// Copies the cells of `source` inside `sourceRect` to this buffer with their top-left
    /// corner at (`x`, `y`), clipped to `clip` (and the buffer).
    ///
    /// Wide glyphs stay whole: one whose second half would fall outside the clip becomes a
    /// space, like `write`. Used to show a window of a taller off-screen drawing (scrolling).
    public mutating func copy(_ source: CellBuffer, from sourceRect: Rect, toX x: Int, y: Int, clip: Rect? = nil) {
        let area = (clip ?? bounds).intersection(bounds)
        let from = sourceRect.intersection(source.bounds)
        for sy in from.y..<from.maxY {
            let dy = y + sy - sourceRect.y
            guard dy >= area.y, dy < area.maxY else { continue }
            for sx in from.x..<from.maxX {
                let dx = x + sx - sourceRect.x
                guard dx >= area.x, dx < area.maxX else { continue }
                let cell = source[sx, sy]
                if cell.isContinuation {
                    // Its lead glyph was cut off on the left edge of the source window.
                    if sx == from.x { self[dx, dy] = .blank(cell.style) }
                    continue
                }
                let wide = sx + 1 < source.width && source[sx + 1, sy].isContinuation
                if wide && dx + 1 >= area.maxX {
                    self[dx, dy] = .blank(cell.style)
                } else {
                    self[dx, dy] = cell
                }
            }
        }
    }
}

extension CellBuffer {
    /// Draws `rect` redacted, as WidgetKit draws a placeholder: every visible glyph becomes
    /// `glyphs.redaction` (both halves of a wide glyph, so the shape keeps its width) in the
    /// `placeholder` role; spaces stay spaces. The host applies it to a widget's placeholder
    /// entry, so every widget (an extension's too) gets the redacted look without drawing it.
    public mutating func redact(_ rect: Rect, glyphs: GlyphSet) {
        let area = rect.intersection(bounds)
        let style = CellStyle(.placeholder)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX {
                let cell = cells[y * width + x]
                if cell.grapheme == " " { continue }
                // A wide glyph cut by the area's edge keeps its outside half whole.
                cells[y * width + x] = Cell(glyphs.redaction, style: style)
                if cell.isContinuation, x == area.x, x > 0 { cells[y * width + x - 1] = .blank(cells[y * width + x - 1].style) }
                if !cell.isContinuation, x == area.maxX - 1, x + 1 < width, cells[y * width + x + 1].isContinuation {
                    cells[y * width + x + 1] = .blank(cells[y * width + x + 1].style)
                }
            }
        }
    }
}
