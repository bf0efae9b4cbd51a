import FoundationEssentials

/// When the host should ask a provider for its next timeline, as in WidgetKit.
public enum TimelineReloadPolicy: Sendable, Equatable, Hashable {
    /// Ask after the last entry's date has come.
    case atEnd
    /// Ask at this date, even if entries are left.
    case after(Date)
    /// Ask only when `WidgetCenter` (or the user) requests a reload.
    case never
}
