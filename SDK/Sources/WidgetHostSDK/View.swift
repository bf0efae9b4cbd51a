/// A piece of a widget's view: it becomes the view JSON of docs/views.md, which the host
/// draws into the panel's cells. Build views with `VStack`, `HStack`, `Text`, `Bar`,
/// `Sparkline`, `Table`, `Spacer` and `Divider` in a `@ViewBuilder` closure:
///
/// ```swift
/// VStack {
///     Text("CPU ").role(.muted).bold() + Text("83%").role(.positive)
///     Bar(value: 0.83, label: "83%").role(.accent)
/// }
/// ```
public protocol View: Sendable {
    /// The view JSON (`{"type": …}`).
    var json: JSON { get }
}

/// The theme's semantic roles: the host gives each a colour and attributes.
public enum Role: String, Sendable, CaseIterable {
    case background, foreground, border, borderFocused, title, accent, positive, negative, warning, muted
    case statusBar, statusText, stale, placeholder
}

/// Where a text's lines sit in its width.
public enum TextAlignment: String, Sendable {
    case left, center, right
}

/// Collects the views of a stack (or a widget's content) written one per line.
@resultBuilder
public enum ViewBuilder {
    public static func buildExpression(_ view: any View) -> [any View] { [view] }
    /// A list of views made elsewhere (a `ForEach` of your own: `rows.map { Text($0) }`).
    public static func buildExpression(_ views: [any View]) -> [any View] { views }
    public static func buildBlock(_ parts: [any View]...) -> [any View] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [any View]?) -> [any View] { part ?? [] }
    public static func buildEither(first part: [any View]) -> [any View] { part }
    public static func buildEither(second part: [any View]) -> [any View] { part }
    public static func buildArray(_ parts: [[any View]]) -> [any View] { parts.flatMap { $0 } }
}

/// Children laid out top to bottom (`gap` blank rows between them).
public struct VStack: View {
    public var gap: Int
    public var children: [any View]

    public init(gap: Int = 0, @ViewBuilder _ content: () -> [any View]) {
        self.gap = gap
        children = content()
    }

    public var json: JSON { Self.stack("vstack", gap: gap, children) }

    static func stack(_ type: String, gap: Int, _ children: [any View]) -> JSON {
        var members: [(String, JSON)] = [("type", .string(type)), ("children", .array(children.map(\.json)))]
        if gap > 0 { members.append(("gap", .int(min(gap, 64)))) }
        return .object(members)
    }
}

/// Children laid out left to right (`gap` blank columns between them).
public struct HStack: View {
    public var gap: Int
    public var children: [any View]

    public init(gap: Int = 0, @ViewBuilder _ content: () -> [any View]) {
        self.gap = gap
        children = content()
    }

    public var json: JSON { VStack.stack("hstack", gap: gap, children) }
}

/// Text in spans; `+` joins texts into one line of spans, `\n` starts a new line.
public struct Text: View {
    struct Span: Sendable {
        var text: String
        var role: Role?
        var bold = false
    }

    var spans: [Span]
    var alignment: TextAlignment?
    var wraps = false

    public init(_ text: String) { spans = [Span(text: text)] }

    /// Every span in `role`.
    public func role(_ role: Role) -> Text { changed { $0.spans = $0.spans.map { Span(text: $0.text, role: role, bold: $0.bold) } } }
    public func bold(_ bold: Bool = true) -> Text { changed { $0.spans = $0.spans.map { Span(text: $0.text, role: $0.role, bold: bold) } } }
    public func alignment(_ alignment: TextAlignment) -> Text { changed { $0.alignment = alignment } }
    /// Break lines at spaces to fit the width.
    public func wrap(_ wraps: Bool = true) -> Text { changed { $0.wraps = wraps } }

    public static func + (lhs: Text, rhs: Text) -> Text { lhs.changed { $0.spans += rhs.spans } }

    private func changed(_ change: (inout Text) -> Void) -> Text {
        var copy = self
        change(&copy)
        return copy
    }

    var spanJSON: [JSON] {
        spans.map { span in
            var members: [(String, JSON)] = [("text", .string(span.text))]
            if let role = span.role { members.append(("role", .string(role.rawValue))) }
            if span.bold { members.append(("bold", .bool(true))) }
            return .object(members)
        }
    }

