import JSONTree
import Widgets

/// The config's panels and pages: a top-level `panels` list is one page; `pages` are runs of
/// one list, each with a title and maybe a grid (`GridTemplate`) whose areas its panels name.
extension ConfigValidator {
    /// Most pages a dashboard may have: keys 1 to 9 go to them.
    public static let maximumPages = 9

    /// A page's (or the top level's) `panels`: a non-empty array of panel objects.
    func panelList(_ value: JSONValue, at path: ConfigPath, minimumReloadSeconds: Int,
                           into report: inout ConfigReport) -> [PanelConfig] {
        guard case .array(let elements) = value else {
            report.errors.append(ConfigDiagnostic(path: path, message: "expected an array of panels, got \(value.shortDescription)"))
            return []
        }
        if elements.isEmpty {
            report.errors.append(ConfigDiagnostic(path: path, message: "expected at least one panel, got an empty array"))
            return []
        }
        if elements.count > Self.maximumPanels {
            report.errors.append(ConfigDiagnostic(path: path,
                message: "expected at most \(Self.maximumPanels) panels, got \(elements.count)"))
            return []
        }
        return elements.enumerated().compactMap { index, element in
            panel(element, at: path.appending(index: index), stackFamily: nil, minimumReloadSeconds: minimumReloadSeconds,
                  into: &report)
        }
    }

    /// `pages`: 1 to 9 page objects (`title`, `panels`, an optional `grid`); their panels in
    /// one list, each page a run of it.
    func pageList(_ value: JSONValue, at path: ConfigPath, minimumReloadSeconds: Int,
                          into report: inout ConfigReport) -> ([PanelConfig], [PageConfig]) {
        guard case .array(let elements) = value, (1...Self.maximumPages).contains(elements.count) else {
            var got = value.shortDescription
            if case .array(let elements) = value { got = "\(elements.count)" }
            report.errors.append(ConfigDiagnostic(path: path,
                message: "expected 1 to \(Self.maximumPages) pages (keys 1-9 go to them), got \(got)"))
            return ([], [])
        }
        var panels: [PanelConfig] = []
        var pages: [PageConfig] = []
        for (index, element) in elements.enumerated() {
            let pagePath = path.appending(index: index)
            guard case .object(let page) = element else {
                report.errors.append(ConfigDiagnostic(path: pagePath,
                    message: "expected a page object with 'title' and 'panels', got \(element.shortDescription)"))
                continue
            }
            reportUnknownKeys(in: page, at: pagePath, allowed: ["title", "panels", "grid", "columns", "rows"], what: "key",
                              into: &report)
            var title = "Page \(index + 1)"
            if let value = page["title"] {
                if case .string(let text) = value, !text.isEmpty, text.unicodeScalars.count <= 40,
                   !text.unicodeScalars.contains("\u{0}") {
                    title = text
                } else {
                    report.errors.append(ConfigDiagnostic(path: pagePath.appending(key: "title"),
                        message: "expected a tab title of 1 to 40 characters, got \(value.shortDescription)"))
                }
            }
            let pagePanelsPath = pagePath.appending(key: "panels")
            guard let list = page["panels"] else {
                report.errors.append(ConfigDiagnostic(path: pagePanelsPath, message: "missing required key: the page's panels"))
                continue
            }
            let own = panelList(list, at: pagePanelsPath, minimumReloadSeconds: minimumReloadSeconds, into: &report)
            let grid = GridTemplate.parse(page, at: pagePath, problems: &report.errors)
            checkAreas(of: own, grid: grid, gridPresent: page.contains("grid"), at: pagePanelsPath, into: &report)
            pages.append(PageConfig(title: title, panels: panels.count..<(panels.count + own.count), grid: grid))
            panels += own
        }
        return (panels, pages)
    }

    /// On a page with a grid every panel names one of its areas, each area once, and every
    /// area has its panel (no holes); on a page without one no panel names an area.
    func checkAreas(of panels: [PanelConfig], grid: GridTemplate?, gridPresent: Bool, at path: ConfigPath,
                            into report: inout ConfigReport) {
        guard let grid else {
            guard !gridPresent else { return }  // the grid's own errors are reported
            for (index, panel) in panels.enumerated() where panel.area != nil {
                report.errors.append(ConfigDiagnostic(path: path.appending(index: index).appending(key: "area"),
                    message: "'area' places a panel on a 'grid': its page has none"))
            }
            return
        }
        let names = grid.areaNames
        var used: [String: Int] = [:]
        for (index, panel) in panels.enumerated() {
            let areaPath = path.appending(index: index).appending(key: "area")
            guard let area = panel.area else {
                report.errors.append(ConfigDiagnostic(path: path.appending(index: index),
                    message: "missing 'area': every panel of a page with a grid names its area (one of \(names.joined(separator: ", ")))"))
                continue
            }
            if !names.contains(area) {
                let hint = EditDistance.suggestion(for: area, among: names).map { "; did you mean '\($0)'?" }
                    ?? "; the grid's areas: " + names.joined(separator: ", ")
                report.errors.append(ConfigDiagnostic(path: areaPath, message: "no area '\(area)' in the grid" + hint))
            } else if let other = used[area] {
                report.errors.append(ConfigDiagnostic(path: areaPath,
                    message: "area '\(area)' is already panel \(other + 1)'s: an area holds one panel"))
            } else {
                used[area] = index
            }
        }
        let empty = names.filter { used[$0] == nil }
        if !empty.isEmpty, report.errors.allSatisfy({ !$0.path.description.hasPrefix(path.description) }) {
            report.errors.append(ConfigDiagnostic(path: path,
                message: "area\(empty.count == 1 ? "" : "s") \(empty.map { "'\($0)'" }.joined(separator: ", ")) of the grid "
                    + "\(empty.count == 1 ? "has" : "have") no panel: every area is a panel's (no holes)"))
        }
    }
}
