import BackgroundSessions
import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

private func widget(_ kind: String) -> WidgetConfiguration<String> {
    WidgetConfiguration<String>(kind: kind, displayName: kind, makeProvider: { _ in throw CancellationError() }, view: { _, _ in "" })
}

@Suite("Resuming tasks with the URL a widget gives (the generic hook)", .serialized)
struct ResumeHookTests {
    @Test("each widget answers for its own sessions; the first URL wins; a session no widget claims stays suspended")
    func resumeURLFromConfigurations() async throws {
        let asked = Mutex<[String]>([])
        let configurations = [
            widget("clock"),
            widget("board").resumingBackgroundTasks { session, description in
                asked.withLock { $0.append("\(session)/\(description ?? "-")") }
                return session == "board.main" ? URL(string: "http://127.0.0.1:9/now") : nil
            },
            widget("other").resumingBackgroundTasks { session, _ in session.hasPrefix("board.") ? URL(string: "http://127.0.0.1:9/late") : nil },
        ]
        let urlFor = BackgroundSessionManager.resumeURL(for: configurations)
        #expect(urlFor("board.main", "board")?.absoluteString == "http://127.0.0.1:9/now")
        #expect(urlFor("board.b", nil)?.absoluteString == "http://127.0.0.1:9/late")
        #expect(urlFor("nobody", nil) == nil)
        #expect(asked.withLock { $0 } == ["board.main/board", "board.b/-", "nobody/-"])

        let state = scratchStatePath()
        defer { removeTree(state) }
        let first = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        let main = first.session(identifier: "board.main").downloadTask(with: URL(string: "http://old.invalid/a")!, taskDescription: "board")
        let gone = first.session(identifier: "nobody").downloadTask(with: URL(string: "http://old.invalid/b")!)
        first.close()
        let transport = FakeTransport()
        let second = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
        defer { second.close() }
        #expect(second.resumeTasks(urlFor: urlFor).map(\.taskIdentifier) == [main.taskIdentifier])
        #expect(transport.startedRequests.map(\.url) == ["http://127.0.0.1:9/now"])
        #expect(second.suspendedTasks.map(\.taskIdentifier) == [gone.taskIdentifier])
    }
}
