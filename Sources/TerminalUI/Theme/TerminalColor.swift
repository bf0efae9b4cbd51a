/// A colour the terminal at hand can show: its default, a palette index, or 24-bit RGB.
public enum TerminalColor: Hashable, Sendable {
    case terminalDefault
    case indexed(Int)
    case rgb(UInt8, UInt8, UInt8)

    /// The colour number curses expects for this colour (`init_extended_pair`), -1 for the
    /// default.
    ///
    /// In direct-colour mode (`*-direct` terminfo) curses numbers below 8 are palette colours
    /// and the rest are `0xRRGGBB`, so an RGB value below 8 (blacks with a little blue) is
    /// raised to 8, which looks the same.
    public func cursesNumber(direct: Bool) -> Int32 {
        switch self {
        case .terminalDefault: return -1
        case let .indexed(n): return Int32(n)
        case let .rgb(r, g, b):
            guard direct else { return Int32(ColorQuantizer.nearest256((Int(r), Int(g), Int(b)))) }
            return max(8, Int32(r) << 16 | Int32(g) << 8 | Int32(b))
        }
    }

    /// The SGR parameters selecting this colour as foreground (or background).
    public func sgrParameters(background: Bool) -> String {
        switch self {
        case .terminalDefault: return background ? "49" : "39"
        case let .indexed(n) where n < 8: return "\((background ? 40 : 30) + n)"
        case let .indexed(n) where n < 16: return "\((background ? 100 : 90) + n - 8)"
        case let .indexed(n): return "\(background ? 48 : 38);5;\(n)"
        case let .rgb(r, g, b): return "\(background ? 48 : 38);2;\(r);\(g);\(b)"
        }
    }
}
