import TerminalUI

/// Figure 11: laying out and drawing the worst view the limits allow — 64 levels (63 stacks,
/// vstack and hstack alternating, around one text) and 64 KiB of JSON, almost all of it the
/// text's words — into a 200x60 panel, as the loop does for an extension's entry. Once every
/// level re-measured its subtree and rebuilt the text per measure: 4.6 s per frame (issue 22).
/// Wrapped text (every measure wraps it) and unwrapped (every measure finds its widest line).
enum ViewLayoutBench {
    /// The view's JSON, decoded as an extension's would be (so it is within the limits).
    static func view(wrap: Bool) -> ViewNode {
        let words = ["uptime", "sitewatch", "200", "OK", "latency", "42ms", "certificate", "expires", "in", "31", "days"]
        func json(text: String) -> String {
            var view = #"{"type":"text","wrap":\#(wrap),"spans":[{"text":"\#(text)"}]}"#
            for level in 1..<ViewNode.maximumDepth {
                view = #"{"type":"\#(level % 2 == 1 ? "vstack" : "hstack")","children":[\#(view)]}"#
            }
            return view
        }
        let overhead = json(text: "").utf8.count
        var text = ""
        var column = 0
        var index = 0
        while true {
            let word = words[index % words.count]
            index += 1
            let separator = column == 0 ? "" : column > 100 ? "\\n" : " "
            guard overhead + text.utf8.count + separator.utf8.count + word.utf8.count <= ViewNode.maximumBytes else { break }
            text += separator + word
            column = separator == "\\n" ? word.count : column + separator.count + word.count
        }
        do {
            return try ViewNode.decode(Array(json(text: text).utf8))
        } catch {
            fatalError("the bench's view is refused: \(error)")
        }
    }

    static func measure(into report: Report, quick: Bool) {
        for wrap in [true, false] {
            let view = view(wrap: wrap)
            var buffer = CellBuffer(width: 200, height: 60)
            var times: [Double] = []
            let rounds = quick ? 3 : 10
            let deadline = monotonicNanos() + (quick ? 5 : 30) * 1_000_000_000
            while times.count < rounds && monotonicNanos() < deadline {
                let start = monotonicNanos()
                view.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
                times.append(seconds(since: start) * 1000)
            }
            blackHole(buffer)
            let median = times.sorted()[times.count / 2]
            report.add(Figure(section: "11", name: "deepest view layout+draw (\(wrap ? "wrapped" : "unwrapped"))", value: median, unit: "ms",
                              workload: "64 levels of alternating stacks around one \(wrap ? "wrapped " : "")text, 64 KiB of JSON, into 200x60; median of \(times.count)",
                              target: "≤ 5", met: median <= 5))
        }
    }
}
