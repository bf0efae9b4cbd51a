import TerminalUI
import WidgetCore
import Widgets

/// One panel on the dashboard: a widget, or a stack of widgets sharing one panel.
struct DashboardPanel {
    /// One widget instance shown in the panel.
    struct Member {
        var id: WidgetInstanceID
        var widget: TerminalWidget
        var title: String
        /// The member's options (for actions).
        var options: WidgetOptions = [:]
    }

    var title: String
    var family: WidgetFamily
    var members: [Member]
    /// A member whose provider could not be made (bad option combination): shown as an error.
    var setupError: String?
    /// The config it was built from: a reloaded config reuses panels whose config is unchanged.
    var config: PanelConfig?
    /// A stack (Smart Stack): the member shown now.
    var shown = 0
    /// A stack flipped by hand (`[`, `]`): its members' relevances at the flip. The manual
    /// choice holds while they stay the same; the next change gives the choice back to
    /// relevance. Nil: relevance chooses.
    var heldRelevances: [Float?]?

    /// A stack of several widgets, showing one at a time.
    var isStack: Bool { members.count > 1 }

    /// The member on screen: the only one, or the stack's shown one.
    var shownMember: Member? { members.indices.contains(shown) ? members[shown] : members.first }

    /// Which of N a stack shows (" 2/3"); empty for a single widget.
    var position: String { isStack ? " \(shown + 1)/\(members.count)" : "" }

    /// The panel's title with the stack's position ("Heroes 2/3"), as the status bar shows it.
    var displayTitle: String { title + position }

    /// The member a Smart Stack shows for these relevances (a member without one counts as
    /// 0): the most relevant; on a tie the current one stays, else the first of the tied.
    static func mostRelevant(_ relevances: [Float?], current: Int) -> Int {
        let scores = relevances.map { $0 ?? 0 }
        guard let best = scores.max() else { return 0 }
        if scores.indices.contains(current), scores[current] == best { return current }
        return scores.firstIndex(of: best) ?? 0
    }
}
