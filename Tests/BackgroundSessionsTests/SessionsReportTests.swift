@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import Testing
import TerminalUI
import WidgetTestSupport

@Suite("widgethost sessions (the report)", .serialized)
struct SessionsReportTests {
    @Test("a server's reason, identifiers and URLs are printed inert, without credentials, and cut to a bounded length")
    func inertFields() async throws {
        let hostile = "\u{1B}]52;c;SGVsbG8=\u{07}\u{1B}[2J\u{9B}31m\u{202E}"
        let state = try makeJournal { manager, transport in
            let session = manager.session(identifier: "board\u{1B}[31m")
            _ = session.downloadTask(with: URL(string: "http://user:secret@127.0.0.1:9/x?q=\u{1B}")
                                        ?? URL(string: "http://user:secret@127.0.0.1:9/x?q=%1B")!,
                                     taskDescription: "main\u{1B}[H")
            transport.emit(transport.runningIDs[0], .retrying(attempt: 1, delay: .seconds(1),
                                                                 reason: "server answered 500 \(hostile)\n" + String(repeating: "y", count: 10_000)))
            _ = manager.session(identifier: "other").downloadTask(with: URL(string: "http://127.0.0.1:9/y")!)
            transport.finish(transport.runningIDs[1], with: .failed(TransferFailure(kind: .httpStatus(503), reason: "server answered 503 \(hostile)",
                                                                                    attempts: 1)))
        }
        defer { removeTree(state) }
        let report = try SessionsReport.text(stateDirectory: state)
        #expect(terminalControls(in: report).isEmpty, "\(report)")
        #expect(!report.contains("secret"))
        #expect(report.contains("session board␛[31m"))
        #expect(report.contains("task 1 \"main␛[H\": in flight, 1 attempt, http://***@127.0.0.1:9/x"))
        #expect(report.contains("last error: server answered 500 ␛]52;c;SGVsbG8=␇␛[2J�31m�␊yyy"))
        #expect(report.contains("failed: server answered 503 ␛]52;c;SGVsbG8=␇␛[2J�31m�"))
        #expect(report.split(separator: "\n").allSatisfy { $0.count <= 250 }, "\(report)")
        #expect(report.contains("y…\n"), "a long reason is cut")
    }

    @Test("credentials are hidden in every URL of a text; a text without them is unchanged")
    func credentials() {
        #expect(ReportText.redactingCredentials("http://u:p@h:1/x and https://tok@h2/?a=b@c") == "http://***@h:1/x and https://***@h2/?a=b@c")
        #expect(ReportText.redactingCredentials("mail me@example.com, see http://h/p@x") == "mail me@example.com, see http://h/p@x")
        #expect(ReportText.field("abcdef", limit: 4) == "abc…" && ReportText.field("abcd", limit: 4) == "abcd")
    }

    @Test("the report's sanitiser agrees with TerminalUI's on every scalar it could meet below U+3000")
    func sameTableAsTerminalUI() {
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(ReportText.replacement(for: scalar) == Sanitizer.replacement(for: scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test("20k tasks: counted in SQL, each session lists at most 20 tasks and 20 events, at most 50 sessions")
    func bounded() async throws {
        let state = try makeJournal()
        defer { removeTree(state) }
        try editJournal(state) { db in
            try db.transaction { () throws(SQLiteError) in
                // 20,000 tasks in "big" (every 10th in flight), one in each of 60 small sessions, 30 events in "big".
                try db.query("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                    INSERT INTO tasks(session, description, url, state, attempts, created, updated)
                    SELECT 'big', 'board', 'http://127.0.0.1:9/b?' || i, CASE WHEN i % 10 = 0 THEN 'running' ELSE 'finished' END,
                           i % 4, 1800000000, 1800000000 FROM n
                    """)
                try db.query("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
                    INSERT INTO tasks(session, url, state, created, updated)
                    SELECT printf('small%02d', i), 'http://127.0.0.1:9/s', 'cancelled', 1800000000, 1800000000 FROM n
                    """)
                try db.query("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
                    INSERT INTO events(session, task_id, url, kind, reason, attempts, recorded)
                    SELECT 'big', i, 'http://127.0.0.1:9/b', 'failed', 'boom', 1, 1800000000 FROM n
                    """)
            }
        }
        let report = try SessionsReport.text(stateDirectory: state)
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "61 sessions, 20060 tasks (2000 in flight), 30 pending events")
        #expect(lines.filter { $0.hasPrefix("  task ") }.count == 20 + 49, "20 of big, 1 of each of the 49 small sessions listed")
        #expect(lines.filter { $0.hasPrefix("    event ") }.count == 20)
        // In-flight tasks first, oldest first.
        #expect(lines.contains("  task 10 \"board\": in flight, 2 attempts, http://127.0.0.1:9/b?10"))
        #expect(lines.contains("  … and 19980 more tasks (of 20000: 18000 finished, 2000 in flight)"))
        #expect(lines.contains("  pending events: 30") && lines.contains("    … and 10 more events"))
        #expect(lines.contains("session small49") && !lines.contains("session small50"))
        #expect(lines.contains("… and 11 more sessions"))
        #expect(report.utf8.count < 20_000)
    }

    @Test("a large journal of schema 1 gets its index when sessions runs and no host holds the lock; while one does, it is listed as it is")
    func migratesOldJournal() throws {
        let state = try makeJournal { manager, _ in
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        }
        defer { removeTree(state) }
        try editJournal(state) { db in
            try db.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(SessionJournal.indexedRows))
                INSERT INTO tasks(session, url, state, created, updated) SELECT 'bulk', 'http://127.0.0.1:9/', 'finished', 0, 0 FROM n
                """)
        }
        try SessionJournal(path: BackgroundSessionManager.journalPath(stateDirectory: state), readOnly: false).close()  // a host's open
        func indexes() throws -> [String] {
            var names: [String] = []
            try editJournal(state) { db in
                names = try db.query("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE '%_by_session' ORDER BY name")
                    .compactMap { $0.first?.string }
            }
            return names
        }
        let schema1 = "DROP INDEX tasks_by_session; UPDATE meta SET value = '1' WHERE key = 'schema'"
        try editJournal(state) { try $0.execute(schema1) }
        let host = try #require(try StateDirectoryLock.acquire(directory: state))
        #expect(try SessionsReport.text(stateDirectory: state).contains("task 1: in flight"))
        #expect(try indexes() == ["events_by_session"])
        host.release()
        #expect(try SessionsReport.text(stateDirectory: state).contains("task 1: in flight"))
        #expect(try indexes() == ["events_by_session", "tasks_by_session"])
        var schema = ""
        try editJournal(state) { db in schema = try db.query("SELECT value FROM meta WHERE key = 'schema'").first?.first?.string ?? "" }
        #expect(schema == "\(SessionJournal.schemaVersion)")
    }
}
