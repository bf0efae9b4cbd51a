/// A colour as written in a theme file.
///
/// Accepted forms: `"#rrggbb"`; a colour name (`black`, `red`, `green`, `yellow`, `blue`,
/// `magenta`, `cyan`, `white`, `gray`/`grey`, and `brightBlack` … `brightWhite`, any case,
/// `-` or `_` allowed: `bright-red`); a palette index 0…255 (a JSON number); or `"default"`,
/// the terminal's own foreground or background.
public enum ThemeColor: Hashable, Sendable, CustomStringConvertible {
    case terminalDefault
    /// An xterm palette index: 0…15 the named colours, 16…231 the cube, 232…255 greys.
    case indexed(Int)
    case rgb(UInt8, UInt8, UInt8)

    static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Parses a theme string value; nil when it is not a colour.
    public init?(parsing text: String) {
        let lower = text.lowercased().filter { $0 != "-" && $0 != "_" }
        if lower == "default" {
            self = .terminalDefault
        } else if lower.hasPrefix("#") {
            let hex = lower.dropFirst()
            guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
            self = .rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        } else if let i = Self.names.firstIndex(of: lower) {
            self = .indexed(i)
        } else if lower == "gray" || lower == "grey" {
            self = .indexed(8)
        } else if lower.hasPrefix("bright"), let i = Self.names.firstIndex(of: String(lower.dropFirst(6))) {
            self = .indexed(8 + i)
        } else if let n = Int(text), (0...255).contains(n) {
            self = .indexed(n)
        } else {
            return nil
        }
    }

    /// The colour's RGB value under xterm's default palette; nil for `terminalDefault`.
    public var rgbValue: (r: Int, g: Int, b: Int)? {
        switch self {
        case .terminalDefault: nil
        case let .rgb(r, g, b): (Int(r), Int(g), Int(b))
        case let .indexed(n): ColorQuantizer.xtermRGB(n)
        }
    }

    public var description: String {
        switch self {
        case .terminalDefault: "default"
        case let .indexed(n): "\(n)"
        case let .rgb(r, g, b):
            "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }
}
