import BackgroundSessions
import Glibc
import LeaderboardServer
import Testing
import WidgetTestSupport

private let payload = Array(#"{"heroes":[{"name":"Cake"}]}"#.utf8)

/// Runs the helper to its end; returns its lines (without the trailing `idle`) and exit status.
private func runToEnd(_ state: String, _ url: String, newTask: Bool = false) throws -> (lines: [String], status: Int32?) {
    let helper = try HelperProcess([state, url] + (newTask ? ["--new-task"] : []))
    let status = helper.finish(within: 30)
    return (helper.lines, status)
}

/// Runs the helper until it prints `PAUSE point`, then SIGKILLs it; returns whether it paused.
private func killAt(_ point: String, _ state: String, _ url: String) throws -> Bool {
    let helper = try HelperProcess([state, url, "--new-task", "--pause", point])
    let paused = helper.readLine(within: 30) { $0 == "PAUSE \(point)" } != nil
    helper.killGroup()
    return paused
}

/// The delivery of one successful download of task `id`.
private func delivered(_ id: Int, session: String = "crash-test") -> [String] {
    ["handleEvents session=\(session)", "didFinishDownloading task=\(id) body=\(String(decoding: payload, as: UTF8.self))",
     "didComplete task=\(id) error=nil", "didFinishEvents session=\(session)"]
}

@Suite("Crash recovery (helper process killed with SIGKILL)", .serialized, .onOwnThreads)
struct CrashRecoveryTests {
    @Test("killed mid-transfer: the next start resumes the task under its identifier with the URL configured now")
    func killedMidTransfer() throws {
        var slowConfig = FaultInjection()
        slowConfig.delay = .seconds(20)
        let (slow, slowBase) = try loopbackServer(faults: { $0 = slowConfig }) { $0.route("/board") { _ in .json(payload) } }
        defer { slow.stop() }
        let hits = Counter()
        let (fast, fastBase) = try loopbackServer { $0.route("/board2") { _ in _ = hits.next(); return .json(payload) } }
        defer { fast.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        #expect(try killAt("after-start", state, slowBase + "/board"))
        #expect(try SessionsReport.text(stateDirectory: state).contains("task 1 \"crash\": in flight"))
        let (lines, status) = try runToEnd(state, fastBase + "/board2")
        #expect(status == 0)
        #expect(lines == ["resumed task=1"] + delivered(1) + ["idle"])
        #expect(hits.count == 1)
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        #expect(filesUnder(state + "/sessions").isEmpty)
    }

    @Test("killed after the events but before the completion: they are delivered again, then acknowledged once")
    func killedBeforeCompletion() throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(payload) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        #expect(try killAt("after-finish-before-completion", state, base + "/board"))
        #expect(try SessionsReport.text(stateDirectory: state).contains("delivered 1x, not acknowledged"))
        let (lines, status) = try runToEnd(state, base + "/board")
        #expect(status == 0 && lines == delivered(1) + ["idle"])
        let (again, _) = try runToEnd(state, base + "/board")
        #expect(again == ["idle"])
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        #expect(filesUnder(state + "/sessions").isEmpty)
    }

    @Test("killed between a re-fetch's 304 and its completion: nothing of it was journalled, so the next start delivers and resumes nothing — the widget has the 200's data, acknowledged before")
    func killedAfterNotModified() throws {
        let hits = Counter()
        let (server, base) = try loopbackServer { $0.route("/board") { _ in _ = hits.next(); return .json(payload) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        let helper = try HelperProcess([state, base + "/board", "--new-task", "--refetch", "--pause", "after-304-before-completion"])
        let paused = helper.readLine(within: 30) { $0 == "PAUSE after-304-before-completion" } != nil
        helper.killGroup()
        #expect(paused)
        #expect(helper.lines.starts(with: ["started task=1"] + delivered(1) + ["started task=2", "handleEvents session=crash-test"]),
                "\(helper.lines)")
        #expect(helper.lines.contains("didComplete task=2 error=not modified"), "\(helper.lines)")
        #expect(try SessionsReport.text(stateDirectory: state).contains("No background sessions"))
        let (lines, status) = try runToEnd(state, base + "/board")
        #expect(status == 0 && lines == ["idle"])
        #expect(hits.count == 2)
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        #expect(filesUnder(state + "/sessions").isEmpty)
    }

    @Test("killed inside the journal write of a result: the task runs again and is delivered once")
    func killedDuringJournalWrite() throws {
        let hits = Counter()
        let (server, base) = try loopbackServer { $0.route("/board") { _ in _ = hits.next(); return .json(payload) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        #expect(try killAt("during-journal-write", state, base + "/board"))
        #expect(filesUnder(state + "/sessions/crash-test") == ["task-1"], "the body was in place, its event not committed")
        let (lines, status) = try runToEnd(state, base + "/board")
        #expect(status == 0 && lines == ["resumed task=1"] + delivered(1) + ["idle"])
        #expect(hits.count == 2)
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        #expect(filesUnder(state + "/sessions").isEmpty)
    }

    @Test("killed at 50 random moments: every started task is delivered, in order, and the journal stays sound")
    func randomKills() throws {
        var faults = FaultInjection()
        faults.delay = .milliseconds(15)
        let (server, base) = try loopbackServer(faults: { $0 = faults }) { $0.route("/board") { _ in .json(payload) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        var rng = SystemRandomNumberGenerator()
        var started = Set<Int>()
        var completed = Set<Int>()
        let begin = ContinuousClock.now
        for _ in 0..<50 {
            let helper = try HelperProcess([state, base + "/board", "--new-task"])
            // Wait a random moment: anywhere from before the open to after the acknowledgement.
            _ = helper.readLine(within: Double.random(in: 0...0.25, using: &rng)) { _ in false }
            helper.killGroup()
            let ids = helper.lines.compactMap { line -> Int? in
                guard line.hasPrefix("didComplete task=") else { return nil }
                return Int(line.dropFirst("didComplete task=".count).prefix { $0.isNumber })
            }
            #expect(ids == ids.sorted(), "events of one run come in order: \(helper.lines)")
            completed.formUnion(ids)
            for line in helper.lines where line.hasPrefix("started task=") { started.insert(Int(line.dropFirst(13))!) }
        }
        let (lines, status) = try runToEnd(state, base + "/board")
        #expect(status == 0 && lines.last == "idle")
        for line in lines where line.hasPrefix("didComplete task=") {
            #expect(line.hasSuffix("error=nil"))
            completed.insert(Int(line.dropFirst("didComplete task=".count).prefix { $0.isNumber })!)
        }
        #expect(started.subtracting(completed).isEmpty, "started but never delivered: \(started.subtracting(completed).sorted())")
        #expect(!started.isEmpty)
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        #expect(try SessionsReport.text(stateDirectory: state).contains("No background sessions"))
        #expect(filesUnder(state + "/sessions").isEmpty)
        #expect(begin.duration(to: .now) < .seconds(60))
    }
}
