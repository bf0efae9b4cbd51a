/// A theme mapped to what the terminal can show: (foreground, background, attributes) per role.
///
/// Pure: the same theme, capability and rendering mode always give the same palette, so the
/// mapping is unit tested and shared by the curses and text backends.
/// - Foreground is the role's colour and background the theme's `background`, except for
///   `statusBar` and `statusText` (the `statusText` colour on the `statusBar` colour) and
///   `background` (the `foreground` colour on the `background` colour).
/// - `.direct` keeps RGB; `.palette256` picks the nearest of the xterm cube and greys;
///   `.ansi16`/`.ansi8` the nearest ANSI colour; palette indexes above the terminal's range
///   are converted the same way. `init_color` is never used: the user's palette is theirs.
/// - `.none` (no colour, or `NO_COLOR`), and the `mono` rendering mode: every colour is the
///   terminal default, and each role gets the attributes of the built-in `mono` theme added to
///   its own, so focus, titles, the status bar and the meaning of colours stay visible.
/// - The `accented` rendering mode: two tones on the theme's background — the theme's
///   `accent` for accentable cells (`CellStyle.accentable`), its `foreground` for every other
///   cell — and the `mono` theme's attributes, which keep the roles apart.
public struct TerminalPalette: Hashable, Sendable {
    public let capability: ColorCapability
    public let mode: RenderingMode
    private let roles: [StyleRole: RoleColors]
    /// How accentable cells look per role (the same as `roles` but in the `accented` mode).
    private let accentRoles: [StyleRole: RoleColors]

    public init(theme: Theme, capability: ColorCapability, mode: RenderingMode = .fullColor) {
        let capability = mode == .mono ? .none : capability
        self.capability = capability
        self.mode = mode
        var roles: [StyleRole: RoleColors] = [:]
        var accentRoles: [StyleRole: RoleColors] = [:]
        let mono = capability == .none || mode == .accented ? Theme.mono : nil
        for role in StyleRole.allCases {
            var attributes = theme.attributes(role)
            if let mono { attributes.formUnion(mono.attributes(role)) }
            guard mode != .accented else {
                let background = Self.map(theme.color(.background), to: capability)
                roles[role] = RoleColors(foreground: Self.map(theme.color(.foreground), to: capability),
                                         background: background, attributes: attributes)
                accentRoles[role] = RoleColors(foreground: Self.map(theme.color(.accent), to: capability),
                                               background: background, attributes: attributes)
                continue
            }
            let (fg, bg): (StyleRole, StyleRole) = switch role {
            case .statusBar, .statusText: (.statusText, .statusBar)
            case .background: (.foreground, .background)
            default: (role, .background)
            }
            roles[role] = RoleColors(
                foreground: Self.map(theme.color(fg), to: capability),
                background: Self.map(theme.color(bg), to: capability),
                attributes: attributes)
        }
        self.roles = roles
        self.accentRoles = mode == .accented ? accentRoles : roles
    }

    /// The colours and attributes of `role`.
    public subscript(role: StyleRole) -> RoleColors { roles[role]! }

    /// The colours and attributes of accentable content in `role` (the `accented` mode's
    /// accent tone; in other modes the same as `self[role]`).
    public subscript(accentable role: StyleRole) -> RoleColors { accentRoles[role]! }

    /// The colours and attributes to draw a cell in `style` with (role's plus the cell's own).
    public func resolve(_ style: CellStyle) -> RoleColors {
        var colors = style.accentable ? self[accentable: style.role] : self[style.role]
        colors.attributes.formUnion(style.attributes)
        return colors
    }

    /// Maps one theme colour to the terminal's capability.
    public static func map(_ color: ThemeColor, to capability: ColorCapability) -> TerminalColor {
        guard let rgb = color.rgbValue else { return .terminalDefault }
        switch (capability, color) {
        case (.none, _): return .terminalDefault
        case (.direct, .indexed(let n)) where n < 16: return .indexed(n)
        case (.direct, _): return .rgb(UInt8(rgb.r), UInt8(rgb.g), UInt8(rgb.b))
        case (.palette256, .indexed(let n)): return .indexed(n)
        case (.palette256, _): return .indexed(ColorQuantizer.nearest256(rgb))
        case (.ansi16, .indexed(let n)) where n < 16: return .indexed(n)
        case (.ansi16, _): return .indexed(ColorQuantizer.nearestANSI(rgb, count: 16))
        case (.ansi8, .indexed(let n)) where n < 16: return .indexed(n % 8)
        case (.ansi8, _): return .indexed(ColorQuantizer.nearestANSI(rgb, count: 8))
        }
    }
}
