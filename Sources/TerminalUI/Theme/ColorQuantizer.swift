/// Nearest-colour search in the xterm palettes, for terminals without direct colour.
///
/// Distances are plain squared RGB distances against xterm's default palette (the user's
/// palette may differ; it is never redefined). Pure functions.
enum ColorQuantizer {
    static let ansi16: [(r: Int, g: Int, b: Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]
    static let cubeLevels = [0, 95, 135, 175, 215, 255]

    /// RGB of xterm palette index `n` (0…255).
    static func xtermRGB(_ n: Int) -> (r: Int, g: Int, b: Int) {
        switch n {
        case ..<16: return ansi16[max(0, n)]
        case 16..<232:
            let i = n - 16
            return (cubeLevels[i / 36], cubeLevels[(i / 6) % 6], cubeLevels[i % 6])
        default:
            let level = 8 + 10 * (min(n, 255) - 232)
            return (level, level, level)
        }
    }

    /// The 256-colour index nearest to `rgb`, from the 6×6×6 cube and the 24 greys.
    static func nearest256(_ c: (r: Int, g: Int, b: Int)) -> Int {
        func level(_ v: Int) -> Int {
            cubeLevels.indices.min { abs(cubeLevels[$0] - v) < abs(cubeLevels[$1] - v) }!
        }
        let cube = 16 + 36 * level(c.r) + 6 * level(c.g) + level(c.b)
        let average = (c.r + c.g + c.b) / 3
        let grey = 232 + min(23, max(0, (average - 8 + 5) / 10))
        return distance(xtermRGB(cube), c) <= distance(xtermRGB(grey), c) ? cube : grey
    }

    /// The index among the first `count` (8 or 16) ANSI colours nearest to `rgb`.
    static func nearestANSI(_ c: (r: Int, g: Int, b: Int), count: Int) -> Int {
        (0..<count).min { distance(ansi16[$0], c) < distance(ansi16[$1], c) }!
    }

    static func distance(_ a: (r: Int, g: Int, b: Int), _ b: (r: Int, g: Int, b: Int)) -> Int {
        let dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b
        return dr * dr + dg * dg + db * db
    }
}
