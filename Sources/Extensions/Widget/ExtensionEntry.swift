import FoundationEssentials
import TerminalUI
import WidgetCore

/// An entry of an extension's timeline: a date and the view to show from then on, as data.
public struct ExtensionEntry: TimelineEntry, Equatable {
    public var date: Date
    public var relevance: TimelineEntryRelevance?
    public var view: ViewNode

    public init(date: Date, relevance: TimelineEntryRelevance? = nil, view: ViewNode) {
        self.date = date
        self.relevance = relevance
        self.view = view
    }
}
