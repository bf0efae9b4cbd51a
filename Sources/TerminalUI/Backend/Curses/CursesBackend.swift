import CNcurses
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Draws frames on the real terminal with ncursesw, and reads keys from it.
///
/// Creating one takes over the terminal: `setlocale(LC_ALL, "")`, `newterm` on stdout/stdin
/// (never `initscr`, which exits the process on a bad `TERM`), cbreak, noecho, nonl, keypad,
/// nodelay, `set_escdelay(25)`, hidden cursor, one colour pair per `StyleRole` from the
/// theme (two in the `accented` rendering mode: the role's and its accentable tone) (see `TerminalPalette`; `init_color` is never called). `present` sends only the
/// cells changed since the previous frame, then one `doupdate`.
///
/// While the backend owns the screen, a fatal signal that no one else handles (a Swift trap's
/// SIGILL, SIGSEGV, SIGBUS, SIGABRT, SIGQUIT, SIGUSR1…) still gives the terminal back: a C
/// handler (CNcurses `restore.h`) leaves the alternate screen, shows the cursor and restores
/// the termios saved before curses changed them, then lets the Swift backtracer print on the
/// normal screen and ends the process with that signal. `end()` removes the handlers.
///
/// Threading: ncurses is not thread-safe. Create, use and end the backend on one thread —
/// the main actor in the host; the type is deliberately not `Sendable`. Call `end()` (or
/// let the backend deinit) before printing anything, on every exit path, to restore the
/// terminal; for Ctrl-Z call `suspend()` before stopping and `resume()` after `SIGCONT`.
///
/// ```swift
/// let terminal = try CursesBackend(theme: theme)
/// defer { terminal.end() }
/// var frame = CellBuffer(width: terminal.size.columns, height: terminal.size.rows)
/// Box(title: "Clock", glyphs: terminal.glyphs).draw(into: &frame, in: frame.bounds)
/// try terminal.present(frame)
/// ```
public final class CursesBackend: TerminalBackend {
    public private(set) var size: TerminalSize
    /// The colours the terminal offers (after `NO_COLOR`).
    public let capability: ColorCapability
    /// Unicode or ASCII glyphs, from the locale.
    public let glyphs: GlyphSet
    /// How the frame uses colour: the user's choice, else `RenderingMode.detect(capability:)`.
    public let renderingMode: RenderingMode
    /// The theme as mapped to this terminal.
    public private(set) var palette: TerminalPalette

    private let screen: OpaquePointer
    private var pairs: [StyleRole: Int16] = [:]
    /// The pairs of accentable cells in the `accented` mode (empty in the others).
    private var accentPairs: [StyleRole: Int16] = [:]
    private var previous: CellBuffer?
    /// Linked text is sent as OSC 8 hyperlinks (`Hyperlinks.supported`).
    private let hyperlinks: Bool
    /// The linked cells last sent as hyperlinks (sent again only when they change).
    private var sentLinks: [CellBuffer.LinkArea: [Cell]] = [:]
    private var ended = false
    private var suspended = false

