import Testing
import WidgetTestSupport
import BackgroundSessions

/// Everything the parser gives for `input` fed in the pieces `cuts` marks, with its final state.
private struct ParseOutcome: Equatable, CustomStringConvertible {
    var events: [ServerSentEvent]
    var lastEventID: String
    var retry: UInt64?
    var dropped: Int
    var description: String { "\(events) id=\(lastEventID) retry=\(retry.map(String.init) ?? "nil") dropped=\(dropped)" }
}

private func parse(_ input: [UInt8], cuts: [Int] = [], maxLine: Int = 16 * 1024, maxEvent: Int = 64 * 1024) -> ParseOutcome {
    var parser = EventStreamParser(maxLineBytes: maxLine, maxEventBytes: maxEvent)
    var events: [ServerSentEvent] = []
    var start = 0
    for cut in cuts + [input.count] {
        events += parser.feed(input[start..<cut])
        start = cut
    }
    return ParseOutcome(events: events, lastEventID: parser.lastEventID, retry: parser.retryMilliseconds, dropped: parser.droppedEvents)
}

private func parse(_ text: String, maxLine: Int = 16 * 1024, maxEvent: Int = 64 * 1024) -> ParseOutcome {
    parse(Array(text.utf8), maxLine: maxLine, maxEvent: maxEvent)
}

/// Checks that cutting `input` in two at every byte offset, and feeding it a byte at a time,
/// gives what feeding it whole gives.
private func expectSplitInvariant(_ input: [UInt8], maxLine: Int = 16 * 1024, maxEvent: Int = 64 * 1024,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
    let whole = parse(input, maxLine: maxLine, maxEvent: maxEvent)
    for cut in 0...input.count {
        let split = parse(input, cuts: [cut], maxLine: maxLine, maxEvent: maxEvent)
        if split != whole {
            Issue.record("cut at byte \(cut): \(split) != \(whole)", sourceLocation: sourceLocation)
            return
        }
    }
    let bytewise = parse(input, cuts: Array(0..<input.count), maxLine: maxLine, maxEvent: maxEvent)
    #expect(bytewise == whole, "byte at a time", sourceLocation: sourceLocation)
}

private func message(_ data: String, type: String = "message", id: String = "") -> ServerSentEvent {
    ServerSentEvent(type: type, data: data, lastEventID: id)
}

/// An input with every feature: BOM, all line endings, comments, fields without a colon or a
/// space, a multi-line event, id with and without data, retry, a NUL id, an unknown field,
/// a UTF-8 character, and an unfinished event at the end.
private let everything: [UInt8] = [0xEF, 0xBB, 0xBF] + Array((
    ": hello\r\n" +
    "retry: 2000\n" +
    "event: board\r\nid: 1\r\ndata: {\"version\": 1}\r\n\r\n" +
    "data: a\rdata:b\rdata\rdata:  c\r\r" +
    "id: 7\n\n" +
    "id: bad\u{0}id\nunknown: x\ndata: 🐳 Spouty\n\n" +
    "retry: 12x\nretry\n" +
    "event: other\ndata: late\n").utf8)

@Suite("Server-sent events parser (WHATWG event stream interpretation)")
struct EventStreamParserTests {
    @Test("data lines are joined with LF; the type defaults to message and resets after each event")
    func dataAndType() {
        let outcome = parse("data: YHOO\ndata: +2\ndata: 10\n\nevent: add\ndata: 73857293\n\ndata: plain\n\n")
        #expect(outcome.events == [message("YHOO\n+2\n10"), message("73857293", type: "add"), message("plain")])
    }

    @Test("LF, CRLF, CR and a mix of them read alike")
    func lineEndings() {
        let lf = parse("event: board\nid: 4\ndata: x\ndata: y\n\n")
        #expect(lf.events == [message("x\ny", type: "board", id: "4")])
        #expect(parse("event: board\r\nid: 4\r\ndata: x\r\ndata: y\r\n\r\n") == lf)
        #expect(parse("event: board\rid: 4\rdata: x\rdata: y\r\r") == lf)
        #expect(parse("event: board\r\nid: 4\rdata: x\ndata: y\r\n\r") == lf)
        // CR CR is two line ends (a blank line), not one.
        #expect(parse("data: x\r\r").events == [message("x")])
    }

    @Test("comments are ignored; a field without a colon has an empty value; one space after the colon is dropped")
    func fields() {
        #expect(parse(": comment\n:\ndata\n\n").events == [message("")])
        #expect(parse("data:test\n\n").events == [message("test")])
        #expect(parse("data:  test\n\n").events == [message(" test")])
        #expect(parse("data\ndata\n\n").events == [message("\n")])
        #expect(parse("Data: x\n\n").events.isEmpty)     // names are case-sensitive
        #expect(parse("event: x\n\n").events.isEmpty)    // no data, no event
    }

