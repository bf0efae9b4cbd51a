import FoundationEssentials
import Testing
import WidgetTestSupport
@testable import WidgetHost

private func start(_ id: String, progress: Double? = nil, staleAfter: TimeInterval? = nil) -> ActivityRequest {
    ActivityRequest(action: .start, id: id, title: "T \(id)", progress: progress, staleAfter: staleAfter)
}

private func end(_ id: String, _ state: Activity.State = .success, dismissAfter: TimeInterval? = nil) -> ActivityRequest {
    ActivityRequest(action: .end, id: id, state: state, dismissAfter: dismissAfter)
}

@Suite("Live Activities: the board in simulated time")
struct ActivityBoardTests {
    @Test("a start shows newest first and records an event; an update moves the bar and records none")
    func startAndUpdate() throws {
        var board = ActivityBoard()
        let first = try board.apply(start("build", progress: 0.2), at: at(0))
        #expect(first.event?.text == "build started" && first.event?.level == .info)
        _ = try board.apply(start("deploy"), at: at(5))
        #expect(board.activities.map(\.id) == ["deploy", "build"])
        let update = try board.apply(ActivityRequest(action: .update, id: "build", detail: "linking", progress: 0.8), at: at(10))
        #expect(update.event == nil)
        #expect(board["build"]?.progress == 0.8 && board["build"]?.detail == "linking" && board["build"]?.updated == at(10))
        #expect(board["build"]?.started == at(0))
    }

    @Test("an update or end of an unknown or ended activity is refused with a reason")
    func refusals() throws {
        var board = ActivityBoard()
        #expect(throws: ActivityBoard.Refusal.self) { try board.apply(ActivityRequest(action: .update, id: "x", progress: 0.1), at: at(0)) }
        _ = try board.apply(start("x"), at: at(0))
        _ = try board.apply(end("x", .failure), at: at(1))
        do {
            _ = try board.apply(end("x"), at: at(2))
            Issue.record("ending twice was accepted")
        } catch {
            #expect(error.description == "activity 'x' has ended")
        }
        // Starting it again is a new run.
        _ = try board.apply(start("x"), at: at(3))
        #expect(board["x"]?.state == .active && board["x"]?.started == at(3))
    }

    @Test("an end in failure records a critical event; a success fills a bar")
    func ends() throws {
        var board = ActivityBoard()
        _ = try board.apply(start("a", progress: 0.5), at: at(0))
        _ = try board.apply(start("b", progress: 0.5), at: at(0))
        let failed = try board.apply(ActivityRequest(action: .end, id: "a", detail: "3 tests failed", state: .failure), at: at(9))
        #expect(failed.event == HistoryEvent(time: at(9), kind: .activity, title: "T a", level: .critical, text: "a failed: 3 tests failed"))
        #expect(board["a"]?.progress == 0.5, "a failure keeps where it stopped")
        _ = try board.apply(end("b"), at: at(9))
        #expect(board["b"]?.progress == 1)
    }

    @Test("stale after stale-after without an update; the next change is that moment, and an update moves it")
    func stale() throws {
        var board = ActivityBoard()
        _ = try board.apply(start("build", staleAfter: 600), at: at(0))
        #expect(board.nextChange(after: at(0)) == at(600))
        #expect(board["build"]?.isStale(at: at(599)) == false)
        #expect(board["build"]?.isStale(at: at(600)) == true)
        _ = try board.apply(ActivityRequest(action: .update, id: "build", progress: 0.3), at: at(300))
        #expect(board.nextChange(after: at(300)) == at(900))
        #expect(board.nextChange(after: at(900)) == nil, "once stale nothing more happens on its own")
    }

    @Test("nothing to wait for arms no timer: active ones without stale-after")
    func idle() throws {
        var board = ActivityBoard()
        #expect(board.nextChange(after: at(0)) == nil)
        _ = try board.apply(start("build", progress: 0.1), at: at(0))
        #expect(board.nextChange(after: at(0)) == nil)
    }

