import DateTime
import FoundationEssentials
import JSONTree

extension ViewNode {
    /// Parses a view description from JSON bytes (at most `maximumBytes`).
    ///
    /// - Parameter path: the path of the view in the enclosing document, used as the prefix
    ///   of every error path (`"view"`, `"entries[3].view"`).
    /// - Throws: `ViewDescriptionError` listing every problem: JSON syntax (with line and
    ///   column), size, depth, unknown node types, fields and roles, wrong types and ranges.
    public static func decode(_ bytes: [UInt8], path: String = "view") throws(ViewDescriptionError) -> ViewNode {
        if bytes.count > maximumBytes {
            throw ViewDescriptionError(issues: [.init(
                path: path, message: "the view is \(bytes.count) bytes; the limit is \(maximumBytes)")])
        }
        // Each view level is an object plus its children array; spans, columns and rows add two
        // more. The view's own depth rule is checked on the tree below.
        let parser = JSONParser(maximumBytes: maximumBytes, maximumDepth: 2 * maximumDepth + 4)
        let value: JSONValue
        do {
            value = try parser.parse(bytes)
        } catch {
            throw ViewDescriptionError(issues: [.init(path: path, message: error.description)])
        }
        return try decode(value, path: path)
    }

    /// Validates a parsed JSON value as a view description and builds the tree.
    ///
    /// The value's size is measured as compact JSON (at most `maximumBytes`), so a view
    /// embedded in a larger message obeys the same limit as one parsed alone.
    /// - Throws: `ViewDescriptionError` with every problem found (see `decode(_:path:)`).
    public static func decode(_ value: JSONValue, path: String = "view") throws(ViewDescriptionError) -> ViewNode {
        if let size = ViewDecoder.compactSize(of: value, limit: maximumBytes), size > maximumBytes {
            throw ViewDescriptionError(issues: [.init(
                path: path, message: "the view is more than \(maximumBytes) bytes of JSON; the limit is \(maximumBytes)")])
        }
        var decoder = ViewDecoder()
        let node = decoder.node(value, path: path, level: 1)
        if !decoder.issues.isEmpty {
            throw ViewDescriptionError(issues: decoder.reported)
        }
        return node ?? .spacer
    }
}

/// Walks a JSON value as a view description, collecting every problem with its path.
struct ViewDecoder {
    var issues: [ViewDescriptionError.Issue] = []

    /// Problems past `maximumIssues`, counted but not kept.
    var extra = 0

    /// The issues to report: at most `maximumIssues`, the last one counting any left out.
    var reported: [ViewDescriptionError.Issue] {
        guard extra > 0 else { return issues }
        var kept = issues
        kept[kept.count - 1] = .init(path: kept[kept.count - 1].path, message: "and \(extra + 1) more problems")
        return kept
    }

    static let nodeTypes = ["vstack", "hstack", "text", "table", "bar", "sparkline", "spacer", "divider", "date"]
    static let dateStyles = DateText.Style.allCases.map(\.rawValue)
    static let roleNames = StyleRole.allCases.map(\.rawValue)

    mutating func fail(_ path: String, _ message: String) {
        if issues.count < ViewDescriptionError.maximumIssues {
            issues.append(.init(path: path, message: message))
        } else {
            extra += 1
        }
    }