    /// Takes over the terminal named by `TERM` in `environment`, drawing in `renderingMode`
    /// (nil: the terminal's, `RenderingMode.detect(capability:)`).
    ///
    /// Throws `TerminalError` when `TERM` is missing or unknown, or stdin/stdout is not a
    /// terminal; the terminal is untouched then.
    public init(theme: Theme, environment: [String: String] = ProcessInfo.processInfo.environment,
                renderingMode: RenderingMode? = nil) throws(TerminalError) {
        setlocale(LC_ALL, "")
        guard let term = environment["TERM"], !term.isEmpty else { throw .missingTerminalType }
        guard isatty(0) == 1, isatty(1) == 1 else { throw .notATerminal }
        // Before newterm: the settings a fatal signal restores are the user's, not curses'.
        wh_restore_save_termios(1)
        guard let screen = newterm(term, wh_stdout(), wh_stdin()) else { throw .unknownTerminalType(term) }
        self.screen = screen
        set_term(screen)
        // From here on a fatal signal gives the terminal back (its bytes come from this
        // terminal's terminfo entry, loaded by newterm).
        _ = wh_restore_install()
        glyphs = GlyphSet.forLocale(environment: environment)
        var colors = 0
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        // start_color would paint everything white on black; with NO_COLOR leave colours alone.
        if has_colors() && !noColor {
            start_color()
            colors = Int(wh_colors())
        }
        capability = ColorCapability.detect(terminalName: term, colors: colors, environment: environment)
        hyperlinks = Hyperlinks.supported(environment: environment)
        self.renderingMode = renderingMode ?? RenderingMode.detect(capability: capability)
        palette = TerminalPalette(theme: theme, capability: capability, mode: self.renderingMode)
        size = TerminalSize(columns: Int(wh_cols()), rows: Int(wh_lines()))
        cbreak()
        noecho()
        nonl()
        intrflush(wh_stdscr(), false)
        keypad(wh_stdscr(), true)
        nodelay(wh_stdscr(), true)
        scrollok(wh_stdscr(), false)
        leaveok(wh_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        allocatePairs()
    }

    deinit { end() }

    /// Turns mouse reports on or off (`"mouse": false` in the config leaves the mouse to the
    /// terminal: selecting text without Shift).
    public func setMouse(_ on: Bool) {
        guard !ended else { return }
        _ = wh_mouse_enable(on ? 1 : 0)
    }

    /// Switches to another theme; the next `present` redraws everything.
    public func setTheme(_ theme: Theme) {
        guard !ended else { return }
        palette = TerminalPalette(theme: theme, capability: capability, mode: renderingMode)
        allocatePairs()
        previous = nil
        sentLinks = [:]
    }

    /// Shows `buffer`, sending only the cells that changed since the last call.
    ///
    /// Cells outside the screen are skipped (the host should size the buffer from `size`).
    /// Does nothing after `end()` or while suspended.
    public func present(_ buffer: CellBuffer) {
        guard !ended, !suspended else { return }
        guard let window = wh_stdscr() else { return }
        if previous == nil || previous?.width != buffer.width || previous?.height != buffer.height {
            werase(window)
        }
        for run in buffer.changes(since: previous) {
            for (offset, cell) in run.cells.enumerated() where !cell.isContinuation {
                put(cell, x: run.x + offset, y: run.y, in: window)
            }
        }
        previous = buffer
        wnoutrefresh(window)
        doupdate()
        if hyperlinks { sendHyperlinks(buffer) }
    }

    /// Draws the buffer's linked cells again inside OSC 8 sequences, after curses drew them:
    /// the same glyphs in the same attributes, now links the terminal can open. Only when the
    /// linked cells changed; the cursor and attributes are left where curses believes them.
    private func sendHyperlinks(_ buffer: CellBuffer) {
        var current: [CellBuffer.LinkArea: [Cell]] = [:]
        for area in buffer.links where Hyperlinks.isEmbeddable(area.url) {
            // The last cell of the screen is left alone: writing it may scroll.
            guard area.rect.y < size.rows - 1 || area.rect.maxX < size.columns else { continue }
            current[area] = (area.rect.x..<area.rect.maxX).map { buffer[$0, area.rect.y] }
        }
        guard current != sentLinks else { return }
        sentLinks = current
        guard !current.isEmpty else { return }
        let (homeRow, homeColumn) = (wh_cursor_row(), wh_cursor_column())
        var (row, column) = (homeRow, homeColumn)
        for area in buffer.links {
            guard let cells = current[area] else { continue }
            wh_move_cursor(row, column, Int32(area.rect.y), Int32(area.rect.x))
            (row, column) = (Int32(area.rect.y), Int32(area.rect.x))
            wh_put_bytes("\u{1b}]8;;\(area.url)\u{1b}\\")
            for cell in cells where !cell.isContinuation {
                let look = palette.resolve(cell.style)
                var attributes = wh_a_normal()
                if look.attributes.contains(.bold) { attributes |= wh_a_bold() }
                if look.attributes.contains(.dim) { attributes |= wh_a_dim() }
                if look.attributes.contains(.reverse) { attributes |= wh_a_reverse() }
                if look.attributes.contains(.underline) { attributes |= wh_a_underline() }
                wh_set_attributes(attributes, pair(for: cell.style))
                wh_put_bytes(cell.grapheme)
                column += Int32(max(1, cell.grapheme.unicodeScalars.first.map(DisplayWidth.of) ?? 1))
            }
            wh_put_bytes("\u{1b}]8;;\u{1b}\\")
        }
        wh_set_attributes(wh_a_normal(), 0)
        wh_move_cursor(row, column, homeRow, homeColumn)
        wh_flush_output()
    }

    /// Rings the terminal's bell (an alert's `notify.bell`).
    public func bell() {
        guard !ended, !suspended else { return }
        wh_put_bytes("\u{07}")
        wh_flush_output()
    }

    /// Asks the terminal for a desktop notification (OSC 9), inside tmux's passthrough when
    /// `inTmux`. `text` is sanitised (no control character reaches the terminal) and cut to
    /// 200 characters. The cursor does not move: curses' idea of the screen stays true.
    public func notifyDesktop(_ text: String, inTmux: Bool) {
        guard !ended, !suspended else { return }
        let clean = String(Sanitizer.sanitize(text).prefix(200))
        let sequence = "\u{1b}]9;\(clean)\u{07}"
        wh_put_bytes(inTmux ? "\u{1b}Ptmux;" + sequence.replacingEscapes() + "\u{1b}\\" : sequence)
        wh_flush_output()
    }

    /// Drains pending input and returns the keys, oldest first (empty when none).
    ///
    /// Call when stdin is readable (a Dispatch read source on fd 0): input is non-blocking,
    /// so this never waits. A `.resize` from curses also updates `size`.
    public func readKeys() -> [Key] {
        guard !ended, !suspended else { return [] }
        var keys: [Key] = []
        var value: wint_t = 0
        while true {
            let result = wget_wch(wh_stdscr(), &value)
            if result == ERR { break }
            if result == wh_key_code_yes(), Int32(bitPattern: value) == wh_key_mouse() {
                // One KEY_MOUSE may stand for several reports read at once (a double click
                // in one read): take every event queued.
                var x: Int32 = 0, y: Int32 = 0
                var events: [Key] = []
                while true {
                    let kind = wh_mouse_event(&x, &y)
                    if kind < 0 { break }
                    switch kind {
                    case 1: events.append(.mouse(MouseEvent(.press, column: Int(x), row: Int(y))))
                    case 2: events.append(.mouse(MouseEvent(.wheelUp, column: Int(x), row: Int(y))))
                    case 3: events.append(.mouse(MouseEvent(.wheelDown, column: Int(x), row: Int(y))))
                    default: break  // a release, a button we did not ask for
                    }
                }
                // getmouse gives the newest first.
                keys += events.reversed()
            } else if result == wh_key_code_yes() {
                let key = Self.decode(keyCode: Int32(bitPattern: value))
                if key == .resize { adoptCursesSize() }
                keys.append(key)
            } else {
                keys.append(Key(character: UInt32(value)))
            }
        }
        return keys
    }

    /// Tells curses the terminal is now `size` (after SIGWINCH); the next `present`
    /// redraws everything. Safe to call again with the same size.
    public func resize(to newSize: TerminalSize) {
        guard !ended, newSize.columns > 0, newSize.rows > 0 else { return }
        if newSize != size || Int(wh_cols()) != newSize.columns || Int(wh_lines()) != newSize.rows {
            resizeterm(Int32(newSize.rows), Int32(newSize.columns))
        }
        adoptCursesSize()
    }

    /// Gives the terminal back before the process stops (Ctrl-Z): `endwin`, keeping state.
    public func suspend() {
        guard !ended, !suspended else { return }
        suspended = true
        endwin()
        wh_restore_leave_screen()
    }

    /// Takes the terminal again after `SIGCONT`, picking up a size change and repainting.
    public func resume() {
        guard !ended, suspended else { return }
        suspended = false
        // What the terminal is set to now is the user's choice while we were stopped: both
        // endwin and the fatal-signal handler restore that from now on.
        def_shell_mode()
        wh_restore_take_screen()
        if let current = Self.windowSize() { resize(to: current) }
        clearok(wh_curscr(), true)
        previous = nil
        sentLinks = [:]
        wrefresh(wh_stdscr())
    }

    /// Restores the terminal (`endwin`) and removes the fatal-signal handlers, so what the
    /// program prints and how it ends afterwards is as without curses. Safe to call more than
    /// once; the backend is inert afterwards.
    public func end() {
        guard !ended else { return }
        ended = true
        if !suspended { endwin() }
        wh_restore_uninstall()
        delscreen(screen)
    }

    /// The size of the terminal on `fd` from `ioctl(TIOCGWINSZ)`, or nil when `fd` is not a
    /// terminal. Use it in a SIGWINCH handler, then call `resize(to:)`.
    public static func windowSize(fd: Int32 = 1) -> TerminalSize? {
        var rows: Int32 = 0, columns: Int32 = 0
        guard wh_window_size(fd, &rows, &columns) == 0 else { return nil }
        return TerminalSize(columns: Int(columns), rows: Int(rows))
    }

    /// Maps a curses key code (`KEY_*`) to a `Key`.
    static func decode(keyCode code: Int32) -> Key {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_BTAB: .backTab
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_IC: .insert
        case wh_key_resize(): .resize
        case (KEY_F0 + 1)...(KEY_F0 + 63): .function(Int(code - KEY_F0))
        default: .unknown(code)
        }
    }

