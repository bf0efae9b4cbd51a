#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport
@testable import WidgetHost

@Suite("Live Activities: the journal in the state directory")
struct ActivityJournalTests {
    @Test("the board is written whole and read back the same (times exact)")
    func board() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = ActivityJournal(stateDirectory: directory.path)
        #expect(journal.activities().isEmpty, "none yet")
        let activities = [
            Activity(id: "build", title: "Build ✔", detail: "step 2", progress: 0.25, started: at(0.5), updated: at(10.25), staleAfter: 600),
            Activity(id: "deploy", title: "Deploy", state: .failure, started: at(1), updated: at(2), dismissAfter: 0),
        ]
        #expect(journal.save(activities) == nil)
        #expect(journal.activities() == activities)
        var info = stat()
        stat(journal.activitiesPath, &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("a hand-edited board is held to a request's limits: a bad record is skipped, a huge file ignored")
    func hostileBoard() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = ActivityJournal(stateDirectory: directory.path)
        directory.write("activities.json", #"""
            {"activities": [{"id": "bad id", "title": "x", "state": "active", "started": 1, "updated": 1},
                            {"id": "ok", "title": "esc \u001b[2J", "state": "active", "started": 1e300, "updated": 1},
                            {"id": "ok2", "title": "fine", "state": "active", "started": 1, "updated": 2, "progress": 7}]}
            """#)
        #expect(journal.activities().map(\.id) == ["ok2"])
        #expect(journal.activities().first?.progress == 1, "clamped")
        directory.write("activities.json", [UInt8](repeating: 32, count: ActivityJournal.maximumBoardBytes + 1))
        #expect(journal.activities().isEmpty)
    }

    @Test("events are appended, read oldest first; a line being written is left; past the bound the oldest go")
    func events() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = ActivityJournal(stateDirectory: directory.path)
        let event = { (i: Int) in HistoryEvent(time: at(Double(i)), kind: .activity, title: "T", level: .info, text: "e\(i)") }
        #expect(journal.append([event(0), event(1)]) == nil)
        let fd = open(journal.eventsPath, O_WRONLY | O_APPEND)
        _ = write(fd, "{\"time\": 5, \"kind\"", 18)
        close(fd)
        #expect(journal.events().map(\.text) == ["e0", "e1"])
        // A fresh journal object counts the file's lines before its first append.
        let filling = ActivityJournal(stateDirectory: directory.path)
        _ = filling.append((2..<ActivityJournal.maximumEvents + ActivityJournal.compactionSlack).map(event))
        #expect(filling.events().count == ActivityJournal.maximumEvents)
        _ = filling.append([event(99_999)])
        let kept = filling.events(limit: .max)
        #expect(kept.count == ActivityJournal.maximumEvents, "compacted to the newest 10,000")
        #expect(kept.last?.text == "e99999")
        #expect(kept.first?.text == "e1001", "the unfinished line was ended, not continued: \(kept.first?.text ?? "")")
    }
}