    public var json: JSON {
        var members: [(String, JSON)] = [("type", "text"), ("spans", .array(spanJSON))]
        if let alignment { members.append(("align", .string(alignment.rawValue))) }
        if wraps { members.append(("wrap", true)) }
        return .object(members)
    }
}

/// A bar filled to `value` (0…1), with an optional label at its right end.
public struct Bar: View {
    public var value: Double
    public var label: String?
    var roleName: Role?

    public init(value: Double, label: String? = nil) {
        self.value = value
        self.label = label
    }

    public func role(_ role: Role) -> Bar { var copy = self; copy.roleName = role; return copy }

    public var json: JSON {
        var members: [(String, JSON)] = [("type", "bar"), ("value", .double(value.isFinite ? value : 0))]
        if let roleName { members.append(("role", .string(roleName.rawValue))) }
        if let label { members.append(("label", .string(label))) }
        return .object(members)
    }
}

/// One column per value, oldest on the left; heights relative to `max` (or the largest).
public struct Sparkline: View {
    public var values: [Double]
    public var maximum: Double?
    var roleName: Role?

    public init(values: [Double], max maximum: Double? = nil) {
        self.values = values
        self.maximum = maximum
    }

    public func role(_ role: Role) -> Sparkline { var copy = self; copy.roleName = role; return copy }

    public var json: JSON {
        var members: [(String, JSON)] = [("type", "sparkline"), ("values", .array(values.map { .double($0.isFinite ? $0 : 0) }))]
        if let roleName { members.append(("role", .string(roleName.rawValue))) }
        if let maximum, maximum > 0 { members.append(("max", .double(maximum))) }
        return .object(members)
    }
}

/// Rows of cells under titled columns.
public struct Table: View {
    public struct Column: Sendable {
        public var title: String
        public var alignment: TextAlignment
        /// The least width this column gets first (cells).
        public var minimum: Int?

        public init(_ title: String = "", alignment: TextAlignment = .left, minimum: Int? = nil) {
            self.title = title
            self.alignment = alignment
            self.minimum = minimum
        }
    }

    public var columns: [Column]
    /// Each cell is a `Text`'s first span (its text, role and boldness).
    public var rows: [[Text]]

    public init(columns: [Column], rows: [[Text]]) {
        self.columns = columns
        self.rows = rows
    }

    public var json: JSON {
        let columns: [JSON] = columns.map { column in
            var members: [(String, JSON)] = [("title", .string(column.title)), ("align", .string(column.alignment.rawValue))]
            if let minimum = column.minimum { members.append(("min", .int(max(0, min(minimum, 1000))))) }
            return .object(members)
        }
        let rows: [JSON] = rows.map { cells in .array(cells.map { $0.spanJSON.first ?? ["text": ""] }) }
        return .object([("type", "table"), ("columns", .array(columns)), ("rows", .array(rows))])
    }
}

/// Flexible empty space: `VStack { Spacer(); Text("x"); Spacer() }` centres the text.
public struct Spacer: View {
    public init() {}
    public var json: JSON { ["type": "spacer"] }
}

/// A line across the stack it is in.
public struct Divider: View {
    var roleName: Role?
    public init() {}
    public func role(_ role: Role) -> Divider { var copy = self; copy.roleName = role; return copy }
    public var json: JSON { .object([("type", "divider")] + (roleName.map { [("role", JSON.string($0.rawValue))] } ?? [])) }
}

extension View {
    /// Marks the view accentable (WidgetKit's `widgetAccentable()`): when the host draws in
    /// the `accented` rendering mode (`context.renderingMode`), it takes the theme's accent
    /// tone and everything else one neutral tone. A spacer or divider stays as it is.
    public func widgetAccentable(_ accentable: Bool = true) -> AccentableView { AccentableView(base: self, accentable: accentable) }
}

/// A view marked accentable (`.widgetAccentable()`): its JSON with `"accentable": true`.
public struct AccentableView: View {
    let base: any View
    let accentable: Bool

    public var json: JSON {
        let json = base.json  // once: nested marks would otherwise make it twice per level
        guard accentable, case .object(let members) = json,
              !members.contains(where: { $0.0 == "type" && ($0.1 == "spacer" || $0.1 == "divider") }) else { return json }
        return .object(members.filter { $0.0 != "accentable" } + [("accentable", .bool(true))])
    }
}
