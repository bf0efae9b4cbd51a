import FoundationEssentials
import TerminalUI
import WidgetCore

/// A leaderboard entry as a view for each family: large and extraLarge the ranked table with
/// exp changes, rank movement and health bars; medium the top three; small the leader.
/// The last row says when the board was fetched, or why the last fetch failed.
enum LeaderboardView {
    /// Rows the large and extraLarge tables would use: a header, two rows per hero and the
    /// footer; the host scrolls a zoomed panel through them.
    static func contentHeight(_ entry: LeaderboardEntry, context: WidgetViewContext) -> Int? {
        let rows = min(entry.maxRows, entry.board?.heroes.count ?? 0)
        return context.family == .large || context.family == .extraLarge ? rows * 2 + 3 : nil
    }

    static func view(_ entry: LeaderboardEntry, context: WidgetViewContext) -> ViewNode {
        // From 3 rows the last is the footer; the body has the rest.
        let hasFooter = context.size.rows >= 3
        let size = CellSize(columns: context.size.columns, rows: context.size.rows - (hasFooter ? 1 : 0))
        let body: ViewNode
        if let board = entry.board, !context.isPlaceholder {
            if board.heroes.isEmpty {
                body = .centered([.text("no heroes on the board", role: .muted, alignment: .center)])
            } else {
                switch context.family {
                case .small: body = leader(board, columns: size.columns)
                case .medium: body = table(board, entry: entry, limit: 3, detailed: false, size: size)
                case .large, .extraLarge: body = table(board, entry: entry, limit: entry.maxRows, detailed: true, size: size)
                }
            }
        } else if context.isPlaceholder {
            body = redacted(columns: size.columns)
        } else {
            // A real entry without a board says so (the footer says why): only the placeholder
            // is redacted, so a failed first fetch never looks like loading forever.
            let missing = entry.isFetching && entry.fetchError == nil ? "fetching the board" : "no board yet"
            body = .centered([.text(missing, role: .muted, alignment: .center)])
        }
        guard hasFooter else { return body }
        // The body's stack has a weight, so it takes what the footer leaves whatever it holds.
        return .vstack([.vstack([body], weights: [1]), footer(entry, columns: size.columns)])
    }

    // MARK: Table

