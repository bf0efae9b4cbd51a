import WidgetCore

/// The `--help` texts of `widgethost` and each subcommand. `preview --help` lists the
/// catalogue's kinds and their options from the manifests.
public enum HelpText {
    /// The help for `subcommand`, or the main help for nil. Ends with a newline.
    ///
    /// - Parameter kind: a kind named on the command line (`preview KIND --help`): when the
    ///   catalogue has it, only its options are listed.
    public static func text(for subcommand: Subcommand?, catalog: Catalog, kind: String? = nil) -> String {
        let named = kind.flatMap { kind in catalog.manifests.contains { $0.kind == kind } ? kind : nil }
        switch subcommand {
        case nil, .help?: return main
        case .snapshot?: return snapshot
        case .preview?: return preview + kinds(catalog, only: { named == nil || $0.kind == named })
        case .extensionRun?: return extensionRun + kinds(catalog, only: { ExtensionRediscovery.isExtensionKind($0.kind) && (named == nil || $0.kind == named) })
        case .checkConfig?: return checkConfig
        case .themes?: return themes
        case .widgets?: return widgets
        case .sessions?: return sessions
        case .reload?: return reload
        case .config?: return config
        case .activity?: return activity
        case .events?: return events
        }
    }

    static let help = (label: "-h, --help", help: "show this help")

    static let main = """
        widgethost: a terminal dashboard that hosts widgets the way WidgetKit does

        Usage:
        \(CommandOption.usage("  widgethost", CommandOption.options(of: nil)))\
          widgethost COMMAND [OPTIONS]

        Commands:
          snapshot          render one frame of the dashboard as text
          preview KIND      show a widget's timeline, entry by entry
          extension run NAME/KIND
                            run an extension once and print its timeline
          extension test NAME|PATH
                            check an extension against docs/extensions.md
          extension new NAME
                            write a new extension's folder from a template
          check-config      validate a config file and list every error
          themes            list themes with a colour swatch
          widgets           list widget kinds, their families and options
          sessions          list background sessions in the state directory
          reload KIND...    reload panels of a running dashboard (or --all)
          config add KIND | config remove N
                            add or remove a panel in the config file
          activity start|update|end|list
                            Live Activities on the running dashboard
          events            the history of activities and alerts
          help [COMMAND]    show the help of a command

        \(CommandOption.helpBlock(CommandOption.options(of: nil), extra: [help, ("--version", "print the version")]))
        Keys:
          Tab, Shift-Tab      focus the next, previous panel
          arrows, h j k l     move the focus left, down, up, right
          Enter               zoom the focused panel
          Esc                 back (leave zoom or help)
          r                   reload the focused widget
          R                   reload all widgets
          t                   next theme
          p                   pause or resume automatic reloads
          [ ]                 flip through the focused stack
          1-9                 go to page N (a config with pages)
          o                   open the focused panel's link ($BROWSER or xdg-open)
          E                   edit mode: a add from the gallery, n a new page, Enter the
                              panel's options, H J K L move it, + - its size, x remove, u undo,
                              s save to the config file, Esc leave
          ?                   show the keys (with the focused panel's own)
          q                   quit
        A widget may have keys of its own on its focused panel (hero +, text e): the status
        bar lists them. The mouse: a click focuses a panel or a page tab, a double click zooms,
        the wheel scrolls a zoomed panel ("mouse": false in the config turns it off).

        Exit status: 0 normal, 2 bad usage or bad config/theme, 1 anything else.
        Run 'widgethost COMMAND --help' for a command's options.

        """

    static let snapshot = """
        \(CommandOption.usage("Usage: widgethost snapshot", CommandOption.options(of: .snapshot)))\

        Render one frame of the dashboard as text on stdout, without a terminal.

        \(CommandOption.helpBlock(CommandOption.options(of: .snapshot), extra: [help]))
        """

    static let preview = """
        \(CommandOption.usage("Usage: widgethost preview KIND", CommandOption.options(of: .preview)))\

        Show the timeline of one widget kind, entry by entry, with each entry's date.

        \(CommandOption.helpBlock(CommandOption.options(of: .preview), extra: [help]))
        'widgethost widgets' lists the kinds with their options' types and defaults.

        """

    /// Each kind with its families and options, one `--option NAME=EXAMPLE` line per option
    /// (the description moves to its own line when the example is long).
    static func kinds(_ catalog: Catalog, only included: (WidgetManifest) -> Bool = { _ in true }) -> String {
        let manifests = catalog.manifests.filter(included)
        guard !manifests.isEmpty else { return "" }
        var out = "\nKinds:\n"
        let column = 40
        for manifest in manifests {
            out += "  \(manifest.kind) (\(manifest.supportedFamilies.map(\.rawValue).joined(separator: ", ")))\n"
            for option in manifest.options {
                let assignment = "    --option \(option.name)=\(option.example ?? option.type.commandLinePlaceholder)"
                let doc = (option.required ? "required: " : "") + option.doc
                if doc.isEmpty {
                    out += assignment + "\n"
                } else if assignment.count + 2 <= column {
                    out += assignment + String(repeating: " ", count: column - assignment.count) + doc + "\n"
                } else {
                    out += assignment + "\n" + String(repeating: " ", count: column) + doc + "\n"
                }
            }
        }
        return out
    }

