import JSONTree
import Widgets

/// A page's explicit grid, as CSS `grid-template-areas` (DESIGN.md §9): rows of area names,
/// each area a rectangle of cells, each a panel's (`PanelConfig.area`); column and row
/// weights share the width and height out.
///
/// ```json
/// "grid": ["board board hero clock", "board board sys sys"], "columns": [2, 2, 1, 1], "rows": [1, 1]
/// ```
public struct GridTemplate: Sendable, Equatable {
    /// One area's cells: `columns` and `rows` of the template.
    public struct Area: Sendable, Equatable {
        public var column: Int, row: Int, columns: Int, rows: Int
    }

    /// The names, row by row.
    public var cells: [[String]]
    /// Weights of the columns and rows (all 1 when the config gives none).
    public var columnWeights: [Int]
    public var rowWeights: [Int]

    /// Most rows and columns a grid may have.
    public static let maximumTracks = 12
    /// Largest weight.
    public static let maximumWeight = 100

    /// Where the area `name` is, if the grid has it.
    public func area(named name: String) -> Area? {
        var found: Area?
        for (y, row) in cells.enumerated() {
            for (x, cell) in row.enumerated() where cell == name {
                if let area = found {
                    let right = max(area.column + area.columns, x + 1), bottom = max(area.row + area.rows, y + 1)
                    found = Area(column: min(area.column, x), row: min(area.row, y), columns: right - min(area.column, x),
                                 rows: bottom - min(area.row, y))
                } else {
                    found = Area(column: x, row: y, columns: 1, rows: 1)
                }
            }
        }
        return found
    }

    /// The area names, in order of first appearance.
    public var areaNames: [String] {
        var seen: [String] = []
        for name in cells.joined() where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// Reads `grid`, `columns` and `rows` of `object` (a page, or the top level); nil when
    /// there is no `grid` (and then `columns`/`rows` are errors) or when it is wrong, with
    /// every problem in `problems`, each naming its key path and saying what is wrong in
    /// words ("area 'board' is not a rectangle: rows 1 and 2 differ").
    static func parse(_ object: JSONObject, at path: ConfigPath, problems: inout [ConfigDiagnostic]) -> GridTemplate? {
        let gridPath = path.appending(key: "grid")
        guard let value = object["grid"] else {
            for key in ["columns", "rows"] where object.contains(key) {
                problems.append(ConfigDiagnostic(path: path.appending(key: key), message: "'\(key)' needs a 'grid' beside it"))
            }
            return nil
        }
        let before = problems.count
        guard case .array(let rows) = value, !rows.isEmpty, rows.count <= maximumTracks else {
            problems.append(ConfigDiagnostic(path: gridPath,
                message: "expected 1 to \(maximumTracks) rows of area names (strings), got \(value.shortDescription)"))
            return nil
        }
        var cells: [[String]] = []
        for (index, row) in rows.enumerated() {
            let rowPath = gridPath.appending(index: index)
            guard case .string(let text) = row else {
                problems.append(ConfigDiagnostic(path: rowPath, message: "expected a row of area names, got \(row.shortDescription)"))
                continue
            }
            let names = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if names.isEmpty || names.count > maximumTracks {
                problems.append(ConfigDiagnostic(path: rowPath, message: "expected 1 to \(maximumTracks) area names, got \(names.count)"))
                continue
            }
            if let bad = names.first(where: { !isAreaName($0) }) {
                let why = bad == "." ? "an empty cell ('.') would be a hole: every cell names a panel's area"
                    : "area names are letters, digits, '-' and '_' (at most 40)"
                problems.append(ConfigDiagnostic(path: rowPath, message: "\(JSONValue.string(bad).shortDescription): \(why)"))
                continue
            }
            if let first = cells.first, first.count != names.count {
                problems.append(ConfigDiagnostic(path: rowPath,
                    message: "row \(index + 1) has \(names.count) areas, row 1 has \(first.count): every row has as many"))
                continue
            }
            cells.append(names)
        }
        guard problems.count == before else { return nil }
        let template = GridTemplate(cells: cells, columnWeights: Array(repeating: 1, count: cells[0].count),
                                    rowWeights: Array(repeating: 1, count: cells.count))
        for name in template.areaNames {
            guard let area = template.area(named: name) else { continue }
            // Every row of the area covers the same columns, and every cell between is its.
            let columnsOf = { (y: Int) in cells[y].indices.filter { cells[y][$0] == name } }
            let first = columnsOf(area.row)
            if let other = (area.row..<(area.row + area.rows)).first(where: { columnsOf($0) != first }) {
                problems.append(ConfigDiagnostic(path: gridPath,
                    message: "area '\(name)' is not a rectangle: rows \(area.row + 1) and \(other + 1) differ"))
            } else if let gap = (area.column..<(area.column + area.columns)).first(where: { cells[area.row][$0] != name }) {
                problems.append(ConfigDiagnostic(path: gridPath,
                    message: "area '\(name)' is not a rectangle: '\(cells[area.row][gap])' is inside it (column \(gap + 1))"))
            }
        }
        var result = template
        if let weights = weights(object["columns"], count: cells[0].count, what: "columns",
                                 at: path.appending(key: "columns"), problems: &problems) {
            result.columnWeights = weights
        }
        if let weights = weights(object["rows"], count: cells.count, what: "rows", at: path.appending(key: "rows"), problems: &problems) {
            result.rowWeights = weights
        }
        return problems.count == before ? result : nil
    }

    private static func weights(_ value: JSONValue?, count: Int, what: String, at path: ConfigPath,
                                problems: inout [ConfigDiagnostic]) -> [Int]? {
        guard let value else { return nil }
        guard case .array(let elements) = value, elements.count == count else {
            var got = value.shortDescription
            if case .array(let elements) = value { got = "\(elements.count)" }
            problems.append(ConfigDiagnostic(path: path,
                message: "expected \(count) weights, one per grid \(what == "columns" ? "column" : "row"), got \(got)"))
            return nil
        }
        var weights: [Int] = []
        for (index, element) in elements.enumerated() {
            guard case .integer(let weight) = element, (1...maximumWeight).contains(weight) else {
                problems.append(ConfigDiagnostic(path: path.appending(index: index),
                    message: "expected a weight from 1 to \(maximumWeight), got \(element.shortDescription)"))
                return nil
            }
            weights.append(weight)
        }
        return weights
    }

    static func isAreaName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}
