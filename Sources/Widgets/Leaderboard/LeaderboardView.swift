import FoundationEssentials
import TerminalUI
import WidgetCore

/// Draws a leaderboard entry for each family: large and extraLarge the ranked table with
/// exp changes, rank movement and health bars; medium the top three; small the leader.
/// The last row says when the board was fetched, or why the last fetch failed.
enum LeaderboardView {
    static func view(_ entry: LeaderboardEntry, context: WidgetViewContext) -> PanelView {
        let rows = min(entry.maxRows, entry.board?.heroes.count ?? 0)
        let contentHeight: Int? = context.family == .large || context.family == .extraLarge ? rows * 2 + 3 : nil
        return PanelView(contentHeight: contentHeight) { buffer, rect, glyphs in
            let (body, footer) = rect.height >= 3 ? (rect.inset(bottom: 1), Rect(x: rect.x, y: rect.maxY - 1, width: rect.width, height: 1))
                                                  : (rect, Rect.zero)
            drawFooter(entry, in: footer, glyphs: glyphs, into: &buffer)
            guard let board = entry.board, !context.isPlaceholder else {
                drawRedacted(in: body, glyphs: glyphs, into: &buffer, waiting: entry.fetchError == nil)
                return
            }
            if board.heroes.isEmpty {
                PanelView.centeredLines([("no heroes on the board", CellStyle(.muted))]).draw(into: &buffer, in: body, glyphs: glyphs)
                return
            }
            switch context.family {
            case .small: drawLeader(board, entry: entry, in: body, glyphs: glyphs, into: &buffer)
            case .medium: drawTable(board, entry: entry, limit: 3, detailed: false, in: body, glyphs: glyphs, into: &buffer)
            case .large, .extraLarge:
                drawTable(board, entry: entry, limit: entry.maxRows, detailed: true, in: body, glyphs: glyphs, into: &buffer)
            }
        }
    }

    // MARK: Table

