import TerminalUI

/// `widgethost themes`: lists the themes with a swatch of their colours.
enum ThemesCommand {
    /// One line per theme: its name, where it comes from, and a swatch (256 colours unless
    /// `NO_COLOR` is set or `color` is false, then the role colours as text).
    static func run(environment: HostEnvironment, color: Bool) -> CommandOutput {
        let loader = ThemeLoader(environment: environment.variables)
        let noColor = !(environment.variables["NO_COLOR"] ?? "").isEmpty
        let roles: [StyleRole] = [.foreground, .accent, .positive, .negative, .warning, .muted, .border, .borderFocused]
        var out = ""
        var errors = ""
        // Theme names come from file names in the user's directory: shown inert, since the
        // swatches make this output carry escape sequences on purpose.
        let names = loader.availableNames()
        let width = names.map(\.count).max() ?? 0
        for name in names {
            let theme: Theme
            do {
                theme = try loader.load(name)
            } catch {
                errors += "widgethost themes: \(error)\n"
                continue
            }
            let origin = Theme.builtinNames.contains(name) ? "built-in" : "user"
            var line = pad(Sanitizer.sanitize(name), width + 2) + pad(origin, 10)
            if color && !noColor {
                let palette = TerminalPalette(theme: theme, capability: .palette256)
                for role in roles {
                    var look = palette[role]
                    look.attributes = []
                    line += TextBackend.sgr(look) + "██" + "\u{1B}[0m"
                }
            } else {
                line += roles.map { "\($0.rawValue)=\(theme.color($0))" }.joined(separator: " ")
            }
            out += line + "\n"
        }
        if let directory = loader.userThemesDirectory {
            out += "\nuser themes: \(Sanitizer.sanitize(directory))/NAME.json; use with --theme NAME or \"theme\" in the config\n"
        }
        return CommandOutput(exitCode: errors.isEmpty ? 0 : 1, standardOutput: out, standardError: errors,
                             standardOutputHasEscapes: color && !noColor)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