    @Test("an ended one leaves after dismiss-after (5 min by default, 0 at once)")
    func dismissal() throws {
        var board = ActivityBoard()
        _ = try board.apply(start("a"), at: at(0))
        _ = try board.apply(start("b"), at: at(0))
        _ = try board.apply(end("a"), at: at(10))
        #expect(board.nextChange(after: at(10)) == at(310))
        let early = board.removeDismissed(at: at(309))
        #expect(!early)
        let due = board.removeDismissed(at: at(310))
        #expect(due)
        #expect(board.activities.map(\.id) == ["b"])
        _ = try board.apply(end("b", .cancelled, dismissAfter: 0), at: at(400))
        let atOnce = board.removeDismissed(at: at(400))
        #expect(atOnce && board.activities.isEmpty)
    }

    @Test("at most 64: a 65th start takes the place of the oldest ended one, and is refused when all run")
    func limit() throws {
        var board = ActivityBoard()
        for i in 0..<64 { _ = try board.apply(start("a\(i)"), at: at(Double(i))) }
        #expect(throws: ActivityBoard.Refusal(description: "64 activities are running: end one first")) {
            try board.apply(start("extra"), at: at(100))
        }
        _ = try board.apply(end("a3"), at: at(101))
        _ = try board.apply(end("a7"), at: at(102))
        _ = try board.apply(start("extra"), at: at(103))
        #expect(board.activities.count == 64)
        #expect(board["a3"] == nil && board["a7"] != nil, "the oldest ended one went")
    }

    @Test("restored from a journal: newest first, at most 64")
    func restored() {
        let many = (0..<70).map { Activity(id: "a\($0)", title: "A", started: at(Double($0)), updated: at(Double($0))) }
        let board = ActivityBoard(many)
        #expect(board.activities.count == 64)
        #expect(board.activities.first?.id == "a69")
    }
}

@Suite("Live Activities: requests are checked the same on both sides")
struct ActivityRequestTests {
    @Test("IDs are 1 to 64 of A-Z a-z 0-9 . _ -")
    func ids() {
        for good in ["build", "a.b_c-9", String(repeating: "x", count: 64)] { #expect(ActivityRequest.isValidID(good)) }
        for bad in ["", "a b", "é", "a/b", String(repeating: "x", count: 65), "x\u{1B}"] { #expect(!ActivityRequest.isValidID(bad)) }
    }

    @Test("texts are sanitised and bounded; a start needs a title; numbers in range")
    func texts() throws {
        let clean = try ActivityRequest(action: .start, id: "b", title: "  red\u{1B}[31m  ", detail: "line\nnext").validated()
        #expect(clean.title == "red␛[31m" && clean.detail == "line␊next")
        let problems: [(ActivityRequest, String)] = [
            (ActivityRequest(action: .start, id: "b"), "start needs --title TEXT"),
            (ActivityRequest(action: .start, id: "b", title: String(repeating: "t", count: 81)), "a title is at most 80 characters (this one has 81)"),
            (ActivityRequest(action: .update, id: "b", detail: String(repeating: "d", count: 10_000)), "a detail is at most 200 characters"),
            (ActivityRequest(action: .update, id: "b", progress: 1.5), "--progress expects a number from 0 to 1, like 0.4"),
            (ActivityRequest(action: .update, id: "b", progress: .nan), "--progress expects a number from 0 to 1, like 0.4"),
            (ActivityRequest(action: .update, id: "b", staleAfter: 0.5), "--stale-after expects a time from 1s to 7 days, like 10m"),
            (ActivityRequest(action: .end, id: "b", progress: 1), "end takes --state, --detail and --dismiss-after (not --title, --progress or --stale-after)"),
            (ActivityRequest(action: .update, id: "b", state: .failure), "--state and --dismiss-after go with end"),
        ]
        for (request, message) in problems {
            #expect(throws: ActivityRequest.Invalid(description: message)) { try request.validated() }
        }
    }

    @Test("params go over the socket and come back the same; wrong types are named")
    func params() throws {
        let request = ActivityRequest(action: .end, id: "b", detail: "done", state: .cancelled, dismissAfter: 60)
        #expect(try ActivityRequest(params: request.params) == request)
        #expect(throws: ActivityRequest.Invalid(description: "progress must be a number")) {
            try ActivityRequest(params: .object(.init(members: [("action", .string("update")), ("id", .string("b")), ("progress", .string("1"))])))
        }
        #expect(throws: ActivityRequest.Invalid.self) { try ActivityRequest(params: .array([])) }
    }
}