    static let extensionRun = """
        \(CommandOption.usage("Usage: widgethost extension run NAME/KIND", CommandOption.options(of: .extensionRun)))\

        Launch an extension (as the dashboard would), ask it for the timeline of a panel of
        NAME/KIND and print it: each entry's date and relevance, its view drawn in a panel,
        then the reload policy. The extension is stopped afterwards.

        \(CommandOption.helpBlock(CommandOption.options(of: .extensionRun), extra: [help]))
        Exit status: 0 printed; 2 bad usage, an unknown NAME or KIND, a refused manifest or
        bad options; 3 the extension could not start or stopped (crashed, broke the protocol);
        4 it timed out; 5 a bad answer (not a valid timeline, or a JSON-RPC error); 1 the host
        itself failed (its temporary state directory, say). See docs/extensions.md, "Debugging".

        \(CommandOption.usage("Usage: widgethost extension test NAME|PATH", CommandOption.extensionTest))\

        Check an extension (NAME as found by every command, or its folder) against
        docs/extensions.md: initialize, timeline at every family and a few sizes, snapshot, its
        placeholder, each action, a method it does not know, and its idle exit. One line per
        check, PASS or FAIL with the rule a failure broke. Exit status: 0 all passed, 1 a check
        failed (a refused manifest too), 2 bad usage or no such extension.

        \(CommandOption.usage("Usage: widgethost extension new NAME", CommandOption.extensionNew))\

        Write a working extension folder NAME/ (in the current directory, or in DIR) that
        passes 'widgethost extension test' as written (swift: once 'swift build' has run in
        it). An existing NAME is never overwritten.
        Exit status: 0 written, 2 bad usage, 1 NAME exists or a file could not be written.

        \(CommandOption.helpBlock(CommandOption.extensionNew, extra: []))
        """

    static let checkConfig = """
        \(CommandOption.usage("Usage: widgethost check-config", CommandOption.options(of: .checkConfig), suffix: " [PATH]"))\

        Validate a config file: PATH, else the one the dashboard would use
        ($WIDGETHOST_CONFIG, else $XDG_CONFIG_HOME/widgethost/config.json).
        Prints "PATH: ok" and any warnings on stdout and exits 0, or prints every
        error with its key path on stderr and exits 2.

        \(CommandOption.helpBlock(CommandOption.options(of: .checkConfig), extra: [help]))
        """

    static let themes = """
        \(CommandOption.usage("Usage: widgethost themes", CommandOption.options(of: .themes)))\

        List the built-in themes and those in $XDG_CONFIG_HOME/widgethost/themes/,
        each with a colour swatch.

        \(CommandOption.helpBlock(CommandOption.options(of: .themes), extra: [help]))
        """

    static let widgets = """
        \(CommandOption.usage("Usage: widgethost widgets", CommandOption.options(of: .widgets)))\

        List the widget kinds with their families and options.

        \(CommandOption.helpBlock(CommandOption.options(of: .widgets), extra: [help]))
        """

    static let reload = """
        \(CommandOption.usage("Usage: widgethost reload KIND...", CommandOption.options(of: .reload)))\

        Ask the dashboard running on the state directory for new timelines of every panel of
        each KIND (the kinds of its config), or of all with --all, as a widget's own reload
        does: a git hook or a cron job refreshes a panel at once. It goes through the
        dashboard's control socket in $XDG_RUNTIME_DIR/widgethost.

        Exit status: 0 asked, 2 bad usage, 1 no dashboard running or no such panel.

        \(CommandOption.helpBlock(CommandOption.options(of: .reload), extra: [help]))
        """

    static let config = """
        \(CommandOption.usage("Usage: widgethost config add KIND", CommandOption.options(of: .config)))\
               widgethost config remove N [--config PATH]

        Edit the config file as edit mode does (E on the dashboard): add a panel of KIND at the
        end of a page, or remove panel N (1 is the first, page after page). With no config file
        yet, it is created from the default dashboard. The file is checked as check-config
        checks it before it is written; it is replaced atomically, the old one kept as
        config.json.bak, in a stable key order. A running dashboard reloads it.

        Exit status: 0 written; 2 bad usage or a change check-config refuses (its errors are
        listed, nothing is written); 1 the file could not be written.

        \(CommandOption.helpBlock(CommandOption.options(of: .config), extra: [help]))
        """

    static let activity = """
        \(CommandOption.usage("Usage: widgethost activity start|update|end|list [ID]", CommandOption.options(of: .activity)))\
          start ID --title TEXT [--detail TEXT] [--progress P] [--stale-after TIME]
          update ID [--title TEXT] [--detail TEXT] [--progress P] [--stale-after TIME]
          end ID [--state success|failure|cancelled] [--detail TEXT] [--dismiss-after TIME]
          list [--json]

        Live Activities: a build, a deploy, a match, shown by the dashboard running on the
        state directory in its activities panels, or in the status bar when none is on the
        page. One not updated within --stale-after is drawn stale; an ended one leaves after
        --dismiss-after. IDs are 1 to 64 of A-Z a-z 0-9 . _ -; at most 64 at once. They are
        kept in the state directory: a restarted dashboard shows them again, and list reads
        them with no dashboard running.

          make test
          widgethost activity end tests --state $([ $? = 0 ] && echo success || echo failure)

        Exit status: 0 done, 2 bad usage (or a request the dashboard refuses), 1 no dashboard running.

        \(CommandOption.helpBlock(CommandOption.options(of: .activity), extra: [help]))
        """

    static let events = """
        \(CommandOption.usage("Usage: widgethost events", CommandOption.options(of: .events)))\

        The history of Live Activities (starts and ends) and alerts, oldest first, from the
        state directory's journal (the newest 10,000 are kept). Works with no dashboard running.

        \(CommandOption.helpBlock(CommandOption.options(of: .events), extra: [help]))
        """

    static let sessions = """
        \(CommandOption.usage("Usage: widgethost sessions", CommandOption.options(of: .sessions)))\

        List the background sessions recorded in the state directory's journal.

        \(CommandOption.helpBlock(CommandOption.options(of: .sessions), extra: [help]))
        """
}
