/// How many colours the terminal can show, from most to least.
public enum ColorCapability: String, CaseIterable, Hashable, Sendable {
    /// 24-bit colour; only chosen for a `*-direct` terminfo entry.
    case direct
    case palette256
    case ansi16
    case ansi8
    /// No colour at all: attributes only (also the answer whenever `NO_COLOR` is set).
    case none

    /// Decides the capability from the terminfo name, its colour count (curses `COLORS`,
    /// `tigetnum("colors")`) and the environment.
    ///
    /// `NO_COLOR` set to anything but "" wins (https://no-color.org); a terminal name ending
    /// in `-direct` with at least 256 colours gives `.direct`; otherwise the largest palette
    /// that `colors` covers.
    public static func detect(terminalName: String?, colors: Int, environment: [String: String]) -> ColorCapability {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        if let name = terminalName, name.hasSuffix("-direct"), colors >= 256 { return .direct }
        switch colors {
        case 256...: return .palette256
        case 16..<256: return .ansi16
        case 8..<16: return .ansi8
        default: return .none
        }
    }
}
