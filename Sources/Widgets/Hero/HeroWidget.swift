import FoundationEssentials
import TerminalUI
import WidgetCore

/// The `hero` widget: one Emoji Ranger's detail — avatar, level, exp, health bar and the time
/// to full health — from the leaderboard's boards.
///
/// Options: `name` (required), `session` (the leaderboard session to read, default
/// "leaderboard").
public enum HeroWidget {
    public static let kind = "hero"

    public static func configuration(services: WidgetServices) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options, environment in
                guard let name = options.string("name"), !name.isEmpty else { throw OptionError("name is required") }
                let session = options.string("session") ?? LeaderboardWidget.defaultSession
                try LeaderboardWidget.validate(session: session)
                return AnyTimelineProvider(HeroProvider(
                    name: name, session: session,
                    store: LeaderboardStore(services: services), now: environment.now))
            },
            view: { entry, context in
                guard let entry = entry as? HeroEntry else { return PanelView { _, _, _ in } }
                return view(entry, context: context)
            }
        )
    }

    static func view(_ entry: HeroEntry, context: WidgetViewContext) -> PanelView {
        PanelView { buffer, rect, glyphs in
            guard let hero = entry.hero, !context.isPlaceholder else {
                let text = context.isPlaceholder ? String(repeating: glyphs.isUnicode ? "▒" : "#", count: min(10, rect.width))
                                                 : "no board with \(entry.name) yet"
                PanelView.centeredLines([(text, CellStyle(context.isPlaceholder ? .placeholder : .muted))])
                    .draw(into: &buffer, in: rect, glyphs: glyphs)
                return
            }
            var lines: [(String, CellStyle)] = [
                ("\(hero.avatar) \(hero.name)", CellStyle(.accent, .bold)),
                ("level \(hero.level)" + (entry.rank.map { LeaderboardView.separator(glyphs) + "#\($0)" } ?? ""), CellStyle(.muted)),
                ("\(LeaderboardView.formatExp(hero.exp)) exp", .plain),
            ]
            let full: String
            if hero.health >= 1 {
                full = "full health"
            } else if let seconds = hero.secondsToFullHealth {
                full = "full in \(DurationText.duration(seconds))"
            } else {
                full = "not recovering"
            }
            let barRows = rect.height >= lines.count + 2 ? 1 : 0
            lines.append((full, CellStyle(hero.health < 0.25 ? .negative : .muted)))
            let top = rect.y + max(0, (rect.height - lines.count - barRows) / 2)
            for (i, line) in lines.enumerated() {
                let y = top + i + (i == lines.count - 1 ? barRows : 0)
                guard y < rect.maxY else { break }
                TextLine(line.0, alignment: .center, style: line.1, glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: rect.x, y: y, width: rect.width, height: 1))
            }
            if barRows == 1 {
                let y = top + lines.count - 1
                let role: StyleRole = hero.health < 0.25 ? .negative : hero.health < 0.6 ? .warning : .positive
                let width = min(rect.width - 2, 16)
                Bar(fraction: hero.health, style: CellStyle(role), glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: rect.x + (rect.width - width) / 2, y: y, width: width, height: 1))
            }
        }
    }
}
