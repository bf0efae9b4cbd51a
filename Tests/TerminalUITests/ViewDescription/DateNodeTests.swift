import FoundationEssentials
import Testing
import TerminalUI
import WidgetTestSupport

/// 2026-12-02T14:05:00Z.
private let base = Date(timeIntervalSince1970: 1_796_220_300)

/// `node` drawn into a fresh `width`×`height` buffer at `now`.
private func render(_ node: ViewNode, width: Int, height: Int = 1, at now: Date) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: now)
    return buffer
}

/// The issues `json` is refused with, as "path: message" lines; [] when it decodes.
private func problems(_ json: String) -> [String] {
    do {
        _ = try ViewNode.decode(Array(json.utf8))
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

@Suite("Date nodes: text that updates itself")
struct DateNodeTests {
    @Test("each style on the text backend, drawn at the frame's time")
    func styles() {
        let minute = 60.0
        expectFrame(render(.date(base, style: .time), width: 12, at: base + 3600), equals: ["14:05"])
        expectFrame(render(.date(base, style: .time, utcOffset: 3600), width: 12, at: base), equals: ["15:05"])
        expectFrame(render(.date(base, style: .date), width: 20, at: base), equals: ["Wed 2 Dec 2026"])
        expectFrame(render(.date(base, style: .relative), width: 12, at: base + 3 * minute + 59), equals: ["3m ago"])
        expectFrame(render(.date(base, style: .relative), width: 12, at: base - 2 * 3600), equals: ["in 2h"])
        expectFrame(render(.date(base, style: .relative), width: 12, at: base - 119), equals: ["in 2m"])
        expectFrame(render(.date(base, style: .offset), width: 12, at: base + 3 * minute), equals: ["-3m"])
        expectFrame(render(.date(base, style: .offset), width: 12, at: base - 3 * minute), equals: ["+3m"])
        expectFrame(render(.date(base, style: .timer), width: 12, at: base - 12 * minute - 4), equals: ["12:04"])
        expectFrame(render(.date(base, style: .timer), width: 12, at: base - 3.5), equals: ["0:04"])
        expectFrame(render(.date(base, style: .timer), width: 12, at: base + 3723), equals: ["1:02:03"])
        expectFrame(render(.date(base, style: .timer, role: .accent, alignment: .right), width: 8, at: base + 5), equals: ["    0:05"])
    }

    @Test("the text changes with the frame's time alone: the same node, two moments")
    func changesWithTime() {
        let node = ViewNode.vstack([.date(base, style: .timer), .date(base, style: .relative)])
        expectFrame(render(node, width: 10, height: 2, at: base + 59), equals: ["0:59", "<1m ago"])
        expectFrame(render(node, width: 10, height: 2, at: base + 60), equals: ["1:00", "1m ago"])
    }

    @Test("the next change is the next moment the text differs, per style; never for time and date")
    func nextChange() {
        func next(_ style: DateText.Style, at now: Date) -> Date? { DateText(base, style: style).nextChange(after: now) }
        #expect(next(.time, at: base) == nil)
        #expect(next(.date, at: base) == nil)
        #expect(next(.timer, at: base + 5.2) == base + 6)
        #expect(next(.timer, at: base - 3.5) == base - 3, "counting down: at 3 s left the text turns to 0:03")
        #expect(next(.relative, at: base + 61) == base + 120)
        #expect(next(.relative, at: base - 90) == base - 60)
        #expect(next(.relative, at: base + 3 * 86_400 + 5) == base + 4 * 86_400, "past two days, by the day")
        #expect(next(.offset, at: base - 30) == base)
        // Every predicted change really changes the text, and nothing changes before it.
        for style in [DateText.Style.timer, .relative, .offset] {
            var now = base - 200
            for _ in 0..<30 {
                let text = DateText(base, style: style)
                guard let change = text.nextChange(after: now) else { Issue.record("\(style) never changes"); break }
                #expect(text.text(at: change) != text.text(at: now), "\(style) at \(change)")
                #expect(text.text(at: change - 0.001) == text.text(at: now), "\(style) before \(change)")
                now = change
            }
        }
    }

    @Test("a clock face writes the frame's time in its offset; it changes each second or minute, a date at midnight")
    func clockFace() {
        let face = DateText.clock([.hour12, .literal(":"), .minute, .literal(":"), .second, .literal(" "), .meridiem], utcOffset: 3600)
        #expect(face.text(at: base + 9) == "3:05:09 PM")
        #expect(face.nextChange(after: base + 9.5) == base + 10)
        let minutes = DateText.clock([.hour24, .literal(":"), .minute], utcOffset: -5 * 3600)
        #expect(minutes.text(at: base) == "09:05")
        #expect(minutes.nextChange(after: base + 1) == base + 60)
        let day = DateText.clock([.date], utcOffset: 3600)
        // 2026-12-02T23:00Z is midnight at +01:00.
        #expect(day.nextChange(after: base) == Date(timeIntervalSince1970: 1_796_252_400))
        #expect(day.text(at: Date(timeIntervalSince1970: 1_796_252_400)) == "Thu 3 Dec 2026")
    }

    @Test("a timer bar fills with time; its next change is the next eighth of a cell it gains")
    func timerBar() throws {
        let bar = try #require(ViewNode.Bar.timer(from: base, to: base + 80, role: .positive))
        expectFrame(render(.bar(bar), width: 10, at: base - 5), equals: [""])
        expectFrame(render(.bar(bar), width: 10, at: base + 40), equals: ["█████"])
        expectFrame(render(.bar(bar), width: 10, at: base + 200), equals: ["██████████"])
        // 10 cells of 8 eighths over 80 s: one eighth a second, shown from its half.
        #expect(ViewNode.bar(bar).nextDateChange(after: base + 40, width: 10) == base + 40.5)
        #expect(ViewNode.bar(bar).nextDateChange(after: base + 80, width: 10) == nil, "full: nothing more")
        #expect(ViewNode.Bar.timer(from: base, to: base) == nil, "an empty span is no timer")
    }

    @Test("a view's next change is its earliest node's; a view without dates never changes")
    func viewNextChange() {
        let view = ViewNode.vstack([.text("CPU"), .date(base, style: .relative),
                                    .text([ViewNode.Span("retry ", pieces: [.date(DateText(base + 30, style: .timer))])])])
        #expect(view.nextDateChange(after: base + 0.5, width: 20) == base + 1, "the piece's timer, the soonest")
        #expect(ViewNode.vstack([.text("CPU"), .bar(0.5)]).nextDateChange(after: base, width: 20) == nil)
        expectFrame(render(view, width: 20, height: 3, at: base + 10), equals: ["CPU", "<1m ago", "retry 0:20"])
    }

    @Test("JSON: date nodes and timer bars decode, encode and decode again to the same view")
    func json() throws {
        let text = #"{"type":"vstack","children":[{"type":"date","date":"2026-12-02T15:05:00+01:00","style":"time","role":"accent","bold":true,"align":"center"},"#
            + #"{"type":"bar","timerInterval":{"from":"2026-12-02T14:05:00Z","to":"2026-12-02T14:06:20Z"}}]}"#
        let view = try ViewNode.decode(Array(text.utf8))
        expectFrame(render(view, width: 10, height: 2, at: base + 40), equals: ["  15:05", "█████"])
        #expect(try ViewNode.decode(Array(view.jsonText.utf8)) == view)
    }

    @Test("docs/views.md's example: a launch countdown, its progress and an age, at 14:30:00Z")
    func docsExample() throws {
        let json = #"""
            {"type": "vstack", "children": [
              {"type": "text", "spans": [{"text": "Launch", "role": "muted"}]},
              {"type": "date", "date": "2026-12-02T15:00:00Z", "style": "timer", "role": "accent", "bold": true},
              {"type": "bar", "timerInterval": {"from": "2026-12-02T14:00:00Z", "to": "2026-12-02T15:00:00Z"}},
              {"type": "date", "date": "2026-12-02T13:58:30+01:00", "style": "relative", "role": "muted"}]}
            """#
        let view = try ViewNode.decode(Array(json.utf8))
        expectFrame(render(view, width: 20, height: 4, at: Date(timeIntervalSince1970: 1_796_221_800)),
                    equals: ["Launch", "30:00", "██████████", "1h 31m ago"])
    }

    @Test("bad dates, styles and intervals are refused with their path; hostile text is quoted, cut and inert")
    func errors() {
        #expect(problems(#"{"type":"date","date":"2026-12-02T14:05:00Z","style":"fancy"}"#)
            == [#"view.style: unknown date style "fancy" (expected one of time, date, relative, offset, timer)"#])
        #expect(problems(#"{"type":"date","style":"time"}"#) == ["view.date: is required"])
        #expect(problems(#"{"type":"date","date":"2026-12-02","style":"time"}"#).first?.hasPrefix(
            "view.date: expected an ISO 8601 date and time with seconds and a zone") == true)
        let hostile = problems(#"{"type":"date","date":"\u001b[2J2026-12-02T14:05:00Z aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","style":"time"}"#)
        #expect(hostile.count == 1)
        #expect(hostile.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 } && $0.count < 300 })
        #expect(problems(#"{"type":"bar","timerInterval":{"from":"2026-12-02T14:05:00Z","to":"2026-12-02T14:05:00Z"}}"#)
            == [#"view.timerInterval.to: must be after "from""#])
        #expect(problems(#"{"type":"bar","value":0.5,"timerInterval":{"from":"2026-12-02T14:05:00Z","to":"2026-12-02T15:05:00Z"}}"#)
            == [#"view: has both "value" and "timerInterval"; give one"#])
        #expect(problems(#"{"type":"bar","timerInterval":{"from":"2026-12-02T14:05:00Z"}}"#) == ["view.timerInterval.to: is required"])
        #expect(problems(#"{"type":"date","date":"2026-12-02T14:05:00Z","style":"time","seconds":true}"#)
            == ["view.seconds: unknown field (expected type, date, style, role, bold, align, privacySensitive, accentable)"])
    }
}