    /// Decodes one node; nil when it is too broken to build (its issues are recorded).
    mutating func node(_ value: JSONValue, path: String, level: Int) -> ViewNode? {
        guard case .object(let object) = value else {
            fail(path, "expected a view node (an object with \"type\"), found \(value.shortDescription)")
            return nil
        }
        if level > ViewNode.maximumDepth {
            fail(path, "the view is nested deeper than \(ViewNode.maximumDepth) levels")
            return nil
        }
        guard let typeValue = object["type"] else {
            fail(path + ".type", "is required (one of \(Self.nodeTypes.joined(separator: ", ")))")
            return nil
        }
        guard case .string(let type) = typeValue else {
            fail(path + ".type", "expected a string, found \(typeValue.shortDescription)")
            return nil
        }
        switch type {
        case "vstack", "hstack":
            checkFields(object, path: path, known: ["type", "children", "gap", "weights", "accentable"])
            guard var stack = stack(object, path: path, level: level) else { return nil }
            stack.accentable = bool(object, "accentable", path: path) ?? false
            return type == "vstack" ? .vstack(stack) : .hstack(stack)
        case "text":
            checkFields(object, path: path, known: ["type", "spans", "align", "wrap", "accentable"])
            return text(object, path: path)
        case "table":
            checkFields(object, path: path, known: ["type", "columns", "rows", "accentable"])
            return table(object, path: path)
        case "bar":
            return bar(object, path: path)
        case "sparkline":
            checkFields(object, path: path, known: ["type", "values", "role", "max", "privacySensitive", "accentable"])
            let role = role(object, path: path) ?? .accent
            var maximum = number(object, "max", path: path)
            if let given = maximum, given <= 0 {
                fail(path + ".max", "must be greater than 0, found \(object["max"]?.shortDescription ?? "\(given)")")
                maximum = nil
            }
            var values: [Double] = []
            if let elements = array(object, "values", path: path, required: true) {
                for (i, element) in elements.enumerated() {
                    switch element {
                    case .integer(let n): values.append(Double(n))
                    case .number(let x) where x.isFinite: values.append(x)
                    default: fail(path + ".values[\(i)]", "expected a number, found \(element.shortDescription)")
                    }
                }
            }
            var sparkline = ViewNode.Sparkline(values: values, role: role, maximum: maximum)
            sparkline.privacySensitive = bool(object, "privacySensitive", path: path) ?? false
            sparkline.accentable = bool(object, "accentable", path: path) ?? false
            return .sparkline(sparkline)
        case "spacer":
            checkFields(object, path: path, known: ["type"])
            return .spacer
        case "divider":
            checkFields(object, path: path, known: ["type", "role"])
            return .divider(role: role(object, path: path) ?? .border)
        case "date":
            return date(object, path: path)
        default:
            fail(path + ".type", "unknown node type \(typeValue.shortDescription) (expected one of \(Self.nodeTypes.joined(separator: ", ")))")
            return nil
        }
    }

    /// A date and time as ISO 8601 with its zone (`2026-12-02T14:05:00Z`, `…+01:00`, seconds
    /// required, years 1970…9999), and the offset it was written in.
    mutating func date(_ object: JSONObject, _ key: String, path: String) -> (date: Date, utcOffset: Int)? {
        guard let text = string(object, key, path: path, required: true) else { return nil }
        guard let parsed = ISO8601DateTime.parse(text, .message), let date = parsed.date else {
            fail(path + "." + key, "expected an ISO 8601 date and time with seconds and a zone, such as 2026-12-02T14:05:00Z or 2026-12-02T15:05:00+01:00, found \(JSONValue.string(text).shortDescription)")
            return nil
        }
        return (date, parsed.offset ?? 0)
    }

    /// A timer bar's `{"from": date, "to": date}`, `to` after `from`.
    mutating func timerInterval(_ value: JSONValue, path: String) -> ViewNode.Bar.TimerInterval? {
        guard case .object(let object) = value else {
            fail(path, "expected an object with \"from\" and \"to\", found \(value.shortDescription)")
            return nil
        }
        checkFields(object, path: path, known: ["from", "to"])
        let from = date(object, "from", path: path), to = date(object, "to", path: path)
        guard let from, let to else { return nil }
        guard to.date > from.date else {
            fail(path + ".to", "must be after \"from\"")
            return nil
        }
        return ViewNode.Bar.TimerInterval(from: from.date, to: to.date)
    }

