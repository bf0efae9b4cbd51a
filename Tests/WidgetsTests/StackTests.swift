import FoundationEssentials
import JSONTree
import Testing
import WidgetCore
import Widgets

private struct Dated: TimelineEntry {
    var date: Date
    var relevance: TimelineEntryRelevance?
}

/// The Smart Stack's own rules, without a dashboard: which member is shown and when to look
/// again (`StackRotation`), what a stack is and what its config may hold (`StackDefinition`).
@Suite("Smart Stack rules")
struct StackTests {
    @Test("the most relevant member is shown; a tie keeps the one shown, else the first of the tied; no relevance counts as 0")
    func mostRelevant() {
        var rotation = StackRotation()
        rotation.update(relevances: [0.2, 1.0])
        #expect(rotation.shown == 1)
        rotation.update(relevances: [1.0, 1.0])
        #expect(rotation.shown == 1, "a tie keeps the member shown")
        rotation.update(relevances: [nil, nil, 0.5])
        #expect(rotation.shown == 2)
        #expect(StackRotation.mostRelevant([0.3, 0.3, 0.1], current: 2) == 0)
        #expect(StackRotation.mostRelevant([], current: 4) == 0)
    }

    @Test("a flip wraps and holds while the relevances stay as they were; the next change gives the choice back")
    func flipHolds() {
        var rotation = StackRotation()
        rotation.update(relevances: [1.0, 0.5, 0.1])
        rotation.flip(by: -1, relevances: [1.0, 0.5, 0.1])
        #expect(rotation.shown == 2 && rotation.position(of: 3) == " 3/3")
        rotation.update(relevances: [1.0, 0.5, 0.1])
        #expect(rotation.shown == 2, "held")
        rotation.update(relevances: [1.0, 0.6, 0.1])
        #expect(rotation.shown == 0 && rotation.held == nil)
    }

    @Test("the choice waits for every member's first answer: which member answers first decides nothing")
    func waitsForFirstAnswers() {
        var rotation = StackRotation()
        // The second member answered first: the first, still loading, counts as 0 but is not passed over.
        rotation.update(relevances: [nil, 1.0], answered: [false, true])
        #expect(rotation.shown == 0)
        // Both answered, a tie: the one shown stays.
        rotation.update(relevances: [1.0, 1.0], answered: [true, true])
        #expect(rotation.shown == 0)
        // A member that failed has answered: the stack goes to the one with data.
        var failed = StackRotation()
        failed.update(relevances: [nil, 1.0], answered: [true, true])
        #expect(failed.shown == 1)
    }

    @Test("the next wake-up is the first relevance to run out after now; none without a finite positive duration")
    func nextExpiry() {
        let now = Date(timeIntervalSince1970: 100)
        let entries: [(any TimelineEntry)?] = [
            Dated(date: Date(timeIntervalSince1970: 0), relevance: TimelineEntryRelevance(score: 1, duration: 300)),
            Dated(date: Date(timeIntervalSince1970: 90), relevance: TimelineEntryRelevance(score: 1, duration: 60)),
            Dated(date: Date(timeIntervalSince1970: 0), relevance: TimelineEntryRelevance(score: 1, duration: 50)),  // over
            Dated(date: Date(timeIntervalSince1970: 0), relevance: TimelineEntryRelevance(score: 1, duration: .infinity)),
            Dated(date: Date(timeIntervalSince1970: 0), relevance: nil),
            nil,
        ]
        #expect(StackRotation.nextExpiry(of: entries, after: now) == Date(timeIntervalSince1970: 150))
        #expect(StackRotation.nextExpiry(of: [entries[3], entries[4]], after: now) == nil)
    }

    @Test("one meaning of stack: two or more widgets; a stack of one is its widget, said as a warning")
    func meaning() {
        #expect(!StackDefinition.isStack(memberCount: 0) && !StackDefinition.isStack(memberCount: 1))
        #expect(StackDefinition.isStack(memberCount: 2))
        let path = ConfigPath([.key("panels"), .index(0), .key("panels")])
        #expect(StackWidget.definition.folds(memberCount: 2, at: path) == nil)
        #expect(StackWidget.definition.folds(memberCount: 1, at: path)?.description
                == "panels[0].panels: a stack of one panel is shown as that panel; add panels to rotate, or write it without the stack")
    }

    @Test("its members: an array of 1 to 16 panels")
    func members() {
        let stack = StackWidget.definition
        let path = ConfigPath([.key("panels")])
        func problem(_ value: JSONValue?) -> String? {
            var problems: [ConfigDiagnostic] = []
            let elements = stack.members(value, at: path, problems: &problems)
            #expect(elements.isEmpty == !problems.isEmpty)
            return problems.first?.message
        }
        #expect(problem(nil) == "missing required key: the panels of the stack")
        #expect(problem(.array([])) == "expected at least one panel in the stack, got an empty array")
        #expect(problem(.array(Array(repeating: .null, count: 17))) == "expected at most 16 panels in a stack, got 17")
        #expect(problem(.string("clock"))?.hasPrefix("expected an array of panels, got") == true)
        #expect(problem(.array(Array(repeating: .null, count: 16))) == nil)
    }

    @Test("its manifest: every family, medium by default, no options")
    func manifest() {
        #expect(StackWidget.manifest.kind == "stack")
        #expect(StackWidget.manifest.supportedFamilies == WidgetFamily.allCases && StackWidget.manifest.defaultFamily == .medium)
        #expect(StackWidget.manifest.options.isEmpty)
    }
}
