import TerminalUI
import WidgetCore

/// The `text` widget: static text or a file's contents, wrapped to the panel (display widths
/// of TerminalUI: CJK and emoji take two columns), sanitised by the cell buffer.
///
/// Options (DESIGN.md §4): `text` or `file` (exactly one), `wrap` (default true). A file is
/// read up to 1 MiB and reloaded when it changes (its directory is watched, see
/// `FileWatcher`); a missing file says so and shows up once it is created.
public enum TextWidget {
    public static let kind = "text"

    /// The widget; file changes reach `watcher`, which reloads the kind.
    static func configuration(watcher: FileWatcher?, context: WidgetContext) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try TextOptions(options)
                let source: TextProvider.Source
                switch (options.text, options.file) {
                case (let text?, nil): source = .text(text)
                case (nil, let file?): source = .file(path(file, environment: context.environment))
                case (nil, nil): throw OptionError("options: missing option: give 'text' or 'file'")
                case (_?, _?): throw OptionError("options.file: give only one of 'text' or 'file', not both")
                }
                return AnyTimelineProvider(TextProvider(source: source, wrap: options.wrap, watcher: watcher, now: context.now))
            },
            view: PanelView.typed(view))
    }

    /// The file a `file` option names: `~/…` in `HOME`, otherwise as given (a relative path
    /// is relative to the host's working directory).
    public static func path(_ file: String, environment: [String: String]) -> String {
        if file == "~" || file.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty {
            return home + file.dropFirst()
        }
        return file
    }

    /// The command that edits `file` (the `e` action): `$EDITOR` split into words (quotes
    /// group, as a shell would for a simple value such as `code --wait` or `"my editor" -n`),
    /// its program looked up in `PATH`, then the file; `vi` when `EDITOR` is unset or blank.
    public static func editorCommand(file: String, environment: [String: String]) -> [String] {
        var words = split(environment["EDITOR"] ?? "")
        if words.isEmpty { words = ["vi"] }
        words[0] = CommandRunner.resolve(words[0], path: environment["PATH"]) ?? words[0]
        return words + [file]
    }

    /// Words of `text`: split at unquoted spaces and tabs; single quotes keep everything,
    /// double quotes keep spaces (a backslash escapes the next character outside single quotes).
    static func split(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped { word.append(character); escaped = false; continue }
            switch (quote, character) {
            case (nil, " "), (nil, "\t"), (nil, "\n"):
                if inWord { words.append(word); word = ""; inWord = false }
            case ("'", "'"), ("\"", "\""): quote = nil
            case (nil, "'"), (nil, "\""): quote = character; inWord = true
            case ("'", _): word.append(character)
            case (_, "\\"): escaped = true; inWord = true
            default: word.append(character); inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    static func view(_ entry: TextEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    /// The text from the top (wrapped or cut with `…`), under a notice when there is one; a
    /// missing file's notice is centred.
    static func node(_ entry: TextEntry, context: WidgetViewContext) -> ViewNode {
        let role: StyleRole = context.isPlaceholder ? .placeholder : .foreground
        if entry.isError, let notice = entry.notice {
            return .vstack([.spacer, .text([ViewNode.Span(notice, role: .warning)], alignment: .center, wrap: true), .spacer])
        }
        let body = ViewNode.text([ViewNode.Span(entry.text, role: role)], wrap: entry.wrap)
        guard let notice = entry.notice, context.size.rows > 1 else { return .vstack([body, .spacer]) }
        // On top: a file too long to read whole is also too long to show whole.
        return .vstack([.text(notice, role: .muted), body, .spacer])
    }
}
