import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

extension Dashboard {
    /// Draws the whole frame at `now` (the data's age in footers): panels (or the zoomed one),
    /// the status bar, the help overlay, or the "terminal too small" notice.
    func render(at now: Date) -> CellBuffer {
        var buffer = CellBuffer(width: size.columns, height: size.rows)
        if isTooSmall {
            drawTooSmall(into: &buffer)
            return buffer
        }
        if isZoomed, let panel = focusedPanel {
            drawPanel(panel, in: panelArea, focused: true, zoomed: true, now: now, scroll: scrollOffset, into: &buffer)
        } else {
            for (index, panel, frame) in shownPanels {
                drawPanel(panel, in: frame, focused: index == focus, zoomed: false, now: now, scroll: 0, into: &buffer)
            }
        }
        if isPrivate { buffer.redactPrivate(glyphs: glyphs) }
        if let gallery = edit?.gallery { drawGallery(gallery, into: &buffer) }
        if let form = edit?.form { drawForm(form, into: &buffer) }
        drawStatusBar(into: &buffer, now: now)
        if isHelpShown { drawHelp(into: &buffer) }
        return buffer
    }

    private func drawPanel(_ panel: DashboardPanel, in frame: Rect, focused: Bool, zoomed: Bool, now: Date, scroll: Int,
                           into buffer: inout CellBuffer) {
        // A stack's position ("2/3") stays when its title is cut to fit the border.
        let room = max(0, frame.width - 4 - DisplayWidth.of(panel.position))
        let title = room > 0 ? DisplayWidth.truncate(panel.title, toWidth: room, ellipsis: glyphs.ellipsis) + panel.position : panel.title
        let alert = alertRole(of: panel)
        // Without every colour, an alert's border says its level by its lines too.
        let boxGlyphs = alert == nil || renderingMode == .fullColor ? glyphs : alert == .negative ? glyphs.heavy : glyphs.double
        Box(title: title, focused: focused, glyphs: boxGlyphs, role: alert).draw(into: &buffer, in: frame)
        if let error = panel.setupError {
            let inner = Box.inner(of: frame)
            PanelView.centeredLines([(error, CellStyle(.negative))]).draw(into: &buffer, in: inner, glyphs: glyphs)
            return
        }
        let rects = contentRects(for: panel, in: frame)
        var footer: String?
        for (index, (member, rect)) in zip(panel.members, rects).enumerated() where !panel.isStack || index == panel.shown {
            if panel.isStack {
                TextLine(member.title, style: CellStyle(.title), glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: rect.x, y: rect.y - 1, width: rect.width, height: 1))
            }
            guard let made = memberView(member, in: panel, rect: rect, zoomed: zoomed, now: now) else { continue }
            let (view, context, status) = made
            if context.size.rows > rect.height || scroll > 0 {
                drawScrolled(view, in: rect, scroll: scroll, now: now, into: &buffer)
            } else {
                view.draw(into: &buffer, in: rect, glyphs: glyphs, at: now)
            }
            // Until the first timeline arrives the placeholder is shown redacted, whatever the
            // widget drew (WidgetKit's `.redacted(reason: .placeholder)`).
            if context.isPlaceholder { buffer.redact(rect, glyphs: glyphs) }
            if footer == nil, let status { footer = Self.footer(for: status, now: now, glyphs: glyphs) }
        }
        if let action = actionFooter(for: panel) { footer = action }
        if let footer, frame.height >= 3, frame.width >= 8 {
            let line = Rect(x: frame.x + 2, y: frame.maxY - 1, width: frame.width - 4, height: 1)
            let text = DisplayWidth.truncate(" \(footer) ", toWidth: line.width, ellipsis: glyphs.ellipsis)
            buffer.write(text, x: line.x, y: line.y, style: CellStyle(.warning), clip: line)
        }
    }

    /// Draws a view taller than its area into an off-screen buffer and shows the window at
    /// `scroll` (clamped so the last line can reach the bottom).
    private func drawScrolled(_ view: PanelView, in rect: Rect, scroll: Int, now: Date, into buffer: inout CellBuffer) {
        let height = Self.scrolledHeight(of: view, in: rect)
        var offscreen = CellBuffer(width: rect.width, height: height)
        view.draw(into: &offscreen, in: offscreen.bounds, glyphs: glyphs, at: now)
        // Redacted before the copy: the copy keeps cells, not where private parts were drawn.
        if isPrivate { offscreen.redactPrivate(glyphs: glyphs) }
        let top = min(scroll, max(0, height - rect.height))
        buffer.copy(offscreen, from: Rect(x: 0, y: top, width: rect.width, height: rect.height), toX: rect.x, y: rect.y, clip: rect)
    }

    /// The rows a scrolled view is drawn in: its content height (at most 10 000), at least the area's.
    private static func scrolledHeight(of view: PanelView, in rect: Rect) -> Int {
        max(rect.height, min(view.contentHeight ?? rect.height, 10_000))
    }

    /// The warning shown on a panel's bottom border when its last reload failed: the reason
    /// and the age of the data still shown.
    /// When the daily reload budget holds the next reload back, it says so and when it runs.
    static func footer(for status: TimelineScheduler.Status, now: Date, glyphs: GlyphSet) -> String? {
        let separator = ViewNode.Glyph.separator.text(in: glyphs)
        var parts: [String] = []
        if let failure = status.lastFailure {
            var text = ViewNode.Glyph.warning.text(in: glyphs) + " " + failure.message
            if let success = status.lastSuccess {
                text += separator + "data \(DurationText.age(from: success, to: now)) old"
            }
            parts.append(text)
        }
        if let held = status.heldByBudgetUntil {
            parts.append("daily reload budget used" + separator + "next in \(DurationText.duration(held.timeIntervalSince(now)))")
        }
        return parts.isEmpty ? nil : parts.joined(separator: separator)
    }

    private func drawStatusBar(into buffer: inout CellBuffer, now: Date) {
        guard size.rows >= 1 else { return }
        let row = Rect(x: 0, y: size.rows - 1, width: size.columns, height: 1)
        buffer.fill(row, with: .blank(CellStyle(.statusBar)))
        let separator = " \(glyphs.vertical) "
        var left = edit.map { separator + ($0.isDirty ? "EDIT*" : "EDIT") } ?? ""
        if isPaused { left += separator + "paused" }
        if isPrivate { left += separator + "private" }
        if hiddenPanelCount > 0 {
            left += separator + "+\(hiddenPanelCount) panel\(hiddenPanelCount == 1 ? "" : "s"): enlarge the terminal"
        }
        if let line = activityStatusLine { left += separator + line }
        if let panel = focusedPanel { left += separator + panel.displayTitle }
        if isZoomed { left += " (zoomed, Esc back)" }
        let keys = focusedActions.map { "\($0.action.key) \($0.action.title)" }.joined(separator: "  ")
        let message = editQuestion ?? flash ?? notice
        // Editing, the keys give way to what is said (a question, "saved PATH").
        let right = edit == nil ? (keys.isEmpty ? "" : keys + "  ") + "\(statusTime(at: now))  ? help  q quit "
            : message != nil ? "" : editKeysShown
        let rightWidth = DisplayWidth.of(right)
        buffer.write(right, x: row.maxX - rightWidth, y: row.y, style: CellStyle(.statusText), clip: row)
        let leftArea = Rect(x: 0, y: row.y, width: max(0, row.width - rightWidth - 1), height: 1)
        let bold = CellStyle(.statusText, .bold)
        var x = buffer.write(" widgethost", x: 0, y: row.y, style: bold, clip: leftArea)
        // The pages as tabs, the one shown reversed (`statusTabs`, for a click).
        for (index, tab) in statusTabs.enumerated() {
            let start = index == 0 ? buffer.write(separator, x: x, y: row.y, style: CellStyle(.statusText), clip: leftArea) : x
            x = buffer.write(" \(pageTabs[index]) ", x: max(start, tab.lowerBound), y: row.y,
                             style: index == page ? CellStyle(.statusText, [.bold, .reverse]) : CellStyle(.statusText), clip: leftArea)
        }
        x = buffer.write(DisplayWidth.truncate(left, toWidth: max(0, leftArea.maxX - x), ellipsis: glyphs.ellipsis),
                         x: x, y: row.y, style: bold, clip: leftArea)
        if let message, x + 4 < leftArea.maxX {
            x = buffer.write(separator, x: x, y: row.y, style: CellStyle(.statusText), clip: leftArea)
            let text = DisplayWidth.truncate(message, toWidth: leftArea.maxX - x, ellipsis: glyphs.ellipsis)
            buffer.write(text, x: x, y: row.y, style: CellStyle(.warning, .bold), clip: leftArea)
        }
    }

    /// The columns of each page tab in the status bar (after " widgethost │ "), for drawing
    /// and for a click; empty for a dashboard of one page.
    var statusTabs: [Range<Int>] {
        var x = DisplayWidth.of(" widgethost") + DisplayWidth.of(" \(glyphs.vertical) ")
        return pageTabs.map { tab in
            let width = DisplayWidth.of(" \(tab) ")
            defer { x += width }
            return x..<(x + width)
        }
    }

    static let helpLines: [(String, String)] = [
        ("Tab / Shift-Tab", "next / previous panel"),
        ("arrows, h j k l", "move focus"),
        ("Enter", "zoom the focused panel"),
        ("Esc", "back from zoom"),
        ("↑ ↓ PgUp PgDn", "scroll when zoomed"),
        ("[ ]", "flip through the focused stack"),
        ("o", "open the focused panel's link"),
        ("r", "reload the focused panel"),
        ("R", "reload every panel"),
        ("t", "next theme"),
        ("E", "edit mode: add, arrange, resize, remove, options, save"),
        ("p", "pause / resume automatic reloads"),
        ("P", "privacy mode: hide what widgets mark private"),
        ("?", "this help (any key closes)"),
        ("q, Ctrl-C", "quit"),
    ]

    /// The help of edit mode (`?` in it): its keys, DESIGN.md §10.
    static let editHelpLines: [(String, String)] = [
        ("arrows, h j k l", "move the focus"),
        ("H J K L", "move the focused panel"),
        ("+ -", "the next, previous family its widget supports"),
        ("x", "remove the focused panel"),
        ("u", "undo"),
        ("a", "add a widget (the gallery)"),
        ("Enter", "the focused widget's options (Edit Widget)"),
        ("→ in the form", "pick a dynamic option's value from a list"),
        ("1-9, n", "go to a page, add a page"),
        ("s", "save the config file"),
        ("Esc, q, E", "leave edit mode (asks when unsaved)"),
        ("?", "this help (any key closes)"),
    ]

    /// The help's lines: the host's keys, then the focused panel's own — all the status bar
    /// shows, `r` too when the panel names what its reload does ("run now").
    var helpEntries: [(String, String)] {
        if edit != nil { return Self.editHelpLines }
        var lines = Self.helpLines
        if pages.count > 1 { lines.insert(("1-\(pages.count)", "go to page (or click its tab)"), at: 6) }
        let actions = focusedActions
        guard !actions.isEmpty, let panel = focusedPanel else { return lines }
        return lines + [("", ""), ("", "on \(panel.title):")] + actions.map { ($0.action.key, $0.action.title) }
    }

    private func drawHelp(into buffer: inout CellBuffer) {
        let helpLines = helpEntries
        let keyWidth = helpLines.map { DisplayWidth.of($0.0) }.max() ?? 0
        let textWidth = helpLines.map { DisplayWidth.of($0.1) }.max() ?? 0
        let width = min(size.columns, keyWidth + textWidth + 7)
        let height = min(max(0, size.rows - 1), helpLines.count + 2)
        let frame = Rect(x: (size.columns - width) / 2, y: max(0, (size.rows - 1 - height) / 2), width: width, height: height)
        Box(title: "Keys", focused: true, glyphs: glyphs).draw(into: &buffer, in: frame)
        let inner = Box.inner(of: frame).inset(left: 1, right: 1)
        for (i, line) in helpLines.prefix(inner.height).enumerated() {
            let row = Rect(x: inner.x, y: inner.y + i, width: inner.width, height: 1)
            let after = buffer.write(line.0, x: row.x, y: row.y, style: CellStyle(.accent, .bold), clip: row)
            let column = max(after + 1, row.x + keyWidth + 2)
            buffer.write(DisplayWidth.truncate(line.1, toWidth: max(0, row.maxX - column), ellipsis: glyphs.ellipsis),
                         x: column, y: row.y, clip: row)
        }
    }

    private func drawTooSmall(into buffer: inout CellBuffer) {
        let needed = neededSize
        let lines: [(String, CellStyle)] = [
            (size.columns >= 18 ? "terminal too small" : "too small", CellStyle(.warning, .bold)),
            ("\(size.columns)x\(size.rows), need \(needed.columns)x\(needed.rows)", CellStyle(.muted)),
            ("q quits", CellStyle(.muted)),
        ]
        PanelView.centeredLines(lines).draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    }
}
