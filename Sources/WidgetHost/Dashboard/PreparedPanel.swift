import WidgetCore
import Widgets

/// A config's panel with its widgets' providers made, not yet on the dashboard: what the
/// `.buildPanels` effect sends back (`.panelsBuilt`), for `update` to add its instances to the
/// driver. The factories' side effects (leases, subscriptions, watches) are behind it;
/// `update` only installs.
package struct PreparedPanel: Sendable {
    package struct Member: Sendable {
        package var widget: TerminalWidget
        package var title: String
        package var options: WidgetOptions
        package var provider: AnyTimelineProvider
    }

    /// A panel built anew.
    package struct Fresh: Sendable {
        package var title: String
        package var members: [Member] = []
        /// A member whose provider could not be made: shown as the panel's error.
        package var setupError: String?
    }

    package var config: PanelConfig
    /// nil: the dashboard's panel of the same config is kept as it is (instances, entries).
    package var fresh: Fresh?
}

extension PreparedPanel: Equatable {
    /// The same config, kept or built with the same kinds and titles (a provider is closures,
    /// with no equality of its own): what a `.panelsBuilt` message compares by.
    package static func == (a: Self, b: Self) -> Bool {
        a.config == b.config && a.fresh?.title == b.fresh?.title && a.fresh?.setupError == b.fresh?.setupError
            && a.fresh?.members.map(\.widget.kind) == b.fresh?.members.map(\.widget.kind)
            && a.fresh?.members.map(\.title) == b.fresh?.members.map(\.title)
    }
}
