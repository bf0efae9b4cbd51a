/// A bordered box with an optional title in its top border.
///
/// The border uses the `borderFocused` role when focused, else `border`; the title uses the
/// `title` role and reads `┌ Title ───┐`, truncated to fit (left out when fewer than three
/// columns are free). The inside is filled with blanks; draw the content into `inner(of:)`
/// afterwards. A rectangle smaller than 2×2 cannot hold a border: nothing is drawn.
public struct Box: Drawable {
    public var title: String?
    public var isFocused: Bool
    public var glyphs: GlyphSet
    /// The border's role instead of `border`/`borderFocused` (a panel's alert: `warning`,
    /// `negative`), bold when focused.
    /// Such a border is accentable (an alert state takes the `accented` mode's accent tone).
    public var role: StyleRole?

    public init(title: String? = nil, focused: Bool = false, glyphs: GlyphSet = .unicode, role: StyleRole? = nil) {
        self.title = title
        self.isFocused = focused
        self.glyphs = glyphs
        self.role = role
    }

    /// The area inside the border.
    public static func inner(of rect: Rect) -> Rect { rect.inset(by: 1) }

    public func draw(into buffer: inout CellBuffer, in rect: Rect) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let style = role.map { CellStyle($0, isFocused ? .bold : [], accentable: true) } ?? CellStyle(isFocused ? .borderFocused : .border)
        let clip = rect.intersection(buffer.bounds)
        let top = rect.y, bottom = rect.maxY - 1, left = rect.x, right = rect.maxX - 1
        buffer.fill(Box.inner(of: rect).intersection(clip), with: .blank())
        for x in (left + 1)..<right {
            buffer.write(glyphs.horizontal, x: x, y: top, style: style, clip: clip)
            buffer.write(glyphs.horizontal, x: x, y: bottom, style: style, clip: clip)
        }
        for y in (top + 1)..<bottom {
            buffer.write(glyphs.vertical, x: left, y: y, style: style, clip: clip)
            buffer.write(glyphs.vertical, x: right, y: y, style: style, clip: clip)
        }
        buffer.write(glyphs.topLeft, x: left, y: top, style: style, clip: clip)
        buffer.write(glyphs.topRight, x: right, y: top, style: style, clip: clip)
        buffer.write(glyphs.bottomLeft, x: left, y: bottom, style: style, clip: clip)
        buffer.write(glyphs.bottomRight, x: right, y: bottom, style: style, clip: clip)
        guard let title, !title.isEmpty, rect.width - 2 >= 3 else { return }
        let text = DisplayWidth.truncate(title, toWidth: rect.width - 4, ellipsis: glyphs.ellipsis)
        let titleClip = Rect(x: left + 1, y: top, width: rect.width - 2, height: 1).intersection(clip)
        let end = buffer.write(" ", x: left + 1, y: top, style: style, clip: titleClip)
        let after = buffer.write(text, x: end, y: top, style: CellStyle(.title), clip: titleClip)
        buffer.write(" ", x: after, y: top, style: style, clip: titleClip)
    }
}