    private func adoptCursesSize() {
        size = TerminalSize(columns: Int(wh_cols()), rows: Int(wh_lines()))
        previous = nil
        sentLinks = [:]
    }

    private func allocatePairs() {
        pairs = [:]
        accentPairs = [:]
        guard capability != .none, palette.capability != .none else { return }
        let defaultsWork = use_default_colors() != ERR
        let direct = capability == .direct
        let roles = StyleRole.allCases
        for (index, role) in roles.enumerated() {
            for accentable in palette.mode == .accented ? [false, true] : [false] {
                let look = accentable ? palette[accentable: role] : palette[role]
                var fg = look.foreground.cursesNumber(direct: direct)
                var bg = look.background.cursesNumber(direct: direct)
                if !defaultsWork {
                    if fg < 0 { fg = 7 }
                    if bg < 0 { bg = 0 }
                }
                let pair = Int32(index + 1 + (accentable ? roles.count : 0))
                guard init_extended_pair(pair, fg, bg) != ERR else { continue }
                if accentable { accentPairs[role] = Int16(pair) } else { pairs[role] = Int16(pair) }
            }
        }
    }

    /// The colour pair of a cell in `style` (0, the terminal's, when none was made).
    private func pair(for style: CellStyle) -> Int16 {
        (style.accentable ? accentPairs[style.role] : nil) ?? pairs[style.role] ?? 0
    }

