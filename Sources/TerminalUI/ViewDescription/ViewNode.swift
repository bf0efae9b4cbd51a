import FoundationEssentials

/// A view as data: a tree of stacks, text, tables, bars and sparklines that TerminalUI draws
/// into a rectangle of cells.
///
/// This is the view description of DESIGN.md §6. Built-in widgets build it in Swift; an
/// extension sends it as JSON (`ViewNode.decode`), and both are drawn by the same code
/// (`draw(into:in:glyphs:)`). Styles are semantic `StyleRole`s, never colours; every string is
/// sanitised when drawn, like all text in a `CellBuffer`. The format, layout rules, limits and
/// errors are documented in docs/views.md.
///
/// ```swift
/// let view = ViewNode.vstack([
///     .text("CPU", role: .muted, bold: true),
///     .bar(0.83, role: .positive, label: "83%"),
/// ])
/// view.draw(into: &buffer, in: rect, glyphs: .unicode)
/// ```
public enum ViewNode: Sendable, Equatable {
    /// Children top to bottom.
    case vstack(Stack)
    /// Children left to right.
    case hstack(Stack)
    case text(Text)
    case table(Table)
    /// Boxed, as `date`: a timer bar's dates would make every node larger, and a view's
    /// decoding and layout recurse with nodes on the stack (`ThreadStackTests`).
    indirect case bar(Bar)
    case sparkline(Sparkline)
    /// Empty space that takes a share of what is left in a stack.
    case spacer
    /// A line across a vstack (or down an hstack) in `role`, `border` by default.
    case divider(role: StyleRole)
    /// Text that updates itself (`DateText`): drawn as text at the frame's time.
    indirect case date(DateNode)

    /// The deepest nesting a view may have: the root is level 1.
    public static let maximumDepth = 64
    /// The largest view description, in bytes of compact JSON.
    public static let maximumBytes = 64 * 1024
    /// The largest `gap` a stack may ask for.
    public static let maximumGap = 64
    /// The largest stack weight (weights are integers 1…this).
    public static let maximumWeight = 1_000_000

    /// The children of a stack and how they share its space (see docs/views.md, "Layout").
    ///
    /// Read-only once made: the initialiser keeps the weights one per child and every number
    /// in range, so any stack encodes to a description that decodes.
    public struct Stack: Sendable, Equatable {
        public private(set) var children: [ViewNode]
        /// Blank rows (vstack) or columns (hstack) between consecutive children, 0…64.
        public private(set) var gap: Int
        /// One weight (1…1 000 000) per child: every child then shares the stack's length in
        /// proportion, whatever its natural size. nil: natural sizes first, then equal shares.
        public private(set) var weights: [Int]?
        /// Accentable (see `Span.accentable`): everything the stack draws.
        public var accentable = false

        /// The stack with each child replaced by `transform`'s (its gap, weights and marks kept).
        func replacingChildren(_ transform: (ViewNode) -> ViewNode) -> Stack {
            var copy = self
            copy.children = children.map(transform)
            return copy
        }

        /// A stack; `gap` is clamped to 0…64, weights to 1…1 000 000, and missing weights count
        /// as 1 (extra ones are dropped), so a stack built in Swift always encodes to a valid one.
        public init(children: [ViewNode], gap: Int = 0, weights: [Int]? = nil) {
            self.children = children
            self.gap = min(max(0, gap), ViewNode.maximumGap)
            self.weights = weights.map { given in
                children.indices.map { i in i < given.count ? min(max(1, given[i]), ViewNode.maximumWeight) : 1 }
            }
        }
    }