    /// A bar node (out of `node`, whose frame is on the stack once per level: kept small).
    @inline(never)
    mutating func bar(_ object: JSONObject, path: String) -> ViewNode? {
        checkFields(object, path: path, known: ["type", "value", "timerInterval", "role", "label", "track", "privacySensitive", "accentable"])
        let interval = object["timerInterval"].flatMap { timerInterval($0, path: path + ".timerInterval") }
        if object["timerInterval"] != nil, object["value"] != nil {
            fail(path, "has both \"value\" and \"timerInterval\"; give one")
        }
        let value = number(object, "value", path: path, required: object["timerInterval"] == nil)
        let role = role(object, path: path) ?? .accent
        let label = string(object, "label", path: path)
        let track = bool(object, "track", path: path) ?? false
        var bar = interval.flatMap { ViewNode.Bar.timer(from: $0.from, to: $0.to, role: role, label: label, showsTrack: track) }
            ?? ViewNode.Bar(value: value ?? 0, role: role, label: label, showsTrack: track)
        bar.privacySensitive = bool(object, "privacySensitive", path: path) ?? false
        bar.accentable = bool(object, "accentable", path: path) ?? false
        return .bar(bar)
    }

    /// A date node (out of `node`, as `bar`).
    @inline(never)
    mutating func date(_ object: JSONObject, path: String) -> ViewNode? {
        checkFields(object, path: path, known: ["type", "date", "style", "role", "bold", "align", "privacySensitive", "accentable"])
        let moment = date(object, "date", path: path)
        var style: DateText.Style?
        if let name = string(object, "style", path: path, required: true) {
            style = DateText.Style(rawValue: name)
            if style == nil {
                fail(path + ".style", "unknown date style \(JSONValue.string(name).shortDescription) (expected one of \(Self.dateStyles.joined(separator: ", ")))")
            }
        }
        var node = ViewNode.DateNode(DateText(moment?.date ?? Date(timeIntervalSince1970: 0), style: style ?? .time,
                                              utcOffset: moment?.utcOffset ?? 0),
                                     role: role(object, path: path) ?? .foreground, bold: bool(object, "bold", path: path) ?? false,
                                     alignment: alignment(object, path: path))
        node.privacySensitive = bool(object, "privacySensitive", path: path) ?? false
        node.accentable = bool(object, "accentable", path: path) ?? false
        return .date(node)
    }

    mutating func stack(_ object: JSONObject, path: String, level: Int) -> ViewNode.Stack? {
        var children: [ViewNode] = []
        var complete = true
        let childValues = array(object, "children", path: path, required: true)
        if let elements = childValues {
            for (i, element) in elements.enumerated() {
                if let child = node(element, path: path + ".children[\(i)]", level: level + 1) {
                    children.append(child)
                } else {
                    complete = false
                }
            }
        }
        let gap = integer(object, "gap", path: path, range: 0...ViewNode.maximumGap) ?? 0
        var weights: [Int]?
        if let elements = array(object, "weights", path: path) {
            var parsed: [Int] = []
            for (i, element) in elements.enumerated() {
                if let n = integerValue(element, path: path + ".weights[\(i)]", range: 1...ViewNode.maximumWeight) {
                    parsed.append(n)
                }
            }
            if let childValues, elements.count != childValues.count {
                fail(path + ".weights", "has \(elements.count) weights for \(childValues.count) children; give one per child")
            }
            weights = parsed
        }
        guard complete else { return nil }
        return ViewNode.Stack(children: children, gap: gap, weights: weights)
    }