    private func put(_ cell: Cell, x: Int, y: Int, in window: UnsafeMutablePointer<WINDOW>) {
        guard x < size.columns, y < size.rows else { return }
        let look = palette.resolve(cell.style)
        var attributes = wh_a_normal()
        if look.attributes.contains(.bold) { attributes |= wh_a_bold() }
        if look.attributes.contains(.dim) { attributes |= wh_a_dim() }
        if look.attributes.contains(.reverse) { attributes |= wh_a_reverse() }
        if look.attributes.contains(.underline) { attributes |= wh_a_underline() }
        let pair = pair(for: cell.style)
        var characters = cell.grapheme.unicodeScalars.prefix(5).map { wchar_t(bitPattern: $0.value) }
        characters.append(0)
        let width = cell.grapheme.unicodeScalars.first.map(DisplayWidth.of) ?? 1
        let touchesLastCell = y == size.rows - 1 && x + max(1, width) >= size.columns
        _ = touchesLastCell
            ? wh_ins_wch(window, Int32(y), Int32(x), characters, attributes, pair)
            : wh_put_wch(window, Int32(y), Int32(x), characters, attributes, pair)
    }
}

private extension String {
    /// Every ESC doubled, as tmux's passthrough (`ESC P tmux; … ESC \\`) wants its content.
    func replacingEscapes() -> String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar == "\u{1b}" { out.unicodeScalars.append(scalar) }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