    /// A run of text in one style.
    public struct Span: Sendable, Equatable {
        /// The text; a line feed starts a new line, other controls are shown inert.
        public var text: String
        public var role: StyleRole
        public var bold: Bool
        /// More text after `text`, glyph tokens among it (host-internal, see `Piece`).
        public var pieces: [Piece]
        /// The most columns the span takes: longer, it is cut to this width ending in the glyph
        /// set's ellipsis, and shown on one line (a line feed is shown inert). For the part of a
        /// line that gives way, e.g. a long reason before "retry in 40s" (host-internal).
        public private(set) var limit: Int?
        /// Where the span leads (WidgetKit's `Link`): drawn underlined, a click on it opens it.
        /// http, https or mailto (`Hyperlink.isAllowed`); a view description with another is an
        /// error.
        public var link: String?
        /// Hidden in the privacy mode (`P`, `--private`): drawn redacted, as WidgetKit's
        /// `.privacySensitive()` under `redacted(reason: .privacy)`.
        public var privacySensitive = false
        /// Accentable (WidgetKit's `widgetAccentable()`): in the `accented` rendering mode drawn
        /// in the theme's accent tone, the rest in one neutral tone.
        public var accentable = false

        public init(_ text: String, role: StyleRole = .foreground, bold: Bool = false, link: String? = nil) {
            self.init(text, pieces: [], role: role, bold: bold)
            self.link = link.flatMap { Hyperlink.isAllowed($0) ? $0 : nil }
        }

        /// A span of `text` then `pieces`, cut to `limit` columns when given (clamped to 0…10 000).
        public init(_ text: String = "", pieces: [Piece], role: StyleRole = .foreground, bold: Bool = false, limit: Int? = nil) {
            self.text = text
            self.role = role
            self.bold = bold
            self.pieces = pieces
            self.limit = limit.map { min(max(0, $0), Piece.maximumGlyphCount) }
        }

        /// A span of one glyph token, `count` times.
        public static func glyph(_ glyph: Glyph, count: Int = 1, role: StyleRole = .foreground, bold: Bool = false) -> Span {
            Span(pieces: [.glyph(glyph, count: count)], role: role, bold: bold)
        }

        /// The cell style the span is drawn in (a link underlined).
        public var style: CellStyle {
            var attributes: CellAttributes = bold ? .bold : []
            if link != nil { attributes.insert(.underline) }
            return CellStyle(role, attributes, accentable: accentable)
        }

        /// The span's text for `glyphs`: `text`, the pieces resolved, cut to `limit`.
        public func resolved(_ glyphs: GlyphSet) -> String {
            let full = Piece.resolve(text, pieces, glyphs: glyphs)
            guard let limit else { return full }
            return DisplayWidth.truncate(full, toWidth: limit, ellipsis: glyphs.ellipsis)
        }
    }

    /// Styled text, aligned in its width, one line per line feed, optionally word-wrapped.
    public struct Text: Sendable, Equatable {
        public var spans: [Span]
        public var alignment: TextAlignment
        /// Break lines at spaces (and inside words longer than the width) instead of cutting.
        public var wrap: Bool
        /// Accentable (see `Span.accentable`): every span.
        public var accentable = false

        public init(spans: [Span], alignment: TextAlignment = .left, wrap: Bool = false) {
            self.spans = spans
            self.alignment = alignment
            self.wrap = wrap
        }
    }

    /// A table column: header, alignment, and the least width it gets when there is room or
    /// the exact width it has.
    public struct Column: Sendable, Equatable {
        public var title: String
        public var alignment: TextAlignment
        /// Columns with a minimum get it first; see docs/views.md for how the rest is shared.
        public private(set) var minimum: Int?
        /// A fixed width: the column gets this (less when the table runs out of room) and no
        /// share of what is left, e.g. a rank or a number of known size.
        public private(set) var width: Int?
        /// More of the title after `title`, glyph tokens among it (host-internal).
        public var titlePieces: [Piece]

        /// A column; `minimum` and `width` are clamped to 0…1000 (a column with a `width` has no
        /// minimum).
        public init(_ title: String = "", titlePieces: [Piece] = [], alignment: TextAlignment = .left,
                    minimum: Int? = nil, width: Int? = nil) {
            self.title = title
            self.titlePieces = titlePieces
            self.alignment = alignment
            self.width = width.map { min(max(0, $0), ViewNode.maximumColumnMinimum) }
            self.minimum = self.width == nil ? minimum.map { min(max(0, $0), ViewNode.maximumColumnMinimum) } : nil
        }

