import JSONTree

/// A config file's JSON, changed as the user would change it by hand: edit mode and
/// `widgethost config add|remove` both work on this, never on the validated `DashboardConfig`
/// (which has every default filled in), so a saved file says what the user said and no more.
///
/// Panels are numbered as the validator numbers them, page after page (`DashboardConfig.panels`),
/// so a panel's index here is its index on the dashboard. Edits are made on a document that
/// validated; what they make is validated again before it is shown or saved.
public struct ConfigDocument: Sendable, Equatable {
    /// The top-level object.
    public private(set) var root: JSONObject

    /// The document, or nil when it is not an object (validation says why).
    public init?(_ value: JSONValue) {
        guard case .object(let object) = value else { return nil }
        root = object
    }

    public var value: JSONValue { .object(root) }

    /// Whether the config has `pages` (else one page of top-level `panels`).
    public var hasPages: Bool { root.contains("pages") }

    /// Each page's panels (one page for a config without `pages`).
    public var pages: [[JSONValue]] {
        if case .array(let pages)? = root["pages"] {
            return pages.map { page in
                if case .object(let object) = page, case .array(let panels)? = object["panels"] { return panels }
                return []
            }
        }
        if case .array(let panels)? = root["panels"] { return [panels] }
        return [[]]
    }

    /// The panels, page after page.
    public var panels: [JSONValue] { pages.flatMap { $0 } }

    /// The page and the place in it of panel `index` (page after page), or nil.
    public func location(ofPanel index: Int) -> (page: Int, offset: Int)? {
        guard index >= 0 else { return nil }
        var first = 0
        for (page, panels) in pages.enumerated() {
            if index < first + panels.count { return (page, index - first) }
            first += panels.count
        }
        return nil
    }

    /// The index (page after page) of the first panel of `page`.
    public func firstPanel(ofPage page: Int) -> Int {
        pages.prefix(page).reduce(0) { $0 + $1.count }
    }

    /// Puts `panel` at `offset` of `page` (clamped to the page), or at the page's end.
    ///
    /// - Returns: the new panel's index, page after page.
    @discardableResult
    public mutating func insert(_ panel: JSONValue, page: Int, offset: Int? = nil) -> Int {
        var list = pages[safe: page] ?? []
        let at = min(max(offset ?? list.count, 0), list.count)
        list.insert(panel, at: at)
        setPanels(list, ofPage: page)
        return firstPanel(ofPage: page) + at
    }

    /// Removes panel `index`; a page left empty goes too, unless it is the only one.
    ///
    /// - Returns: the removed panel, or nil when there is no such panel.
    @discardableResult
    public mutating func remove(panel index: Int) -> JSONValue? {
        guard let place = location(ofPanel: index) else { return nil }
        var list = pages[place.page]
        let removed = list.remove(at: place.offset)
        if list.isEmpty, hasPages, pages.count > 1, case .array(var all)? = root["pages"] {
            all.remove(at: place.page)
            root = root.setting("pages", .array(all))
        } else {
            setPanels(list, ofPage: place.page)
        }
        return removed
    }

    /// Replaces panel `index` with `panel`; nothing when there is no such panel.
    public mutating func replace(panel index: Int, with panel: JSONValue) {
        guard let place = location(ofPanel: index) else { return }
        var list = pages[place.page]
        list[place.offset] = panel
        setPanels(list, ofPage: place.page)
    }

    /// Swaps panel `index` with the one `by` places later (earlier when negative) on its page.
    ///
    /// - Returns: the panel's new index, or nil when it cannot move that way.
    public mutating func move(panel index: Int, by step: Int) -> Int? {
        guard let place = location(ofPanel: index) else { return nil }
        var list = pages[place.page]
        let target = place.offset + step
        guard list.indices.contains(target) else { return nil }
        list.swapAt(place.offset, target)
        setPanels(list, ofPage: place.page)
        return index + step
    }

    /// Adds an empty page at the end (a config without `pages` gets them, its panels and grid
    /// becoming page 1). Its panels come with the next `insert`; an empty page does not validate.
    ///
    /// - Returns: the new page's index.
    @discardableResult
    public mutating func addPage(title: String) -> Int {
        var all: [JSONValue] = []
        if case .array(let existing)? = root["pages"] {
            all = existing
        } else {
            var first = JSONObject()
            for key in ["panels", "grid", "columns", "rows"] {
                if let value = root[key] {
                    first = first.setting(key, value)
                    root = root.removing(key)
                }
            }
            all = [.object(first.setting("title", .string("Page 1")))]
        }
        all.append(.object(JSONObject(members: [("title", .string(title)), ("panels", .array([]))])))
        root = root.setting("pages", .array(all))
        return all.count - 1
    }

    private mutating func setPanels(_ panels: [JSONValue], ofPage page: Int) {
        guard hasPages else {
            root = root.setting("panels", .array(panels))
            return
        }
        guard case .array(var all)? = root["pages"], all.indices.contains(page),
              case .object(let object) = all[page] else { return }
        all[page] = .object(object.setting("panels", .array(panels)))
        root = root.setting("pages", .array(all))
    }
}

extension JSONObject {
    /// The object with `key` set to `value`: in its place when present, else at the end.
    func setting(_ key: String, _ value: JSONValue) -> JSONObject {
        guard contains(key) else { return JSONObject(members: members + [(key, value)]) }
        return JSONObject(members: members.map { $0.key == key ? (key, value) : $0 })
    }

    /// The object without `key`.
    func removing(_ key: String) -> JSONObject {
        JSONObject(members: members.filter { $0.key != key })
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