    @Test("id without data sets the last event ID, dispatches nothing, and later events carry it")
    func idWithoutData() {
        let outcome = parse("id: 41\n\nid: 42\n\ndata: x\n\n")
        #expect(outcome.events == [message("x", id: "42")])
        #expect(outcome.lastEventID == "42")
        #expect(parse("data: x\nid: 5\n\ndata: y\n\n").events == [message("x", id: "5"), message("y", id: "5")])
        #expect(parse("id: 5\n\nid\n\n").lastEventID == "")    // an empty id resets it
    }

    @Test("an id containing U+0000 is ignored; the previous one stays")
    func idWithNull() {
        let outcome = parse(Array("id: 3\n\nid: 4\u{0}5\ndata: x\n\n".utf8))
        #expect(outcome.events == [message("x", id: "3")])
        #expect(outcome.lastEventID == "3")
    }

    @Test("retry takes ASCII digits only, saturating; anything else is ignored")
    func retry() {
        #expect(parse("retry: 2000\n").retry == 2000)
        #expect(parse("retry: 2000\nretry: 1.5\nretry: -1\nretry: 10s\nretry:\nretry: ٣\n").retry == 2000)
        #expect(parse("retry: 99999999999999999999999999\n").retry == UInt64.max)
        #expect(parse("retry:0\n").retry == 0)
    }

    @Test("a BOM is dropped at the start only; an event without its blank line is never dispatched")
    func bomAndUnfinished() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(parse(bom + Array("data: x\n\n".utf8)).events == [message("x")])
        // A second BOM belongs to the field name, so the line is an unknown field.
        #expect(parse(bom + bom + Array("data: x\n\n".utf8)).events.isEmpty)
        var parser = EventStreamParser()
        #expect(parser.feed(Array("id: 9\ndata: half".utf8)).isEmpty)
        parser.reset()
        #expect(parser.feed(Array("\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "9")
    }

    @Test("an oversized line is refused: its event is dropped and counted, the next one parses")
    func oversizedLine() {
        let long = "data: " + String(repeating: "x", count: 100) + "\n\n"
        let outcome = parse(long + "data: ok\n\n", maxLine: 64)
        #expect(outcome.events == [message("ok")])
        #expect(outcome.dropped == 1)
        // A long comment is a long line too.
        #expect(parse(":" + String(repeating: "c", count: 100) + "\ndata: a\n\ndata: b\n\n", maxLine: 64).events == [message("b")])
        // Exactly at the bound is fine.
        #expect(parse("data: " + String(repeating: "y", count: 58) + "\n\n", maxLine: 64).events.count == 1)
    }

    @Test("an event whose data grows past the bound is dropped and counted, lines all short")
    func oversizedEvent() {
        let lines = String(repeating: "data: 0123456789\n", count: 20) + "\n"
        let outcome = parse(lines + "data: after\n\n", maxEvent: 100)
        #expect(outcome.events == [message("after")])
        #expect(outcome.dropped == 1)
    }

    @Test("cut at every byte offset, or fed a byte at a time, the stream parses as when fed whole")
    func splitAnywhere() {
        let whole = parse(everything)
        #expect(whole.events == [message("{\"version\": 1}", type: "board", id: "1"),
                                 message("a\nb\n\n c", id: "1"), message("🐳 Spouty", id: "7")])
        #expect(whole.retry == 2000)
        expectSplitInvariant(everything)
        expectSplitInvariant(Array(("data: " + String(repeating: "z", count: 80) + "\r\n\r\ndata: ok\r\n\r\n").utf8), maxLine: 40)
        expectSplitInvariant(Array((String(repeating: "data: 0123456789\r", count: 12) + "\rdata: ok\r\r").utf8), maxEvent: 64)
    }

    @Test("1,000 events in one read come out in order")
    func thousandEvents() {
        var text = ""
        for n in 1...1000 { text += "event: board\nid: \(n)\ndata: {\"version\": \(n)}\n\n" }
        let started = ContinuousClock.now
        let outcome = parse(Array(text.utf8))
        #expect(outcome.events.count == 1000)
        #expect(outcome.events.last == message("{\"version\": 1000}", type: "board", id: "1000"))
        #expect(outcome.events.enumerated().allSatisfy { $0.element.lastEventID == String($0.offset + 1) })
        #expect(started.duration(to: .now) < .seconds(2))
    }

    @Test("fuzz: random bytes from the stream's alphabet, cut at random, parse as when whole (seed printed on failure)")
    func fuzz() {
        let seed: UInt64 = 0x5EED_0016
        var random = SeededRandom(seed: seed)
        let alphabet = Array("data:id retry\u{0}event:x9\r\n\n\n\r:".utf8) + [0xEF, 0xBB, 0xBF, 0xF0]
        for iteration in 0..<300 {
            let count = Int(random.next() % 200)
            let input = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            var cuts = (0..<Int(random.next() % 6)).map { _ in Int(random.next() % UInt64(count + 1)) }
            cuts.sort()
            let whole = parse(input, maxLine: 24, maxEvent: 48)
            let split = parse(input, cuts: cuts, maxLine: 24, maxEvent: 48)
            if whole != split {
                Issue.record("seed \(seed) iteration \(iteration) cuts \(cuts): \(split) != \(whole)")
                return
            }
        }
    }
}

private typealias SeededRandom = FuzzRandom