        /// Whether the column has a title in any glyph set.
        var hasTitle: Bool { !title.isEmpty || !titlePieces.isEmpty }
    }

    /// The largest `min` or `width` a table column may ask for.
    public static let maximumColumnMinimum = 1_000

    /// One cell of a table row: text, or a bar.
    public struct Cell: Sendable, Equatable {
        public var text: String
        public var role: StyleRole
        public var bold: Bool
        /// More text after `text`, glyph tokens among it (host-internal).
        public var pieces: [Piece]
        /// How many columns the cell covers, the blanks between them included (1…): a cell
        /// reaching the last column takes the rest of the row (host-internal).
        public private(set) var span: Int
        /// When set, the cell is a bar for this fraction (clamped to 0…1) in `role` instead of
        /// text, on a `muted` track (host-internal).
        public private(set) var fraction: Double?
        /// Hidden in the privacy mode (see `Span.privacySensitive`).
        public var privacySensitive = false
        /// Accentable (see `Span.accentable`).
        public var accentable = false

        public init(_ text: String, role: StyleRole = .foreground, bold: Bool = false) {
            self.init(text, pieces: [], role: role, bold: bold)
        }

        /// A text cell of `text` then `pieces`, covering `span` columns (at least 1).
        public init(_ text: String = "", pieces: [Piece], role: StyleRole = .foreground, bold: Bool = false, span: Int = 1) {
            self.text = text
            self.role = role
            self.bold = bold
            self.pieces = pieces
            self.span = max(1, span)
        }

        /// A cell holding a bar for `value`, covering `span` columns (at least 1).
        public static func bar(_ value: Double, role: StyleRole = .accent, span: Int = 1) -> Cell {
            var cell = Cell("", pieces: [], role: role, span: span)
            cell.fraction = value.isNaN ? 0 : min(1, max(0, value))
            return cell
        }
    }

    /// Rows of cells in aligned columns, with a header row when any column has a title.
    public struct Table: Sendable, Equatable {
        public var columns: [Column]
        public var rows: [[Cell]]
        /// Accentable (see `Span.accentable`): the whole table.
        public var accentable = false


        public init(columns: [Column], rows: [[Cell]]) {
            self.columns = columns
            self.rows = rows
        }
    }

    /// A horizontal bar for a fraction 0…1, with an optional label after it.
    public struct Bar: Sendable, Equatable {
        /// The fraction shown, clamped to 0…1 (NaN counts as 0).
        public private(set) var value: Double
        public var role: StyleRole
        public var label: String?
        /// Whether the unfilled part shows the glyph set's `meterTrack` (`·`, or `.` in ASCII)
        /// instead of blanks: a meter (CPU, memory) that reads as a rail even when idle.
        public var showsTrack: Bool
        /// Hidden in the privacy mode (see `Span.privacySensitive`).
        public var privacySensitive = false
        /// Accentable (see `Span.accentable`).
        public var accentable = false

        /// When set, the fill follows time instead of `value` (WidgetKit's
        /// `ProgressView(timerInterval:)`): empty at the start, full at the end, drawn at the
        /// frame's time. The end is after the start.
        public private(set) var timerInterval: TimerInterval?

        /// The span of a timer bar.
        public struct TimerInterval: Sendable, Equatable {
            public var from: Date
            public var to: Date

            /// The fraction of the span gone at `now`, 0…1.
            public func fraction(at now: Date) -> Double {
                let total = to.timeIntervalSince(from)
                guard total > 0 else { return 1 }
                let gone = now.timeIntervalSince(from) / total
                return gone.isNaN ? 0 : min(1, max(0, gone))
            }
        }

