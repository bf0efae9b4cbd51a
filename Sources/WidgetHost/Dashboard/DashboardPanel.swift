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
    /// A stack: which member is shown, flipped by hand or chosen by relevance (`StackRotation`).
    var rotation = StackRotation()

    /// A stack: more than one widget, shown one at a time (`StackDefinition.isStack`; a
    /// config's stack of one is built as its widget).
    var isStack: Bool { StackDefinition.isStack(memberCount: members.count) }

    /// A stack's member shown now (0 for a single widget).
    var shown: Int { rotation.shown }

    /// The member on screen: the only one, or the stack's shown one.
    var shownMember: Member? { members.indices.contains(shown) ? members[shown] : members.first }

    /// Which of N a stack shows (" 2/3"); empty for a single widget.
    var position: String { isStack ? rotation.position(of: members.count) : "" }

    /// The panel's title with the stack's position ("Heroes 2/3"), as the status bar shows it.
    var displayTitle: String { title + position }
}
