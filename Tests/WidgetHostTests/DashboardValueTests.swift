import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

@Suite("The dashboard is a value", .serialized)
@MainActor
struct DashboardValueTests {
    @Test("update is a function of the dashboard's value: copies given the same messages at the same times give the same effects and frames; the original is untouched")
    func updateIsAFunctionOfAValue() async throws {
        let clock = ManualClock(now: at(0))
        let running = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 24), clock: clock)
        let widgets = Catalog.builtin().bind(WidgetContext(center: running.center, now: { clock.now }, environment: ["TZ": "UTC"]))
        func clockPanel(_ zone: String) -> PanelConfig {
            PanelConfig(kind: "clock", family: .small, title: zone, options: ["timeZone": .string(zone), "seconds": .bool(true)])
        }
        running.build(DashboardConfig(panels: [clockPanel("UTC"), clockPanel("Asia/Tokyo"), clockPanel("Europe/Berlin")]),
                      widgets: widgets)
        await running.settle()
        let original = running.dashboard
        let originalFrame = original.render(at: clock.now)

        var a = original
        var b = original
        let messages: [DashboardMessage] = [
            .key(.tab), .key(.character("r")), .key(.character("t")), .key(.character("p")), .timelinesDue,
            .resized(TerminalSize(columns: 60, rows: 20)), .key(.enter), .key(.down), .key(.character("?")), .key(.escape),
            .key(.character("R")), .clockSet(step: 0), .key(.character("p")), .relevanceExpired, .timelinesDue,
        ]
        var answered = 0
        for (n, message) in messages.enumerated() {
            let now = at(Double(n) + 0.5)
            let effectsA = a.update(message, at: now)
            let effectsB = b.update(message, at: now)
            #expect(effectsA == effectsB, "message \(n) (\(message)) had other effects on the copy")
            #expect(a.render(at: now) == b.render(at: now), "message \(n) (\(message)) drew another frame on the copy")
            // The calls the effects ask for are answered as the program would: one message each.
            for case .startProvider(let call) in effectsA {
                let timeline = try await call.provider.timeline(in: call.context)
                let answer = DashboardMessage.providerAnswered(ProviderAnswer(request: call.request, result: .success(timeline)))
                #expect(a.update(answer, at: now) == b.update(answer, at: now))
                answered += 1
            }
        }
        #expect(answered >= 4, "r, R and the clock being set asked the clocks again (\(answered) answers)")
        #expect(a.render(at: at(20)) == b.render(at: at(20)))
        #expect(a.render(at: at(20)) != original.render(at: at(20)), "the messages changed the copies")
        #expect(original.render(at: clock.now) == originalFrame, "the original value is as it was")
        #expect(running.dashboard.render(at: clock.now) == originalFrame, "and so is the program's: only its own messages change it")
        #expect(running.dashboard.timelines.runningProviderCalls == 0)
    }
}
