/// A semantic colour role: what a cell *means*, never which colour it has.
///
/// Widgets name roles; a `Theme` gives each role a colour and attributes, and the backend
/// maps those to what the terminal can show. The first twelve are the theme contract of
/// DESIGN.md §4; `stale` and `placeholder` are optional in theme files and fall back to
/// the theme's `muted` when absent.
public enum StyleRole: String, CaseIterable, Hashable, Sendable, Codable {
    case background
    case foreground
    case border
    case borderFocused
    case title
    case accent
    case positive
    case negative
    case warning
    case muted
    case statusBar
    case statusText
    /// Data older than its refresh interval (falls back to `muted`).
    case stale
    /// A widget's placeholder ("redacted") look before its first entry (falls back to `muted`).
    case placeholder

    /// The roles every theme file may set and which fall back to the default theme.
    public static let contractRoles: [StyleRole] = [
        .background, .foreground, .border, .borderFocused, .title, .accent,
        .positive, .negative, .warning, .muted, .statusBar, .statusText,
    ]
}
