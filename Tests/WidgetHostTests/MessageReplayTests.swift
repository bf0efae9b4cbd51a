import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A frame to compare, and where in the log and the clock it was drawn.
private struct Checkpoint {
    var messages: Int
    var date: Date
    var lines: [String]
}

@Suite("Message log: replay", .serialized)
@MainActor
struct MessageReplayTests {
    @Test("a recorded run of the default dashboard (keys, time, answers) replays to the same frames, with nothing waited for")
    func replaysTheDefaultDashboard() async throws {
        let home = TemporaryDirectory()
        defer { home.remove() }
        // No config in this home: the default dashboard, with its bundled leaderboard server.
        let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: home.path)
        let size = TerminalSize(columns: 100, rows: 30)
        let start = Date()
        func open() throws -> HeadlessDashboard {
            try HeadlessDashboard.open(catalog: .builtin(), configPath: nil, size: size, now: start, environment: environment).get()
        }

        let recorded = try open()
        defer { recorded.close() }
        recorded.recordMessages()
        var checkpoints: [Checkpoint] = []
        func checkpoint() {
            checkpoints.append(Checkpoint(messages: recorded.recordedMessages.records.count, date: recorded.clock.now, lines: recorded.lines))
        }
        #expect(await recorded.settle(within: 10))
        checkpoint()
        recorded.press(.tab)
        checkpoint()
        recorded.press(.character("r"))
        #expect(await recorded.settle(within: 10))
        checkpoint()
        #expect(await recorded.run(for: 150))
        checkpoint()
        recorded.press(.enter)
        checkpoint()
        recorded.resize(to: TerminalSize(columns: 80, rows: 24))
        #expect(await recorded.settle(within: 10))
        checkpoint()
        let log = recorded.recordedMessages.records
        #expect(log.contains { if case .providerAnswered = $0.message { true } else { false } })
        #expect(log.contains { $0.message == .timelinesDue })
        #expect(checkpoints.first?.lines.joined().contains("Ranger Leaderboard") == true, "the default dashboard")

        let replayed = try open()
        defer { replayed.close() }
        var applied = 0
        for (index, checkpoint) in checkpoints.enumerated() {
            replayed.replay(log[applied..<checkpoint.messages])
            applied = checkpoint.messages
            replayed.clock.set(to: checkpoint.date)
            #expect(replayed.lines == checkpoint.lines, "checkpoint \(index)")
        }
        // A replaying dashboard starts nothing: settling it returns at once (it waited forever
        // for a call the driver chose and the replay did not start).
        #expect(await replayed.settle(within: 1))
        await replayed.settleProviders()
    }
}
