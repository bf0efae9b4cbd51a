@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

private let oddTexts = ["", "running", "finished", "cancelled", "downloaded", "failed", "notModified", "unavailable", "12", "-3",
                        "1e999", "\u{1B}[2J\u{1B}]52;c;SGVsbG8=\u{07}", "http://user:secret@127.0.0.1:9/x", "../../../etc/passwd",
                        "/etc/passwd", "\u{202E}evil", "a\nb\rc", String(repeating: "x", count: 10_000), "\u{9B}31m", "é", "task-1"]
private let oddReals: [Double] = [1e300, -1e300, 2.5, -0.0, 0.5, .infinity, -.infinity, .nan, 9.3e18, -9.3e18, 1e19, 3.0,
                                  Double(Int64.max), Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude]
private let oddIntegers: [Int64] = [0, 1, -1, 2, 200, 304, 999, 1000, Int64.max, Int64.min, Int64.max / 2, -86_400_001, 86_400_001]

/// Values of every type and the edges of each: what a hand-edited journal can hold.
private func oddValue(_ rng: inout SeededGenerator) -> SQLiteDatabase.Value {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: return .null
    case 1: return .integer(oddIntegers.randomElement(using: &rng)!)
    case 2: return .integer(Int64.random(in: .min ... .max, using: &rng))
    case 3: return .real(oddReals.randomElement(using: &rng)!)
    case 4: return .text(oddTexts.randomElement(using: &rng)!)
    default: return .blob((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

/// One of `choices` half the time (so rows reach the interesting paths), else an odd value.
private func mostly(_ choices: [String], _ rng: inout SeededGenerator) -> SQLiteDatabase.Value {
    Bool.random(using: &rng) ? .text(choices.randomElement(using: &rng)!) : oddValue(&rng)
}

/// Drops the constraints and type affinities, as a hostile editor may: every column takes any value.
private func looseSchema(_ db: SQLiteDatabase) throws {
    try db.execute("""
        DROP TABLE tasks; DROP TABLE events;
        CREATE TABLE tasks(task_id INTEGER PRIMARY KEY AUTOINCREMENT, session, description, url, state, attempts,
                           last_error, created, updated);
        CREATE TABLE events(event_id INTEGER PRIMARY KEY AUTOINCREMENT, session, task_id, description, url, kind, file,
                            status, byte_count, etag, last_modified, reason, attempts, retry_after_ms, recorded, delivery_count);
        CREATE INDEX events_by_session ON events(session, event_id);
        CREATE INDEX tasks_by_session ON tasks(session, state);
        """)
}

/// What every run must keep true of what the manager read.
private func expectSane(_ manager: BackgroundSessionManager, _ context: String) {
    for event in manager.pendingEvents {
        #expect(event.deliveryCount >= 0, "\(context)")
        #expect((-62_135_596_800...253_402_300_799).contains(event.recorded.timeIntervalSince1970), "\(context)")
        switch event.outcome {
        case .downloaded(let file, let status, let count, _, let attempts):
            #expect(count >= 0 && attempts >= 0 && (0...999).contains(status), "\(context)")
            #expect(file.hasPrefix(manager.stateDirectory + "/sessions/") && !file.contains("/../"), "\(context): \(file)")
        case .failed(_, let attempts, let retryAfter):
            #expect(attempts >= 0, "\(context)")
            if let retryAfter { #expect(retryAfter >= .zero && retryAfter <= .seconds(86_400), "\(context)") }
        default: break
        }
    }
    for task in manager.suspendedTasks { #expect(task.attempts >= 0, "\(context)") }
}

private func expectSaneReport(_ report: String, _ context: String) {
    #expect(terminalControls(in: report).isEmpty, "\(context): controls in the report")
    #expect(!report.contains("secret"), "\(context): credentials in the report")
    let longest = report.split(separator: "\n").map(\.count).max() ?? 0
    #expect(longest <= 700, "\(context): a line of \(longest) characters")
}

@Suite("Journal reader (hand-edited journals)", .serialized)
struct JournalReaderTests {
    @Test("a REAL, huge, negative or non-numeric value in a numeric column reads as a sane number; sessions does not trap")
    func oddNumbers() async throws {
        let state = try makeJournal { manager, transport in
            let task = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/a")!)
            transport.finish(transport.runningIDs[0], with: .failed(TransferFailure(kind: .connection, reason: "refused", attempts: 2)))
            _ = task
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/b")!)
        }
        defer { removeTree(state) }
        try editJournal(state) { db in
            try db.query("UPDATE tasks SET attempts = 2.5e300 WHERE state = 'running'")
            try db.query("UPDATE tasks SET attempts = 3.0, created = 1e300, updated = -1e300 WHERE state <> 'running'")
            try db.query("UPDATE events SET attempts = -7, retry_after_ms = 1e300, recorded = 9e18, delivery_count = 9.3e18")
        }
        let report = try SessionsReport.text(stateDirectory: state)
        #expect(report.contains("in flight, 0 attempts"), "\(report)")
        #expect(report.contains("finished, 3 attempts"), "\(report)")
        #expect(report.contains("failed: refused, 1970-01-01T00:00:00Z"), "\(report)")
        try editJournal(state) { db in
            try db.query("UPDATE events SET retry_after_ms = 9223372036854775807, attempts = 'many', recorded = 'never'")
        }
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport(),
                                                        retention: .init(maxAge: 1e12))
        defer { manager.close() }
        let event = try #require(manager.pendingEvents.first)
        #expect(event.outcome == .failed(reason: "refused", attempts: 0, retryAfter: .seconds(86_400)))
        #expect(event.recorded == Date(timeIntervalSince1970: 0) && event.deliveryCount == 0)
        #expect(manager.suspendedTasks.map(\.attempts) == [0])
    }

    @Test("fuzz: any value in any column of a hand-edited journal; the host and sessions read it without a trap")
    func fuzz() async throws {
        let seed = fuzzSeed(default: 0x5EED_0010_0003)
        var rng = SeededGenerator(seed: seed)
        let outside = makeTemporaryDirectory(prefix: "bgs-outside")
        defer { removeTree(outside) }
        let victim = outside + "/victim"
        writeFile(victim, Array("keep me".utf8))
        let started = ContinuousClock.now
        for iteration in 0..<50 {
            let context = "seed \(seed) (WIDGETHOST_FUZZ_SEED=\(seed) to repeat), iteration \(iteration)"
            let state = try makeJournal(fast: true)
            defer { removeTree(String(state.dropLast("/state".count))) }
            let loose = Bool.random(using: &rng)
            try editJournal(state) { db in
                if loose { try looseSchema(db) } else { try db.execute("PRAGMA ignore_check_constraints=ON") }
                let sessions: [SQLiteDatabase.Value] = [.text("s"), .text("t\u{1B}[2J"), .text(".."), oddValue(&rng)]
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let id: SQLiteDatabase.Value = Bool.random(using: &rng) ? .null : .integer([1, 2, 3, -1, Int64.max / 2 + 1, Int64.max - 1]
                        .randomElement(using: &rng)!)
                    _ = try? db.query("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                      [id, sessions.randomElement(using: &rng)!, oddValue(&rng), mostly(["http://127.0.0.1:9/x"], &rng),
                                       mostly(["running", "finished", "cancelled"], &rng), oddValue(&rng), oddValue(&rng),
                                       oddValue(&rng), oddValue(&rng)])
                }
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let taskID: SQLiteDatabase.Value = Bool.random(using: &rng) ? .integer(Int64.random(in: 1...3, using: &rng)) : oddValue(&rng)
                    let file: SQLiteDatabase.Value = Bool.random(using: &rng) ? .text(victim) : oddValue(&rng)
                    _ = try? db.query("INSERT INTO events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                      [sessions.randomElement(using: &rng)!, taskID, oddValue(&rng), mostly(["http://127.0.0.1:9/x"], &rng),
                                       mostly(["downloaded", "notModified", "failed", "cancelled", "unavailable"], &rng), file,
                                       oddValue(&rng), oddValue(&rng), oddValue(&rng), oddValue(&rng), oddValue(&rng),
                                       oddValue(&rng), oddValue(&rng), oddValue(&rng), oddValue(&rng)])
                }
            }
            expectSaneReport(try SessionsReport.text(stateDirectory: state), context)
            let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
            expectSane(manager, context)
            // Deliver and acknowledge everything at once, as a widget would.
            let delegate = RecordingDelegate()
            manager.eventRouter = { identifier in
                BackgroundSessionEventsHandler(matcher: .identifier(identifier)) { id, completion in
                    _ = manager.session(identifier: id, delegate: delegate)
                    completion()
                }
            }
            _ = manager.resumeTasks { _, _ in URL(string: "http://127.0.0.1:9/x") }
            #expect(await eventually(within: 5) { manager.pendingEvents.isEmpty }, "\(context)")
            manager.close()
            expectSaneReport(try SessionsReport.text(stateDirectory: state), context)
            #expect(try SessionsReport.purge(stateDirectory: state).hasPrefix("Purged"), "\(context)")
            #expect(exists(victim), "\(context): a path from the journal was removed")
        }
        #expect(started.duration(to: .now) < .seconds(5))
    }
}
