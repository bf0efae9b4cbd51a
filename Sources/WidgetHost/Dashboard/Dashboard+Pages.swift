import FoundationEssentials
import TerminalUI
import WidgetCore

/// Pages (DESIGN.md §9): the config's panels in runs, one shown at a time. Keys `1`–`9` (and a
/// click on a tab) go to a page; `rotateSeconds` cycles them, any key holding the rotation for
/// that long. Panels of the pages not shown keep their timelines and sessions, but their
/// entries wake nothing (`TimelineState.setHidden`).
extension Dashboard {
    /// The panels of the page shown: indices into `panels`.
    var pageRange: Range<Int> {
        guard pages.indices.contains(page) else { return 0..<panels.count }
        let range = pages[page].panels
        return min(range.lowerBound, panels.count)..<min(range.upperBound, panels.count)
    }

    /// The page shown's explicit grid, if it has one.
    var pageGrid: GridTemplate? { pages.indices.contains(page) ? pages[page].grid : nil }

    /// The pages' tabs for the status bar (none for a dashboard of one page).
    var pageTabs: [String] {
        guard pages.count > 1 else { return [] }
        return pages.enumerated().map { "\($0.offset + 1) \($0.element.title ?? "Page \($0.offset + 1)")" }
    }

    /// Uses `newPages` (construction, a reloaded config), keeping the page shown when it is
    /// still there.
    mutating func setPages(_ newPages: [PageConfig], rotateSeconds seconds: Int?) {
        pages = newPages
        rotateSeconds = seconds
        if !pages.indices.contains(page) { page = 0 }
    }

    /// Shows page `index` (`1`–`9`, a tab clicked, the rotation): its panels laid out, the
    /// first focused, the others' entries asleep.
    mutating func show(page index: Int) {
        guard pages.indices.contains(index), index != page else { return }
        page = index
        focus = pageRange.lowerBound
        isZoomed = false
        scrollOffset = 0
        relayout()
        updateHidden()
        emit(.present)
    }

    /// Tells the timelines which instances are on a page not shown.
    mutating func updateHidden() {
        let shown = pageRange
        let hidden = panels.indices.filter { !shown.contains($0) }.flatMap { panels[$0].members.map(\.id) }
        timelines.setHidden(hidden, true, now: now)
        timelines.setHidden(panels[shown].flatMap { $0.members.map(\.id) }, false, now: now)
    }

    /// Arms the rotation `rotateSeconds` from now (a key holds it that long), or disarms it.
    mutating func armRotation() {
        let date = rotateSeconds.flatMap { pages.count > 1 ? now + TimeInterval($0) : nil }
        guard date != rotationDate else { return }
        rotationDate = date
        emit(.armPageRotation(date))
    }

    /// The rotation's wake-up came (`update(.pageRotationDue)`): the next page.
    mutating func rotatePage() {
        rotationDate = nil
        show(page: (page + 1) % max(1, pages.count))
        armRotation()
    }
}
