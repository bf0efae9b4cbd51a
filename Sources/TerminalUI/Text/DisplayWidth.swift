#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Display width in terminal columns, as ncurses and the terminal will draw it.
///
/// Widths are glibc `wcwidth` per code point, evaluated in a C.UTF-8 locale on the calling
/// thread (`uselocale`), so the answer does not depend on whether the process called
/// `setlocale` or runs under `LANG=C`. If C.UTF-8 is unavailable, a table built on Unicode
/// properties stands in. Text widths are measured after `TextNormalizer` (controls shown inert,
/// variation selectors and ZWJ tails dropped): ASCII 1, CJK and emoji like 🐼 2, ❤️ 1,
/// combining marks 0. Thread-safe.
public enum DisplayWidth {
    nonisolated(unsafe) private static let utf8Locale: locale_t? = newlocale(1 << LC_CTYPE, "C.UTF-8", nil)

    private typealias WcwidthFunction = @convention(c) (wchar_t) -> Int32
    /// glibc's `wcwidth`, looked up at run time: Glibc's module map hides it (it needs
    /// `_XOPEN_SOURCE`), and only the curses backend may import the C shim.
    private static let wcwidthFunction: WcwidthFunction? =
        dlsym(nil, "wcwidth").map { unsafeBitCast($0, to: WcwidthFunction.self) }

    /// The width of one code point: 0, 1 or 2, or -1 when it is not printable.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return 1 }
        guard let locale = utf8Locale, let wcwidth = wcwidthFunction else { return fallbackWidth(scalar) }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return Int(wcwidth(wchar_t(bitPattern: v)))
    }

    /// The width of `text` once normalised (see `TextNormalizer`).
    public static func of(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return TextNormalizer.glyphs(of: text).reduce(0) { $0 + $1.width }
    }

    /// `text` normalised and cut to at most `width` columns, ending in `ellipsis` when cut.
    ///
    /// A wide glyph that would cross the limit is left out (the result may be one column
    /// short). When `width` is smaller than the ellipsis, as much of the ellipsis as fits
    /// is returned. Use `GlyphSet.ellipsis` for "…" or "..." to match the locale.
    public static func truncate(_ text: String, toWidth width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        let glyphs = TextNormalizer.glyphs(of: text)
        if glyphs.reduce(0, { $0 + $1.width }) <= width { return glyphs.map(\.text).joined() }
        let mark = TextNormalizer.glyphs(of: ellipsis)
        let markWidth = mark.reduce(0) { $0 + $1.width }
        if markWidth >= width { return prefix(mark, width: width) }
        return prefix(glyphs, width: width - markWidth) + mark.map(\.text).joined()
    }

    private static func prefix(_ glyphs: [Glyph], width: Int) -> String {
        var used = 0
        var out = ""
        for glyph in glyphs {
            if used + glyph.width > width { break }
            used += glyph.width
            out += glyph.text
        }
        return out
    }

    /// Width from Unicode properties, for systems without a C.UTF-8 locale.
    static func fallbackWidth(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return -1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        case .unassigned, .surrogate: return -1
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