    mutating func text(_ object: JSONObject, path: String) -> ViewNode? {
        var spans: [ViewNode.Span] = []
        if let elements = array(object, "spans", path: path, required: true) {
            for (i, element) in elements.enumerated() {
                let spanPath = path + ".spans[\(i)]"
                guard case .object(let span) = element else {
                    fail(spanPath, "expected a span (an object with \"text\"), found \(element.shortDescription)")
                    continue
                }
                checkFields(span, path: spanPath, known: ["text", "role", "bold", "link", "privacySensitive", "accentable"])
                let text = string(span, "text", path: spanPath, required: true) ?? ""
                var link: String?
                if let given = string(span, "link", path: spanPath) {
                    if Hyperlink.isAllowed(given) {
                        link = given
                    } else {
                        fail(spanPath + ".link", "expected an http, https or mailto URL of at most \(Hyperlink.maximumBytes) bytes, no spaces")
                    }
                }
                var decoded = ViewNode.Span(text, role: role(span, path: spanPath) ?? .foreground,
                                            bold: bool(span, "bold", path: spanPath) ?? false, link: link)
                decoded.privacySensitive = bool(span, "privacySensitive", path: spanPath) ?? false
                decoded.accentable = bool(span, "accentable", path: spanPath) ?? false
                spans.append(decoded)
            }
        }
        let alignment = alignment(object, path: path)
        let wrap = bool(object, "wrap", path: path) ?? false
        var text = ViewNode.Text(spans: spans, alignment: alignment, wrap: wrap)
        text.accentable = bool(object, "accentable", path: path) ?? false
        return .text(text)
    }

    mutating func table(_ object: JSONObject, path: String) -> ViewNode? {
        var columns: [ViewNode.Column] = []
        if let elements = array(object, "columns", path: path, required: true) {
            for (i, element) in elements.enumerated() {
                let columnPath = path + ".columns[\(i)]"
                guard case .object(let column) = element else {
                    fail(columnPath, "expected a column (an object), found \(element.shortDescription)")
                    continue
                }
                checkFields(column, path: columnPath, known: ["title", "align", "min", "width"])
                let minimum = integer(column, "min", path: columnPath, range: 0...ViewNode.maximumColumnMinimum)
                let width = integer(column, "width", path: columnPath, range: 0...ViewNode.maximumColumnMinimum)
                if minimum != nil, width != nil { fail(columnPath, "has both \"min\" and \"width\"; give one") }
                columns.append(ViewNode.Column(
                    string(column, "title", path: columnPath) ?? "",
                    alignment: alignment(column, path: columnPath),
                    minimum: minimum, width: width))
            }
        }
        var rows: [[ViewNode.Cell]] = []
        if let elements = array(object, "rows", path: path, required: true) {
            for (r, element) in elements.enumerated() {
                let rowPath = path + ".rows[\(r)]"
                guard case .array(let cells) = element else {
                    fail(rowPath, "expected a row (an array of cells), found \(element.shortDescription)")
                    continue
                }
                var row: [ViewNode.Cell] = []
                for (c, cellValue) in cells.enumerated() {
                    let cellPath = rowPath + "[\(c)]"
                    guard case .object(let cell) = cellValue else {
                        fail(cellPath, "expected a cell (an object with \"text\"), found \(cellValue.shortDescription)")
                        continue
                    }
                    checkFields(cell, path: cellPath, known: ["text", "role", "bold", "privacySensitive", "accentable"])
                    var decoded = ViewNode.Cell(string(cell, "text", path: cellPath, required: true) ?? "",
                                                role: role(cell, path: cellPath) ?? .foreground,
                                                bold: bool(cell, "bold", path: cellPath) ?? false)
                    decoded.privacySensitive = bool(cell, "privacySensitive", path: cellPath) ?? false
                    decoded.accentable = bool(cell, "accentable", path: cellPath) ?? false
                    row.append(decoded)
                }
                rows.append(row)
            }
        }
        var table = ViewNode.Table(columns: columns, rows: rows)
        table.accentable = bool(object, "accentable", path: path) ?? false
        return .table(table)
    }

    // MARK: Fields

    mutating func checkFields(_ object: JSONObject, path: String, known: [String]) {
        for key in object.keys where !known.contains(key) {
            fail(path + Self.member(key), "unknown field (expected \(known.joined(separator: ", ")))")
        }
    }

