import FoundationEssentials
import Testing
import WidgetTestSupport

/// Work of ours reaches the loop's thread only through its mailbox (`LoopMailbox`): no code
/// queues closures on the main dispatch queue or starts main-actor tasks to hand results
/// back. The exceptions are named: the on-loop provider executor (Swift's own jobs), the
/// mailboxes' default signals for loops that are not the terminal's (a headless dashboard, a
/// standalone driver), the bounded wait of headless commands and the async entry point.
@Suite("Hops to the loop")
struct LoopHopTests {
    static let allowed: [String: Int] = [
        "WidgetCore/MainQueueExecutor.swift": 1,
        "WidgetCore/TimelineDriver.swift": 1,
        "WidgetHost/Dashboard/DashboardProgram.swift": 1,
        "WidgetHost/Headless/FirstOf.swift": 1,
        "WidgetHost/WidgetHostCommand.swift": 2,
    ]

    @Test("Sources hop to the main queue or actor only where named")
    func onlyNamedHops() throws {
        let sources = SourceTree.sources
        var found: [String: Int] = [:]
        for file in SourceTree.swiftFiles(under: sources) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let count = text.split(separator: "\n").filter { line in
                let code = line.drop { $0 == " " }
                guard !code.hasPrefix("//") else { return false }
                return code.contains("DispatchQueue.main") || code.contains("Task { @MainActor")
                    || code.contains("MainActor.run")
            }.count
            if count > 0 { found[String(file.dropFirst(sources.count + 1))] = count }
        }
        #expect(found == Self.allowed)
    }
}