    /// The ranked table: rank (with ▲/▼ when it moved), avatar, name, level and exp; detailed
    /// adds the change in exp (46 columns and wider) and a health bar, and, as `size` has rows
    /// for them, a second row per hero with its type, time to full health and recovery rate, a
    /// third with its exp as a bar against the leader's, and blank rows spread evenly between
    /// heroes, so a tall panel has no blank band under the board (DESIGN.md §9). Past 60
    /// columns the health bar takes half of the extra width.
    private static func table(_ board: LeaderboardBoard, entry: LeaderboardEntry, limit: Int, detailed: Bool,
                              size: CellSize) -> ViewNode {
        let heroes = Array(board.heroes.prefix(limit))
        let wide = size.columns >= 46
        var columns = [
            ViewNode.Column("#", width: 3),
            ViewNode.Column("", width: 2),
            ViewNode.Column("Hero"),
            ViewNode.Column("Lv", alignment: .right, width: 3),
            ViewNode.Column("Exp", alignment: .right, width: 7),
        ]
        if wide && detailed { columns.append(ViewNode.Column(titlePieces: [.glyph(.delta)], alignment: .right, width: 5)) }
        if detailed { columns.append(ViewNode.Column("Health", width: wide ? 10 + max(0, size.columns - 60) / 2 : 6)) }
        // Rows per hero as the height allows (the header takes one): the detail line, then the
        // exp bar; what is left is spread between heroes.
        let room = size.rows - 1
        let count = max(1, heroes.count)
        let perHero = !detailed ? 1 : room >= count * 3 ? 3 : room >= count * 2 ? 2 : 1
        let spacing = detailed && heroes.count > 1 ? max(0, room - perHero * count) / (count - 1) : 0
        let leaderExp = max(1, heroes.first?.exp ?? 1)
        var rows: [[ViewNode.Cell]] = []
        for (index, hero) in heroes.enumerated() {
            let rank = index + 1
            if index > 0 { rows += Array(repeating: [], count: spacing) }
            var rankCell = ViewNode.Cell("\(rank)", role: .accent, bold: true)
            if let before = entry.previous?.rank(of: hero.name), before != rank {
                rankCell = ViewNode.Cell("\(rank)", pieces: [.glyph(before > rank ? .rankUp : .rankDown)],
                                         role: before > rank ? .positive : .negative, bold: true)
            }
            let gained = entry.previous?.hero(named: hero.name).map { hero.exp - $0.exp } ?? 0
            var row: [ViewNode.Cell] = [
                rankCell,
                ViewNode.Cell(hero.avatar),
                ViewNode.Cell(hero.name, bold: index == 0),
                ViewNode.Cell("\(hero.level)", role: .muted),
                ViewNode.Cell(formatExp(hero.exp), role: gained < 0 ? .negative : gained > 0 ? .positive : .foreground, bold: gained > 0),
            ]
            if wide && detailed {
                row.append(gained == 0 ? ViewNode.Cell("") : ViewNode.Cell(gained > 0 ? "+\(compact(gained))" : "-\(compact(-gained))",
                                                                            role: gained > 0 ? .positive : .negative))
            }
            if detailed {
                let role: StyleRole = hero.health < 0.25 ? .negative : hero.health < 0.6 ? .warning : .positive
                row.append(.bar(hero.health, role: role))
            }
            // The leader is what the accented mode tints: rank, name and exp.
            if index == 0 { for column in [0, 2, 4] { row[column].accentable = true } }
            rows.append(row)
            if perHero >= 2 {
                // The detail line under each hero spans from the name column to the right edge.
                var detail: [ViewNode.Piece] = []
                if let seconds = hero.secondsToFullHealth, seconds > 0 {
                    detail = [.glyph(.separator), .text("full health in \(DurationText.duration(seconds))")]
                    // The recovery rate where the line has room for it, never at the cost of the time.
                    let rate: [ViewNode.Piece] = [.glyph(.separator), .text("+\(HeroWidget.percentPerHour(hero.healthRecoveryRatePerHour))/h")]
                    if DisplayWidth.of(Sanitizer.sanitize(hero.heroType)) + width(of: detail + rate) <= size.columns - 7 { detail += rate }
                } else if hero.health >= 1 {
                    detail = [.glyph(.separator), .text("full health")]
                }
                rows.append([ViewNode.Cell(""), ViewNode.Cell(""),
                             ViewNode.Cell(hero.heroType, pieces: detail, role: .muted, span: columns.count - 2)])
            }
            if perHero >= 3 {
                // Exp against the leader's, under the name and across the row.
                rows.append([ViewNode.Cell(""), ViewNode.Cell(""),
                             .bar(Double(max(0, hero.exp)) / Double(leaderExp), role: .accent, span: columns.count - 2)])
            }
        }
        return .table(ViewNode.Table(columns: columns, rows: rows))
    }

    // MARK: Leader

    /// The leader's avatar and name, level and exp, centred, and a health bar under them.
    private static func leader(_ board: LeaderboardBoard, columns: Int) -> ViewNode {
        guard let leader = board.heroes.first else { return .vstack([]) }
        // One blank column each side of the bar; weights summing to the width are exact.
        let bar: ViewNode = columns >= 3 ? .hstack([.spacer, .bar(leader.health, role: .positive), .spacer], weights: [1, columns - 2, 1])
                                         : .text("")
        return .vstack([
            .spacer,
            .text(Sanitizer.sanitize("\(leader.avatar) \(leader.name)"), role: .accent, bold: true, alignment: .center).accentable(),
            .text("level \(leader.level)", role: .muted, alignment: .center),
            .text("\(formatExp(leader.exp)) exp", alignment: .center),
            bar,
            .spacer,
        ])
    }

