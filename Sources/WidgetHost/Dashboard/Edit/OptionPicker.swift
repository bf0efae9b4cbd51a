import WidgetCore

/// The picker of a `dynamic` option in the Edit Widget form (`→` on its row, DESIGN.md §10):
/// what is typed goes to the widget's `DynamicOptionsProvider` (`.queryOptions`), one request
/// out at a time — keys typed meanwhile are asked for when its answer comes, so a fast typist
/// sends a request per answer, not per key, and nothing is done per frame. Until the answer
/// for what is typed comes, the last answer is filtered here.
struct OptionPicker: Equatable, Sendable {
    /// The form's row it fills.
    var row: Int
    var kind: String
    var option: String
    /// What is typed.
    var query: String
    /// The provider's last answer, and the query it answered (nil: none yet).
    var items: [DynamicOptionItem] = []
    var answered: String?
    /// What the last answer said instead of items.
    var failure: String?
    /// The query whose answer is awaited (nil: no request out).
    var asked: String?
    /// The items listed: the answer, filtered by `query` while it answered another one.
    var shown: [DynamicOptionItem] = []
    var selection = 0

    /// The longest query typed.
    static let maximumQuery = 200

    /// `shown` again after the answer or the query changed; the selection kept in range.
    mutating func refilter() {
        let text = query.lowercased()
        shown = answered == query || text.isEmpty ? items
            : items.filter { $0.value.lowercased().contains(text) || $0.title.lowercased().contains(text) }
        selection = max(0, min(selection, shown.count - 1))
    }

    /// Whether the query typed still needs asking (none out, and not the one answered).
    var needsAsking: Bool { asked == nil && answered != query }

    /// Takes the answer to the request out; false when it is not the one awaited.
    mutating func take(_ answer: OptionsAnswer) -> Bool {
        guard answer.kind == kind, answer.option == option, answer.query == asked else { return false }
        asked = nil
        answered = answer.query
        items = answer.failure == nil ? answer.items : []
        failure = answer.failure
        refilter()
        return true
    }
}

/// What the picker asks the host (`.queryOptions`): the kind's `DynamicOptionsProvider` for one
/// option, with the query and the panel's options as the form has them.
package struct OptionsRequest: Equatable, Sendable {
    var kind: String
    var query: DynamicOptionsQuery
}

/// The host's answer to `.queryOptions` (`.optionsAnswered`): the items, bounded
/// (`DynamicOptionsBounds`), or why there are none.
package struct OptionsAnswer: Equatable, Sendable {
    var kind: String
    var option: String
    var query: String
    var items: [DynamicOptionItem]
    var failure: String?
}
