/// A colour theme: a colour and attributes for every `StyleRole`.
///
/// Load one with `ThemeLoader` (built-in name, user theme name, or path) or use a built-in
/// (`Theme.default`, `Theme.builtin(named:)`). A loaded theme is complete: roles its file
/// leaves out take the default theme's colour (`stale` and `placeholder` take the theme's own
/// `muted`), so `color(_:)` always answers.
///
/// File format (`Themes/NAME.json`, DESIGN.md §4), every key optional, unknown keys errors:
/// ```json
/// { "name": "Mono",
///   "colors": { "foreground": "default", "accent": "#5fafff", "muted": 244 },
///   "attributes": { "title": ["bold"], "statusBar": ["reverse"] } }
/// ```
/// `colors` values are `ThemeColor`s; `attributes` lists any of `bold`, `dim`, `reverse`,
/// `underline` per role, added to whatever colours the terminal can show (a monochrome theme
/// sets every colour to "default" and relies on attributes). The rendering modes need no key of
/// their own: `accented` draws in the theme's `accent` and `foreground`, `mono` with the
/// built-in `mono` theme's attributes (`TerminalPalette`).
public struct Theme: Hashable, Sendable {
    public var name: String
    private var colors: [StyleRole: ThemeColor]
    private var roleAttributes: [StyleRole: CellAttributes]

    /// A theme from explicit values; roles missing from `colors` take `fallback`'s colour
    /// (the terminal default when `fallback` is nil), `stale` and `placeholder` this theme's
    /// `muted`.
    public init(name: String, colors: [StyleRole: ThemeColor], attributes: [StyleRole: CellAttributes] = [:],
                fallback: Theme? = Theme.default) {
        self.name = name
        var complete = colors
        for role in StyleRole.contractRoles where complete[role] == nil {
            complete[role] = fallback?.color(role) ?? .terminalDefault
        }
        var attributes = attributes
        for role in [StyleRole.stale, .placeholder] {
            if complete[role] == nil { complete[role] = complete[.muted] }
            if attributes[role] == nil, colors[role] == nil { attributes[role] = attributes[.muted] }
        }
        self.colors = complete
        roleAttributes = attributes
    }

    /// The colour of `role`.
    public func color(_ role: StyleRole) -> ThemeColor { colors[role] ?? .terminalDefault }

    /// The attributes of `role` (empty when the theme sets none).
    public func attributes(_ role: StyleRole) -> CellAttributes { roleAttributes[role] ?? [] }

    /// The built-in default theme.
    public static let `default`: Theme = builtinOrCrash("default")
    /// The built-in monochrome theme (attributes only).
    public static let mono: Theme = builtinOrCrash("mono")

    /// Names of the built-in themes, in display order.
    public static var builtinNames: [String] { BuiltinThemes.names }

    /// The built-in theme called `name` (e.g. "solarized-dark"), or nil.
    public static func builtin(named name: String) -> Theme? {
        guard let text = BuiltinThemes.json[name] else { return nil }
        return try? ThemeParser.parse(text, file: "\(name).json", fallback: name == "default" ? nil : .default)
    }

    private static func builtinOrCrash(_ name: String) -> Theme {
        do {
            let fallback: Theme? = name == "default" ? nil : .default
            return try ThemeParser.parse(BuiltinThemes.json[name] ?? "", file: "\(name).json", fallback: fallback)
        } catch {
            // The embedded text is checked against Themes/ by the test suite.
            preconditionFailure("built-in theme \(name) is invalid: \(error)")
        }
    }
}