    /// The path step for an untrusted key: `.name` for a plain name, else the key quoted,
    /// escaped and cut (`["a\u001b[2J…"]`), so a hostile key cannot reach a terminal or flood it.
    static func member(_ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.count <= 40
            && key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F }
        return plain ? "." + key : "[" + JSONValue.quoted(key, limit: 40) + "]"
    }

    mutating func role(_ object: JSONObject, path: String) -> StyleRole? {
        guard let name = string(object, "role", path: path) else { return nil }
        guard let role = StyleRole(rawValue: name) else {
            fail(path + ".role", "unknown role \(JSONValue.string(name).shortDescription) (expected one of \(Self.roleNames.joined(separator: ", ")))")
            return nil
        }
        return role
    }

    mutating func alignment(_ object: JSONObject, path: String) -> TextAlignment {
        switch string(object, "align", path: path) {
        case nil, "left": return .left
        case "center": return .center
        case "right": return .right
        case let other?:
            fail(path + ".align", "unknown alignment \(JSONValue.string(other).shortDescription) (expected left, center or right)")
            return .left
        }
    }

    mutating func string(_ object: JSONObject, _ key: String, path: String, required: Bool = false) -> String? {
        guard let value = present(object, key, path: path, required: required) else { return nil }
        guard case .string(let text) = value else {
            fail(path + "." + key, "expected a string, found \(value.shortDescription)")
            return nil
        }
        return text
    }

    mutating func bool(_ object: JSONObject, _ key: String, path: String) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            fail(path + "." + key, "expected true or false, found \(value.shortDescription)")
            return nil
        }
        return flag
    }

    mutating func number(_ object: JSONObject, _ key: String, path: String, required: Bool = false) -> Double? {
        guard let value = present(object, key, path: path, required: required) else { return nil }
        switch value {
        case .integer(let n): return Double(n)
        case .number(let x) where x.isFinite: return x
        default:
            fail(path + "." + key, "expected a number, found \(value.shortDescription)")
            return nil
        }
    }

    mutating func integer(_ object: JSONObject, _ key: String, path: String, range: ClosedRange<Int>) -> Int? {
        guard let value = object[key] else { return nil }
        return integerValue(value, path: path + "." + key, range: range)
    }

    /// An integer in `range`; an integral number like `2.0` counts, `2.5` or `1e300` does not.
    mutating func integerValue(_ value: JSONValue, path: String, range: ClosedRange<Int>) -> Int? {
        let n: Int?
        switch value {
        case .integer(let i): n = i
        case .number(let x): n = Int(exactly: x)
        default: n = nil
        }
        guard let n else {
            fail(path, "expected an integer \(range.lowerBound)…\(range.upperBound), found \(value.shortDescription)")
            return nil
        }
        guard range.contains(n) else {
            fail(path, "\(n) is out of range \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return n
    }

    mutating func array(_ object: JSONObject, _ key: String, path: String, required: Bool = false) -> [JSONValue]? {
        guard let value = present(object, key, path: path, required: required) else { return nil }
        guard case .array(let elements) = value else {
            fail(path + "." + key, "expected an array, found \(value.shortDescription)")
            return nil
        }
        return elements
    }

    mutating func present(_ object: JSONObject, _ key: String, path: String, required: Bool) -> JSONValue? {
        let value = object[key]
        if value == nil && required { fail(path + "." + key, "is required") }
        return value
    }

    /// The length of `value` as compact JSON, or nil once it passes `limit` (the walk stops
    /// there, so measuring a huge value costs no more than the limit).
    static func compactSize(of value: JSONValue, limit: Int) -> Int? {
        var total = 0
        var stack: [JSONValue] = [value]
        while let next = stack.popLast() {
            switch next {
            case .object(let object):
                total += 2 + max(0, object.count - 1)
                for member in object.members {
                    total += JSONValue.quoted(member.key, limit: limit).utf8.count + 1
                    stack.append(member.value)
                }
            case .array(let elements):
                total += 2 + max(0, elements.count - 1)
                stack.append(contentsOf: elements)
            case .string(let text):
                total += text.utf8.count > limit ? limit + 1 : JSONValue.quoted(text, limit: nil).utf8.count
            default:
                total += next.jsonText.utf8.count
            }
            if total > limit { return total }
        }
        return total
    }
}