    // MARK: Footer and placeholder

    private static func footer(_ entry: LeaderboardEntry, columns: Int) -> ViewNode {
        let age = entry.fetchedAt.map { DurationText.age(from: $0, to: entry.date) }
        let push: [ViewNode.Piece] = entry.push.map { [.glyph(.separator), .text($0.rawValue)] } ?? []
        if let fetchError = entry.fetchError {
            // The board's age and when the next try comes matter more than the end of a long
            // reason: cut the reason, keep "retry in Ns" and the age.
            var error = Sanitizer.sanitize(fetchError)
            var suffix: [ViewNode.Piece] = (age.map { [.glyph(.separator), .text("board \($0) old")] } ?? []) + push
            if let retry = error.ranges(of: " · retry in ").last {
                // The seconds count down at each frame's time when the entry knows the moment.
                let left: ViewNode.Piece = entry.retryAt.map { .date(DateText.secondsLeft(to: $0, shownAt: entry.date)) }
                    ?? .text(String(error[retry.upperBound...]))
                suffix = [.glyph(.separator), .text("retry in "), left] + suffix
                error = String(error[..<retry.lowerBound])
            }
            let room = columns - ViewNode.Glyph.warning.widestWidth - 1 - width(of: suffix)
            // A failing fetch is an alert state: accentable.
            return ViewNode.text([
                ViewNode.Span(pieces: [.glyph(.warning), .text(" " + error)], role: .warning,
                              limit: room >= 8 ? room + ViewNode.Glyph.warning.widestWidth + 1 : nil),
                ViewNode.Span(pieces: suffix, role: .warning),
            ]).accentable()
        }
        if entry.isFetching && entry.board == nil {
            return .text([ViewNode.Span("fetching", pieces: [.glyph(.ellipsis)], role: .muted)])
        }
        guard let age else { return .text("", role: .muted) }
        let skipped: [ViewNode.Piece] = entry.skipped > 0 ? [.glyph(.separator), .text("\(entry.skipped) unreadable")] : []
        // "updated 4m ago", the age at each frame's time (text that updates itself).
        let updated: [ViewNode.Piece] = entry.fetchedAt.map { [.date(DateText($0, style: .relative, shownAt: entry.date))] } ?? [.text(age + " ago")]
        return .text([ViewNode.Span("updated ", pieces: updated + skipped + push, role: .muted)])
    }

    /// The columns `pieces` take, a glyph token at its widest.
    private static func width(of pieces: [ViewNode.Piece]) -> Int {
        pieces.reduce(0) { total, piece in
            switch piece {
            case .text(let text): total + DisplayWidth.of(text)
            case .glyph(let glyph, let count): total + glyph.widestWidth * count
            // Text that updates itself ("retry in 40s"): as wide as at the entry's date, its
            // widest (the seconds left only shrink).
            case .date(let date): total + DisplayWidth.of(date.textWithoutTime)
            }
        }
    }

    /// Rows of redaction marks of varied lengths, as a board would look.
    private static func redacted(columns: Int) -> ViewNode {
        .vstack((0..<6).map { row in
            .text([.glyph(.redaction, count: max(0, min(columns, 8 + (row * 5) % 11)), role: .placeholder)])
        })
    }

    // MARK: Formatting

    /// "86,463"; above a million "1.2M".
    static func formatExp(_ exp: Int) -> String {
        if exp >= 1_000_000 { return compact(exp) }
        let digits = String(exp)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    /// "950", "12k", "1.2M".
    static func compact(_ n: Int) -> String {
        switch n {
        case ..<10_000: "\(n)"
        case ..<1_000_000: "\(n / 1000)k"
        default: "\(n / 1_000_000).\(n / 100_000 % 10)M"
        }
    }
}
