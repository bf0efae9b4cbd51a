import JSONTree

extension ViewNode {
    /// The node as a JSON value in the view description format; `decode` reads it back
    /// to an equal node.
    ///
    /// Fields at their default value (gap 0, left alignment, no wrap, `foreground` spans and
    /// cells, not bold, the `accent` bar and sparkline, the `border` divider) are left out.
    /// Host-internal parts the format lacks are written as Unicode text (glyph tokens, a span's
    /// limit) or left out (a cell's span and bar).
    public var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", .string(typeName))]
        switch self {
        case .vstack(let stack), .hstack(let stack):
            members.append(("children", .array(stack.children.map(\.jsonValue))))
            if stack.gap != 0 { members.append(("gap", .integer(stack.gap))) }
            if let weights = stack.weights { members.append(("weights", .array(weights.map { .integer($0) }))) }
        case .text(let text):
            members.append(("spans", .array(text.spans.map { span in
                Self.styled(text: span.resolved(.unicode), role: span.role, bold: span.bold, link: span.link,
                            privacySensitive: span.privacySensitive, accentable: span.accentable)
            })))
            if text.alignment != .left { members.append(("align", .string(Self.name(of: text.alignment)))) }
            if text.wrap { members.append(("wrap", .bool(true))) }
        case .table(let table):
            members.append(("columns", .array(table.columns.map { column in
                var fields: [(key: String, value: JSONValue)] = [
                    ("title", .string(Piece.resolve(column.title, column.titlePieces, glyphs: .unicode))),
                ]
                if column.alignment != .left { fields.append(("align", .string(Self.name(of: column.alignment)))) }
                if let minimum = column.minimum { fields.append(("min", .integer(minimum))) }
                if let width = column.width { fields.append(("width", .integer(width))) }
                return .object(JSONObject(members: fields))
            })))
            members.append(("rows", .array(table.rows.map { row in
                .array(row.map { Self.styled(text: Piece.resolve($0.text, $0.pieces, glyphs: .unicode), role: $0.role, bold: $0.bold,
                                             privacySensitive: $0.privacySensitive, accentable: $0.accentable) })
            })))
        case .bar(let bar):
            members.append(("value", .number(bar.value)))
            if bar.role != .accent { members.append(("role", .string(bar.role.rawValue))) }
            if let label = bar.label { members.append(("label", .string(label))) }
            if bar.showsTrack { members.append(("track", .bool(true))) }
            if let interval = bar.timerInterval {
                members.removeAll { $0.key == "value" }
                members.append(("timerInterval", .object(JSONObject(members: [
                    ("from", .string(DateText.iso(interval.from, utcOffset: 0))), ("to", .string(DateText.iso(interval.to, utcOffset: 0))),
                ]))))
            }
            if bar.privacySensitive { members.append(("privacySensitive", .bool(true))) }
        case .sparkline(let sparkline):
            members.append(("values", .array(sparkline.values.map { .number($0) })))
            if sparkline.role != .accent { members.append(("role", .string(sparkline.role.rawValue))) }
            if let maximum = sparkline.maximum { members.append(("max", .number(maximum))) }
            if sparkline.privacySensitive { members.append(("privacySensitive", .bool(true))) }
        case .spacer:
            break
        case .divider(let role):
            if role != .border { members.append(("role", .string(role.rawValue))) }
        case .date(let node):
            // A clock face (host-internal) is written as the time it shows at its own date.
            members.append(("date", .string(DateText.iso(node.text.date, utcOffset: node.text.utcOffset))))
            members.append(("style", .string(node.text.style.rawValue)))
            if node.role != .foreground { members.append(("role", .string(node.role.rawValue))) }
            if node.bold { members.append(("bold", .bool(true))) }
            if node.alignment != .left { members.append(("align", .string(Self.name(of: node.alignment)))) }
            if node.privacySensitive { members.append(("privacySensitive", .bool(true))) }
        }
        if isAccentable { members.append(("accentable", .bool(true))) }
        return .object(JSONObject(members: members))
    }

    /// The node as compact JSON text.
    public var jsonText: String { jsonValue.jsonText }

    private static func styled(text: String, role: StyleRole, bold: Bool, link: String? = nil, privacySensitive: Bool,
                               accentable: Bool) -> JSONValue {
        var fields: [(key: String, value: JSONValue)] = [("text", .string(text))]
        if role != .foreground { fields.append(("role", .string(role.rawValue))) }
        if bold { fields.append(("bold", .bool(true))) }
        if let link { fields.append(("link", .string(link))) }
        if privacySensitive { fields.append(("privacySensitive", .bool(true))) }
        if accentable { fields.append(("accentable", .bool(true))) }
        return .object(JSONObject(members: fields))
    }

    private static func name(of alignment: TextAlignment) -> String {
        switch alignment {
        case .left: "left"
        case .center: "center"
        case .right: "right"
        }
    }
}
