import WidgetCore

/// The `--help` texts of `widgethost` and each subcommand. `preview --help` lists the
/// catalogue's kinds and their options from the manifests.
public enum HelpText {
    /// The help for `subcommand`, or the main help for nil. Ends with a newline.
    public static func text(for subcommand: Subcommand?, catalog: Catalog) -> String {
        switch subcommand {
        case nil, .help?: main
        case .snapshot?: snapshot
        case .preview?: preview + kinds(catalog)
        case .checkConfig?: checkConfig
        case .themes?: themes
        case .widgets?: widgets
        case .sessions?: sessions
        }
    }

    static let main = """
        widgethost: a terminal dashboard that hosts widgets the way WidgetKit does

        Usage:
          widgethost [--config PATH] [--theme NAME|PATH] [--state-dir DIR] [--debug]
          widgethost COMMAND [OPTIONS]

        Commands:
          snapshot          render one frame of the dashboard as text
          preview KIND      show a widget's timeline, entry by entry
          check-config      validate a config file and list every error
          themes            list themes with a colour swatch
          widgets           list widget kinds, their families and options
          sessions          list background sessions in the state directory
          help [COMMAND]    show the help of a command

        Options:
          --config PATH       config file; default $WIDGETHOST_CONFIG, else
                              $XDG_CONFIG_HOME/widgethost/config.json
                              (~/.config/widgethost/config.json); none: the default dashboard
          --theme NAME|PATH   theme by name or file; overrides the config's "theme"
          --state-dir DIR     journal, containers and log; default $XDG_STATE_HOME/widgethost
                              (~/.local/state/widgethost)
          --debug             write more detail to the log (DIR/widgethost.log)
          -h, --help          show this help
          --version           print the version

        Keys:
          Tab, Shift-Tab      focus the next, previous panel
          arrows, h j k l     move the focus left, down, up, right
          Enter               zoom the focused panel
          Esc                 back (leave zoom or help)
          r                   reload the focused widget
          R                   reload all widgets
          t                   next theme
          p                   pause or resume automatic reloads
          ?                   show the keys
          q                   quit

        Exit status: 0 normal, 2 bad usage or bad config/theme, 1 anything else.
        Run 'widgethost COMMAND --help' for a command's options.

        """

    static let snapshot = """
        Usage: widgethost snapshot [--config PATH] [--size COLSxROWS] [--at TIME] [--wait SECONDS]
                                   [--color] [--theme NAME|PATH] [--state-dir DIR]

        Render one frame of the dashboard as text on stdout, without a terminal.

        Options:
          --config PATH       config file (lookup as for the dashboard)
          --size COLSxROWS    frame size, each 1…1000 (default 100x30)
          --at TIME           the moment to show: ISO 8601 with Z or an offset
                              (2026-11-30T05:00:00Z, 2026-11-30T06:00:00+01:00),
                              or from now: +90s, +5m, +2h (default now)
          --wait SECONDS      let widgets fetch data this long before rendering (0…600)
          --color             emit ANSI colours
          --theme NAME|PATH   theme by name or file
          --state-dir DIR     read cached widget data from DIR (never written)
          -h, --help          show this help

        """

    static let preview = """
        Usage: widgethost preview KIND [--family FAMILY] [--count N] [--option NAME=VALUE]...

        Show the timeline of one widget kind, entry by entry, with each entry's date.

        Options:
          --family FAMILY       small, medium, large or extraLarge (default: the kind's)
          --count N             number of entries to show, 1…1000
          --option NAME=VALUE   set a widget option; repeat for several options
          -h, --help            show this help

        'widgethost widgets' lists the kinds with their options' types and defaults.

        """

    /// Each kind with its families and options, one `--option NAME=EXAMPLE` line per option.
    static func kinds(_ catalog: Catalog) -> String {
        var out = "Kinds:\n"
        for manifest in catalog.manifests {
            out += "  \(manifest.kind) (\(manifest.supportedFamilies.map(\.rawValue).joined(separator: ", ")))\n"
            for option in manifest.options {
                let example = option.example.map { "\(option.name)=\($0)" } ?? "\(option.name)=JSON"
                let required = option.required ? "required: " : ""
                let line = "    --option \(example)"
                let padding = String(repeating: " ", count: max(2, 46 - line.count))
                out += String((line + padding + required + option.doc).prefix(100)) + "\n"
            }
        }
        return out
    }

    static let checkConfig = """
        Usage: widgethost check-config [PATH]

        Validate a config file: PATH, else the one the dashboard would use
        ($WIDGETHOST_CONFIG, else $XDG_CONFIG_HOME/widgethost/config.json).
        Prints "PATH: ok" and any warnings on stdout and exits 0, or prints every
        error with its key path on stderr and exits 2.

        Options:
          -h, --help    show this help

        """

    static let themes = """
        Usage: widgethost themes

        List the built-in themes and those in $XDG_CONFIG_HOME/widgethost/themes/,
        each with a colour swatch.

        Options:
          -h, --help    show this help

        """

    static let widgets = """
        Usage: widgethost widgets

        List the widget kinds with their families and options.

        Options:
          -h, --help    show this help

        """

    static let sessions = """
        Usage: widgethost sessions [--state-dir DIR] [--purge]

        List the background sessions recorded in the state directory's journal.

        Options:
          --state-dir DIR   state directory (default $XDG_STATE_HOME/widgethost)
          --purge           remove the journal's session records
          -h, --help        show this help

        """
}