    private static func drawTable(_ board: LeaderboardBoard, entry: LeaderboardEntry, limit: Int, detailed: Bool,
                                  in rect: Rect, glyphs: GlyphSet, into buffer: inout CellBuffer) {
        let heroes = Array(board.heroes.prefix(limit))
        let wide = rect.width >= 46
        var columns = [
            TableColumn("#", width: .fixed(3), alignment: .left),
            TableColumn("", width: .fixed(2)),
            TableColumn("Hero"),
            TableColumn("Lv", width: .fixed(3), alignment: .right),
            TableColumn("Exp", width: .fixed(7), alignment: .right),
        ]
        if wide && detailed { columns.append(TableColumn(glyphs.isUnicode ? "Δ" : "+/-", width: .fixed(5), alignment: .right)) }
        if detailed { columns.append(TableColumn("Health", width: .fixed(wide ? 10 : 6))) }
        // Two rows per hero (the second with type and time to full health) when there is room.
        let spacious = detailed && rect.height >= heroes.count * 2 + 1
        var rows: [[TableCell]] = []
        for (index, hero) in heroes.enumerated() {
            let rank = index + 1
            var rankText = "\(rank)"
            var rankStyle = CellStyle(.accent, .bold)
            if let before = entry.previous?.rank(of: hero.name), before != rank {
                rankText += before > rank ? (glyphs.isUnicode ? "▲" : "^") : (glyphs.isUnicode ? "▼" : "v")
                rankStyle = CellStyle(before > rank ? .positive : .negative, .bold)
            }
            let gained = entry.previous?.hero(named: hero.name).map { hero.exp - $0.exp } ?? 0
            var row: [TableCell] = [
                TableCell(rankText, style: rankStyle),
                TableCell(hero.avatar),
                TableCell(hero.name, style: CellStyle(.foreground, index == 0 ? .bold : [])),
                TableCell("\(hero.level)", style: CellStyle(.muted)),
                TableCell(formatExp(hero.exp), style: gained > 0 ? CellStyle(.positive, .bold) : gained < 0 ? CellStyle(.negative) : .plain),
            ]
            if wide && detailed {
                row.append(gained == 0 ? TableCell("") : TableCell(gained > 0 ? "+\(compact(gained))" : "-\(compact(-gained))",
                                                                    style: CellStyle(gained > 0 ? .positive : .negative)))
            }
            rows.append(row)
            if spacious { rows.append([]) }
        }
        let table = Table(columns: columns, rows: rows, glyphs: glyphs)
        table.draw(into: &buffer, in: rect)
        let widths = table.columnWidths(in: rect.width)
        if spacious {
            // The detail line under each hero spans from the name column to the right edge.
            let x = rect.x + widths[0] + widths[1] + 2
            for (index, hero) in heroes.enumerated() {
                var detail = hero.heroType
                if let seconds = hero.secondsToFullHealth, seconds > 0 {
                    detail += separator(glyphs) + "full health in \(DurationText.duration(seconds))"
                } else if hero.health >= 1 {
                    detail += separator(glyphs) + "full health"
                }
                TextLine(detail, style: CellStyle(.muted), glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: x, y: rect.y + 2 + index * 2, width: rect.maxX - x, height: 1).intersection(rect))
            }
        }
        guard detailed, let healthIndex = columns.firstIndex(where: { $0.title == "Health" }) else { return }
        let x = rect.x + widths[..<healthIndex].reduce(0, +) + healthIndex
        let step = spacious ? 2 : 1
        for (index, hero) in heroes.enumerated() {
            let y = rect.y + 1 + index * step
            guard y < rect.maxY else { break }
            let role: StyleRole = hero.health < 0.25 ? .negative : hero.health < 0.6 ? .warning : .positive
            Bar(fraction: hero.health, style: CellStyle(role), glyphs: glyphs)
                .draw(into: &buffer, in: Rect(x: x, y: y, width: widths[healthIndex], height: 1))
        }
    }

    // MARK: Leader

    private static func drawLeader(_ board: LeaderboardBoard, entry: LeaderboardEntry, in rect: Rect, glyphs: GlyphSet,
                                   into buffer: inout CellBuffer) {
        guard let leader = board.heroes.first else { return }
        let lines: [(String, CellStyle)] = [
            ("\(leader.avatar) \(leader.name)", CellStyle(.accent, .bold)),
            ("level \(leader.level)", CellStyle(.muted)),
            ("\(formatExp(leader.exp)) exp", .plain),
        ]
        let top = rect.y + max(0, (rect.height - lines.count - 1) / 2)
        for (i, line) in lines.enumerated() where top + i < rect.maxY {
            TextLine(line.0, alignment: .center, style: line.1, glyphs: glyphs)
                .draw(into: &buffer, in: Rect(x: rect.x, y: top + i, width: rect.width, height: 1))
        }
        let barY = top + lines.count
        if barY < rect.maxY {
            Bar(fraction: leader.health, style: CellStyle(.positive), glyphs: glyphs)
                .draw(into: &buffer, in: Rect(x: rect.x + 1, y: barY, width: max(0, rect.width - 2), height: 1))
        }
    }

    // MARK: Footer and placeholder

    private static func drawFooter(_ entry: LeaderboardEntry, in rect: Rect, glyphs: GlyphSet, into buffer: inout CellBuffer) {
        guard !rect.isEmpty else { return }
        let age = entry.fetchedAt.map { DurationText.age(from: $0, to: entry.date) }
        let push = entry.push.map { separator(glyphs) + $0.rawValue } ?? ""
        var text: String
        let style: CellStyle
        if var error = entry.fetchError {
            // The board's age and when the next try comes matter more than the end of a long
            // reason: cut the reason, keep "retry in Ns" and the age.
            let mark = glyphs.isUnicode ? "⚠ " : "! "
            var suffix = (age.map { separator(glyphs) + "board \($0) old" } ?? "") + push
            if let retry = error.ranges(of: " · retry in ").last {
                suffix = separator(glyphs) + "retry in " + error[retry.upperBound...] + suffix
                error = String(error[..<retry.lowerBound])
            }
            let room = rect.width - DisplayWidth.of(mark) - DisplayWidth.of(suffix)
            let reason = room >= 8 ? DisplayWidth.truncate(error, toWidth: room, ellipsis: glyphs.ellipsis) : error
            text = mark + reason + suffix
            style = CellStyle(.warning)
        } else if entry.isFetching && entry.board == nil {
            text = "fetching" + glyphs.ellipsis
            style = CellStyle(.muted)
        } else if let age {
            text = "updated \(age) ago" + (entry.skipped > 0 ? separator(glyphs) + "\(entry.skipped) unreadable" : "") + push
            style = CellStyle(.muted)
        } else {
            text = ""
            style = CellStyle(.muted)
        }
        TextLine(text, style: style, glyphs: glyphs).draw(into: &buffer, in: rect)
    }

    private static func drawRedacted(in rect: Rect, glyphs: GlyphSet, into buffer: inout CellBuffer, waiting: Bool) {
        let block = glyphs.isUnicode ? "▒" : "#"
        for row in 0..<min(rect.height, 6) {
            let width = max(0, min(rect.width, 8 + (row * 5) % 11))
            TextLine(String(repeating: block, count: width), style: CellStyle(.placeholder), glyphs: glyphs)
                .draw(into: &buffer, in: Rect(x: rect.x, y: rect.y + row, width: rect.width, height: 1))
        }
    }

    // MARK: Formatting

    /// " · " between parts of a line; " - " with ASCII glyphs (the middle dot is not ASCII).
    static func separator(_ glyphs: GlyphSet) -> String { glyphs.isUnicode ? " · " : " - " }

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
