/// OSC 8 hyperlinks (`ESC ] 8 ; ; URL ESC \`) where the terminal is known to show them: linked
/// text (`CellBuffer.links`) becomes clickable in the terminal itself, as in a browser.
///
/// Known by the environment the terminal sets, since there is no query: kitty, WezTerm,
/// iTerm2, VS Code's terminal, Ghostty, foot, Windows Terminal, and VTE ≥ 0.50 (GNOME
/// Terminal, Tilix…). Not inside tmux or screen (tmux 3.3 drops them). `WIDGETHOST_HYPERLINKS`
/// set to 1 or 0 decides instead.
public enum Hyperlinks {
    public static func supported(environment: [String: String]) -> Bool {
        if let forced = environment["WIDGETHOST_HYPERLINKS"] { return forced == "1" }
        let term = environment["TERM"] ?? ""
        if environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") { return false }
        if ["iTerm.app", "WezTerm", "vscode", "ghostty"].contains(environment["TERM_PROGRAM"] ?? "") { return true }
        if environment["KITTY_WINDOW_ID"] != nil || environment["WT_SESSION"] != nil { return true }
        if term == "xterm-kitty" || term.hasPrefix("foot") { return true }
        if let vte = environment["VTE_VERSION"].flatMap(Int.init), vte >= 5000 { return true }
        return false
    }

    /// Whether a URL can go into the sequence as it is: `Hyperlink.isAllowed` keeps controls
    /// and spaces out; `$<` is curses' padding syntax, `;` the sequence's own separator.
    static func isEmbeddable(_ url: String) -> Bool {
        Hyperlink.isAllowed(url) && !url.contains("$<") && !url.contains(";")
    }
}
