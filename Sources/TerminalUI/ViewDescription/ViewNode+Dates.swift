import FoundationEssentials

extension ViewNode {
    /// A `date` node: a `DateText` drawn as one line of text in a style (docs/views.md, "Dates").
    public struct DateNode: Sendable, Equatable {
        public var text: DateText
        public var role: StyleRole
        public var bold: Bool
        public var alignment: TextAlignment
        /// Hidden in the privacy mode (see `Span.privacySensitive`).
        public var privacySensitive = false
        /// Accentable (see `Span.accentable`).
        public var accentable = false
        /// Host-internal: the text drawn large (`BigText`), this row of it at this width scale;
        /// a clock's or a countdown's face. Empty when a character has no big form.
        public var bigRow: BigRow?

        /// One row of a text drawn large.
        public struct BigRow: Sendable, Equatable {
            public var row: Int
            public var scaleX: Int

            public init(row: Int, scaleX: Int) {
                self.row = row
                self.scaleX = scaleX
            }
        }

        public init(_ text: DateText, role: StyleRole = .foreground, bold: Bool = false, alignment: TextAlignment = .left) {
            self.text = text
            self.role = role
            self.bold = bold
            self.alignment = alignment
        }

        /// The text node it is at `now`.
        public func text(at now: Date) -> Text {
            if let bigRow { return BigText.row(text.text(at: now), bigRow.row, scaleX: bigRow.scaleX, role: role) }
            var span = Span(text.text(at: now), role: role, bold: bold)
            span.privacySensitive = privacySensitive
            return Text(spans: [span], alignment: alignment)
        }
    }

    /// A date node (`DateText`) in one style.
    public static func date(_ date: Date, style: DateText.Style, utcOffset: Int = 0, role: StyleRole = .foreground,
                            bold: Bool = false, alignment: TextAlignment = .left) -> ViewNode {
        .date(DateNode(DateText(date, style: style, utcOffset: utcOffset), role: role, bold: bold, alignment: alignment))
    }

    /// The rows of `text` drawn large (`BigText`) at these scales in `role`: one date node per
    /// row, so the digits follow the frame's time as plain text would.
    public static func bigDate(_ text: DateText, scaleX: Int, scaleY: Int, role: StyleRole) -> [ViewNode] {
        (0..<BigText.height * max(1, scaleY)).map { i in
            var node = DateNode(text, role: role, bold: true, alignment: .center)
            node.bigRow = DateNode.BigRow(row: i / max(1, scaleY), scaleX: scaleX)
            return .date(node)
        }
    }

    /// The view as drawn at `now`: date nodes and date pieces written as text, timer bars
    /// filled for that moment. nil: each at its own date (a view drawn with no time).
    public func resolvingDates(at now: Date?) -> ViewNode {
        containsDates ? resolved(at: now) : self
    }

    /// `resolvingDates` below the first check: one walk of the tree, not one per level.
    private func resolved(at now: Date?) -> ViewNode {
        switch self {
        case .vstack(let stack):
            return .vstack(stack.replacingChildren { $0.resolved(at: now) })
        case .hstack(let stack):
            return .hstack(stack.replacingChildren { $0.resolved(at: now) })
        case .date(let node):
            return ViewNode.text(node.text(at: now ?? node.text.shownAt ?? node.text.date)).accentable(node.accentable)
        case .bar(let bar):
            return .bar(bar.at(now ?? bar.timerInterval?.from ?? .distantPast))
        case .text(var text):
            text.spans = text.spans.map { span in
                var span = span
                span.pieces = span.pieces.map { $0.resolvingDate(at: now) }
                return span
            }
            return .text(text)
        case .table(var table):
            table.rows = table.rows.map { row in
                row.map { cell in
                    var cell = cell
                    cell.pieces = cell.pieces.map { $0.resolvingDate(at: now) }
                    return cell
                }
            }
            return .table(table)
        case .sparkline, .spacer, .divider:
            return self
        }
    }

    /// Whether the view has anything drawn by time: a date node or piece, a timer bar.
    public var containsDates: Bool {
        var found = false
        visitDates { _ in found = true }
        return found
    }

    /// The first moment after `now` at which the view drawn `width` columns wide (at most)
    /// changes by itself: the earliest next change of its date nodes and pieces, and of its
    /// timer bars at eighth-cell precision over `width` columns. nil: never.
    public func nextDateChange(after now: Date, width: Int) -> Date? {
        var next: Date?
        func consider(_ date: Date?) {
            guard let date, date > now else { return }
            if next.map({ date < $0 }) ?? true { next = date }
        }
        visitDates { item in
            switch item {
            case .text(let text): consider(text.nextChange(after: now))
            case .timer(let interval): consider(Self.nextFill(of: interval, after: now, width: width))
            }
        }
        return next
    }

    private enum TimedItem {
        case text(DateText)
        case timer(Bar.TimerInterval)
    }

    private func visitDates(_ visit: (TimedItem) -> Void) {
        func pieces(_ pieces: [Piece]) {
            for case .date(let date) in pieces { visit(.text(date)) }
        }
        switch self {
        case .vstack(let stack), .hstack(let stack):
            for child in stack.children { child.visitDates(visit) }
        case .date(let node):
            visit(.text(node.text))
        case .bar(let bar):
            if let interval = bar.timerInterval { visit(.timer(interval)) }
        case .text(let text):
            for span in text.spans { pieces(span.pieces) }
        case .table(let table):
            for row in table.rows { for cell in row { pieces(cell.pieces) } }
        case .sparkline, .spacer, .divider:
            break
        }
    }

    /// The next moment a timer bar `width` columns wide gains an eighth of a cell (its last
    /// eighth at the end).
    static func nextFill(of interval: Bar.TimerInterval, after now: Date, width: Int) -> Date? {
        let total = interval.to.timeIntervalSince(interval.from)
        guard now < interval.to, total > 0, width > 0 else { return nil }
        let steps = Double(8 * min(width, 10_000))
        // `TerminalUI.Bar` rounds to the nearest eighth: the fill grows half a step on.
        let shown = (interval.fraction(at: now) * steps).rounded()
        return interval.from + total * min(steps, shown + 0.5) / steps
    }
}

extension ViewNode.Piece {
    /// A date piece as text at `now` (nil: at its own date); other pieces as they are.
    func resolvingDate(at now: Date?) -> ViewNode.Piece {
        guard case .date(let date) = self else { return self }
        return .text(now.map { date.text(at: $0) } ?? date.textWithoutTime)
    }
}