        /// A bar whose fill follows time from `from` to `to` (nil when `to` is not after `from`).
        public static func timer(from: Date, to: Date, role: StyleRole = .accent, label: String? = nil,
                                 showsTrack: Bool = false) -> Bar? {
            guard to > from, from.timeIntervalSince1970.isFinite, to.timeIntervalSince1970.isFinite else { return nil }
            var bar = Bar(value: 0, role: role, label: label, showsTrack: showsTrack)
            bar.timerInterval = TimerInterval(from: from, to: to)
            return bar
        }

        /// The bar at `now`: a timer bar's fill set for that moment, as a plain bar.
        public func at(_ now: Date) -> Bar {
            guard let timerInterval else { return self }
            var bar = self
            bar.value = timerInterval.fraction(at: now)
            bar.timerInterval = nil
            return bar
        }

        public init(value: Double, role: StyleRole = .accent, label: String? = nil, showsTrack: Bool = false) {
            self.value = value.isNaN ? 0 : min(1, max(0, value))
            self.role = role
            self.label = label
            self.showsTrack = showsTrack
        }
    }

    /// Recent values, one column each, scaled to `maximum` or else to the largest shown.
    public struct Sparkline: Sendable, Equatable {
        /// The values, oldest first; non-finite values count as 0.
        public private(set) var values: [Double]
        public var role: StyleRole
        /// The value of a full column (e.g. 1 for fractions, so a quiet machine looks quiet);
        /// nil: the largest value shown. Positive and finite, else nil.
        public private(set) var maximum: Double?
        /// Hidden in the privacy mode (see `Span.privacySensitive`).
        public var privacySensitive = false
        /// Accentable (see `Span.accentable`).
        public var accentable = false

        public init(values: [Double], role: StyleRole = .accent, maximum: Double? = nil) {
            self.values = values.map { $0.isFinite ? $0 : 0 }
            self.role = role
            self.maximum = maximum.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        }
    }
}

extension ViewNode {
    /// A vstack of `children`.
    public static func vstack(_ children: [ViewNode], gap: Int = 0, weights: [Int]? = nil) -> ViewNode {
        .vstack(Stack(children: children, gap: gap, weights: weights))
    }

    /// An hstack of `children`.
    public static func hstack(_ children: [ViewNode], gap: Int = 0, weights: [Int]? = nil) -> ViewNode {
        .hstack(Stack(children: children, gap: gap, weights: weights))
    }

    /// Text of one span.
    public static func text(_ text: String, role: StyleRole = .foreground, bold: Bool = false,
                            alignment: TextAlignment = .left, wrap: Bool = false) -> ViewNode {
        .text(Text(spans: [Span(text, role: role, bold: bold)], alignment: alignment, wrap: wrap))
    }

    /// Text of several spans.
    public static func text(_ spans: [Span], alignment: TextAlignment = .left, wrap: Bool = false) -> ViewNode {
        .text(Text(spans: spans, alignment: alignment, wrap: wrap))
    }

    /// A bar for `value` (clamped to 0…1); `showsTrack` draws its unfilled part as a rail.
    public static func bar(_ value: Double, role: StyleRole = .accent, label: String? = nil, showsTrack: Bool = false) -> ViewNode {
        .bar(Bar(value: value, role: role, label: label, showsTrack: showsTrack))
    }

    /// A sparkline of `values`, a full column being `maximum` (default: the largest shown).
    public static func sparkline(_ values: [Double], role: StyleRole = .accent, maximum: Double? = nil) -> ViewNode {
        .sparkline(Sparkline(values: values, role: role, maximum: maximum))
    }

    /// A divider in the `border` role.
    public static var divider: ViewNode { .divider(role: .border) }

    /// The node's type as written in JSON (`"vstack"`, `"text"`…).
    public var typeName: String {
        switch self {
        case .vstack: "vstack"
        case .hstack: "hstack"
        case .text: "text"
        case .table: "table"
        case .bar: "bar"
        case .sparkline: "sparkline"
        case .spacer: "spacer"
        case .divider: "divider"
        case .date: "date"
        }
    }
}
