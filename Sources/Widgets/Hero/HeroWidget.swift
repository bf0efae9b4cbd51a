import FoundationEssentials
import TerminalUI
import WidgetCore

/// The `hero` widget: one Emoji Ranger's detail — avatar, level, exp, health bar and the time
/// to full health — from the leaderboard's boards.
///
/// Options (`HeroOptions`): `name` (required), `session` (the leaderboard session to read).
public enum HeroWidget {
    public static let kind = "hero"

    public static func configuration(context: WidgetContext) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try HeroOptions(options)
                guard !options.name.isEmpty else { throw OptionError("name is required") }
                try LeaderboardWidget.validate(session: options.session)
                let (name, session, sessions) = (options.name, options.session, context.leaderboardSessions)
                return AnyTimelineProvider(HeroProvider(
                    name: name, session: session,
                    store: LeaderboardStore(context: context), now: context.now,
                    page: { sessions.url(for: session).flatMap { pageURL(board: $0.absoluteString, hero: name) } }))
            },
            view: PanelView.typed(view)
        )
        .dynamicOptions { query in try heroNames(query, store: LeaderboardStore(context: context)) }
    }

    /// The name picker: the heroes of the board the panel's `session` last fetched, those
    /// whose name contains the query (ignoring case), in the board's order.
    static func heroNames(_ query: DynamicOptionsQuery, store: LeaderboardStore) throws -> [DynamicOptionItem] {
        let session = query.options.string(HeroOptions.name(of: \HeroOptions.session)) ?? LeaderboardWidget.defaultSession
        guard let board = store.load(session: session).board else {
            throw OptionError("no board of session '\(session)' yet: a leaderboard panel fetches it")
        }
        let text = query.query.lowercased()
        return board.heroes.filter { text.isEmpty || $0.name.lowercased().contains(text) }.map { hero in
            DynamicOptionItem(value: hero.name, title: "\(hero.avatar) \(hero.name)",
                              subtitle: "level \(hero.level)" + (board.rank(of: hero.name).map { " · #\($0)" } ?? ""))
        }
    }

    /// `+`: heals the hero through the leaderboard server its board comes from
    /// (`POST /heroes/NAME/heal` next to the board's URL), then asks the leaderboard for the
    /// changed board (a push stream brings it too; whichever is first shows it).
    static func heal(_ action: WidgetActionContext, context: WidgetContext, sessions: LeaderboardSessionRegistry) async throws {
        guard let options = try? HeroOptions(action.options) else { throw WidgetActionError("no hero name") }
        let (name, session) = (options.name, options.session)
        guard let board = sessions.url(for: session) else {
            throw WidgetActionError("no leaderboard panel fetches session '\(session)'")
        }
        guard let url = healURL(board: board.absoluteString, hero: name) else {
            throw WidgetActionError("cannot make a heal URL from the board's")
        }
        do {
            _ = try await context.post(url)
        } catch let error as HTTPPostError where error.status == 404 {
            throw WidgetActionError("the server has no hero named \(name)")
        }
        // The user acted: the leaderboard fetches as for their `r` (free), and shows the board.
        context.center.reloadTimelines(ofKind: LeaderboardWidget.kind, cause: .user)
    }

    /// `http://host:port/heroes/Power%20Panda/heal` for a board at `http://host:port/leaderboard`
    /// (the path's last segment replaced; query and fragment dropped), or nil.
    /// The hero's page on the leaderboard server (`GET /heroes/NAME`): where `o` on the card
    /// leads.
    static func pageURL(board: String, hero: String) -> String? {
        healURL(board: board, hero: hero).map { String($0.dropLast("/heal".count)) }
    }

    static func healURL(board: String, hero: String) -> String? {
        let withoutQuery = board.prefix { $0 != "?" && $0 != "#" }
        guard let schemeEnd = withoutQuery.firstIndex(of: ":"), withoutQuery[schemeEnd...].hasPrefix("://") else { return nil }
        let authority = withoutQuery.index(schemeEnd, offsetBy: 3)
        guard let slash = withoutQuery[authority...].lastIndex(of: "/") else { return nil }
        // RFC 3986 unreserved characters kept, every other byte of the UTF-8 `%XX`.
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in hero.utf8 {
            if unreserved.contains(byte) { encoded.unicodeScalars.append(Unicode.Scalar(byte)) }
            else { encoded += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])" }
        }
        return withoutQuery[..<slash] + "/heroes/\(encoded)/heal"
    }

    /// The hero as a view description: name, level and rank, exp, a health bar (from 5 rows)
    /// and the time to full health; as rows allow, its type, how fast it recovers and its rank
    /// and exp on the board before (rank history). The groups are spread down the panel and
    /// the bar spans it, so a tall or wide card has no blank band (DESIGN.md §9). A redacted
    /// or "no board" line otherwise.
    static func view(_ entry: HeroEntry, context: WidgetViewContext) -> ViewNode {
        let columns = max(0, context.size.columns)
        let rows = context.size.rows
        guard let hero = entry.hero, !context.isPlaceholder else {
            let span = context.isPlaceholder ? ViewNode.Span.glyph(.redaction, count: min(10, columns), role: .placeholder)
                                             : ViewNode.Span("no board with \(entry.name) yet", role: .muted)
            return .centered([.text([span], alignment: .center)])
        }
        // The five lines every card has, then the extras in the order they are given room.
        let history = historyLine(entry)
        let extras = rows - 5
        var identity: [ViewNode] = [.text("\(hero.avatar) \(hero.name)", role: .accent, bold: true, alignment: .center)]
        if extras >= 1 { identity.append(.text(hero.heroType, role: .muted, alignment: .center)) }
        var rank: [ViewNode.Piece] = entry.rank.map { [.glyph(.separator), .text("#\($0)")] } ?? []
        if let now = entry.rank, let before = entry.previousRank, before != now {
            rank += [.text(" "), .glyph(before > now ? .rankUp : .rankDown)]
        }
        var standing: [ViewNode] = [
            .text([ViewNode.Span("level \(hero.level)", pieces: rank, role: .muted)], alignment: .center),
            .text("\(LeaderboardView.formatExp(hero.exp)) exp", alignment: .center),
        ]
        if extras >= 3, let history { standing.append(history) }
        let role: StyleRole = hero.health < 0.25 ? .negative : hero.health < 0.6 ? .warning : .positive
        var health: [ViewNode] = []
        if rows >= 5 {
            // The bar spans the card with one blank column each side.
            health.append(columns >= 3 ? .hstack([.spacer, .bar(hero.health, role: role, showsTrack: true), .spacer], weights: [1, columns - 2, 1])
                                       : .text(""))
        }
        // "full in 2h": the time left at each frame's moment (text that updates itself).
        let full: ViewNode.Span
        let fullRole: StyleRole = hero.health < 0.25 ? .negative : .muted
        if hero.health >= 1 {
            full = ViewNode.Span("full health", role: fullRole)
        } else if let seconds = hero.secondsToFullHealth {
            full = seconds < DateText.maximumSeconds
                ? ViewNode.Span("full ", pieces: [.date(DateText(entry.date + seconds, style: .relative, shownAt: entry.date))], role: fullRole)
                : ViewNode.Span("full in \(DurationText.duration(seconds))", role: fullRole)
        } else {
            full = ViewNode.Span("not recovering", role: fullRole)
        }
        // Critical health is an alert state: accentable.
        health.append(ViewNode.text([full], alignment: .center).accentable(hero.health < 0.25))
        if extras >= 2, hero.health < 1, hero.healthRecoveryRatePerHour > 0 {
            health.append(.text("recovers \(percentPerHour(hero.healthRecoveryRatePerHour))/h", role: .muted, alignment: .center))
        }
        return .spread([identity, standing, health], rows: rows)
    }

    /// "was #3 · +120 exp" (just "was #3" when its exp did not change) from the board
    /// before, or nil without one.
    static func historyLine(_ entry: HeroEntry) -> ViewNode? {
        guard let rank = entry.previousRank, let exp = entry.previousExp else { return nil }
        var pieces: [ViewNode.Piece] = []
        if let hero = entry.hero, hero.exp != exp {
            let gained = hero.exp - exp
            pieces = [.glyph(.separator), .text(gained > 0 ? "+\(LeaderboardView.compact(gained)) exp" : "-\(LeaderboardView.compact(-gained)) exp")]
        }
        return .text([ViewNode.Span("was #\(rank)", pieces: pieces, role: .muted)], alignment: .center)
    }

    /// "30%", "2.5%": a recovery rate per hour (a fraction of full health) as a percentage.
    static func percentPerHour(_ rate: Double) -> String {
        let tenths = Int((min(max(0, rate), 100) * 1000).rounded())
        return tenths >= 100 || tenths % 10 == 0 ? "\((tenths + 5) / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }

    /// The view as an extension would send it to a terminal with `glyphs` (its glyph tokens
    /// written out): the same frame from JSON.
    static func node(_ entry: HeroEntry, context: WidgetViewContext, glyphs: GlyphSet) -> ViewNode {
        view(entry, context: context).resolvingGlyphs(glyphs)
    }
}
