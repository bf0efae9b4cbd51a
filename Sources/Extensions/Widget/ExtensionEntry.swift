import FoundationEssentials
import TerminalUI
import WidgetCore

/// An entry of an extension's timeline: a date and the view to show from then on, as data.
public struct ExtensionEntry: TimelineEntry, Equatable {
    public var date: Date
    public var relevance: TimelineEntryRelevance?
    public var view: ViewNode
    /// Why a snapshot shows the placeholder instead (`TimelineProvider.snapshot` cannot throw):
    /// for `widgethost extension run --snapshot`, which reports it.
    public var failure: ExtensionError?
    /// The entry's link (`url` in its JSON): `o` opens it.
    public var url: String?
    /// What the entry asks the user to look at (`alert` in its JSON).
    public var alert: EntryAlert?

    public init(date: Date, relevance: TimelineEntryRelevance? = nil, view: ViewNode, failure: ExtensionError? = nil,
                url: String? = nil, alert: EntryAlert? = nil) {
        self.alert = alert
        self.date = date
        self.failure = failure
        self.relevance = relevance
        self.view = view
        self.url = url
    }
}
