import FoundationEssentials
import TerminalUI

/// The mouse (DESIGN.md §9): a click focuses the panel under it or switches to the page tab
/// under it, and opens the link of linked text under it; a double click zooms the panel (or
/// back); the wheel scrolls a zoomed panel.
extension Dashboard {
    /// Two presses on one panel within this long are a double click.
    static let doubleClickSeconds: TimeInterval = 0.4

    /// Applies a mouse report; false when it changed nothing (no frame).
    mutating func handleMouse(_ event: MouseEvent) -> Bool {
        switch event.kind {
        case .wheelUp, .wheelDown:
            guard isZoomed else { return false }
            scroll(by: event.kind == .wheelUp ? -3 : 3)
            return true
        case .press:
            if event.row == size.rows - 1 {
                // The status bar: a page tab.
                guard let tab = statusTabs.firstIndex(where: { $0.contains(event.column) }) else { return false }
                show(page: tab)
                return true
            }
            guard let index = panel(at: event.column, event.row) else { return false }
            // A click on linked text opens it (the frame as drawn now says where links are).
            if let url = render(at: now).link(atX: event.column, y: event.row) { emit(.openURL(url)) }
            let double = lastClick.map { $0.panel == index && now.timeIntervalSince($0.date) <= Self.doubleClickSeconds } ?? false
            lastClick = double ? nil : (now, index)
            if double {
                isZoomed.toggle()
                scrollOffset = 0
            } else if index != focus {
                focus = index
                scrollOffset = 0
            }
            return true
        }
    }

    /// `o`: opens the link of the entry the focused panel shows (its widget's `url`), or says
    /// there is none.
    mutating func openLink() {
        guard let member = focusedPanel?.shownMember, let url = timelines.status(of: member.id)?.entry?.url else {
            flash = "this panel has no link to open"
            return
        }
        emit(.openURL(url))
    }

    /// The panel drawn at a cell: the zoomed one, or the one whose frame holds it.
    func panel(at column: Int, _ row: Int) -> Int? {
        if isZoomed { return panelArea.contains(x: column, y: row) ? focus : nil }
        return shownPanels.first { $0.frame.contains(x: column, y: row) }?.index
    }
}
