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
        /// The member's options and the environment its provider was made with (for actions).
        var options: WidgetOptions = [:]
        var environment: WidgetEnvironment? = nil
    }

    var title: String
    var family: WidgetFamily
    var members: [Member]
    /// A member whose provider could not be made (bad option combination): shown as an error.
    var setupError: String?
    /// The config it was built from: a reloaded config reuses panels whose config is unchanged.
    var config: PanelConfig?
}
