import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }

@Suite("prometheus: queries, answers, legends, options")
struct PrometheusTests {
    @Test("the query's URLs: PromQL percent-encoded, the evaluation timeout, a range's start and end (whole seconds, ending now); the key without them")
    func urls() throws {
        let instant = try #require(PrometheusQuery(base: "http://p:9090/", expression: #"up{job="node"} / 2"#, rangeSeconds: nil, stepSeconds: 60))
        #expect(instant.key.absoluteString == "http://p:9090/api/v1/query?query=up%7Bjob%3D%22node%22%7D%20%2F%202&timeout=20s")
        #expect(instant.url(at: Date(timeIntervalSince1970: 1_000)) == instant.key)
        let range = try #require(PrometheusQuery(base: "http://p:9090", expression: "up", rangeSeconds: 3600, stepSeconds: 60))
        let url = range.url(at: Date(timeIntervalSince1970: 1_800_000_059.5))
        #expect(url.absoluteString == "http://p:9090/api/v1/query_range?query=up&step=60&timeout=20s&start=1799996459&end=1800000059")
        #expect(PrometheusQuery.key(of: url) == range.key)
        #expect(range.matches(url) && !instant.matches(url))
    }

    @Test("an answer is bounded: 64 series, 1,000 points, 32 labels; NaN and infinities read; Prometheus's error read with its type")
    func answers() throws {
        let series = (0..<100).map { #"{"metric":{"i":"\#($0)"},"value":[1,"\#($0)"]}"# }.joined(separator: ",")
        let vector = try PrometheusResult(answer: json(#"{"status":"success","data":{"resultType":"vector","result":[\#(series)]}}"#))
        #expect(vector.series.count == 64 && vector.totalSeries == 100)
        let values = (0..<1500).map { #"[\#($0),"\#($0)"]"# }.joined(separator: ",")
        let labels = (0..<40).map { #""l\#($0)":"v""# }.joined(separator: ",")
        let matrix = try PrometheusResult(answer: json(#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{\#(labels)},"values":[\#(values)]}]}}"#))
        #expect(matrix.series[0].values.count == 1_000 && matrix.series[0].values.last == 1_499)
        #expect(matrix.series[0].labels.count == 32)
        let odd = try PrometheusResult(answer: json(#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"NaN"],[2,"+Inf"],[3,"-Inf"],[4,"1e3"]]}]}}"#))
        #expect(odd.series[0].values[0].isNaN && odd.series[0].values[1] == .infinity && odd.series[0].values[2] == -.infinity)
        #expect(odd.series[0].values[3] == 1_000)
        let scalar = try PrometheusResult(answer: json(#"{"status":"success","data":{"resultType":"scalar","result":[1,"42"]}}"#))
        #expect(scalar.series == [PrometheusResult.Series(labels: [], values: [42])])
        #expect(throws: PrometheusResult.AnswerError.server("execution: query timed out in expression evaluation")) {
            try PrometheusResult(answer: json(#"{"status":"error","errorType":"execution","error":"query timed out in expression evaluation"}"#))
        }
        #expect(throws: PrometheusResult.AnswerError.malformed("no \"status\"")) { try PrometheusResult(answer: json("[1]")) }
        // What is kept reads back the same.
        #expect(PrometheusResult(stored: odd.stored)?.series[0].values.count == 4)
        #expect(PrometheusResult(stored: matrix.stored) == matrix)
    }

    @Test("legends: {{name}} from the series' labels, missing ones empty; without a template the labels as Prometheus writes them")
    func legends() {
        let series = PrometheusResult.Series(labels: [.init(name: "__name__", value: "node_load1"), .init(name: "cpu", value: "3"),
                                                      .init(name: "instance", value: "h:9100")], values: [1])
        #expect(PrometheusLegend(template: "{{instance}} cpu {{ cpu }}{{nope}}").label(for: series) == "h:9100 cpu 3")
        #expect(PrometheusLegend(template: "").label(for: series) == #"node_load1{cpu="3", instance="h:9100"}"#)
        #expect(PrometheusLegend(template: "open {{instance").label(for: series) == "open {{instance")
        #expect(PrometheusLegend(template: "").label(for: .init(labels: [], values: [1])) == "value")
    }

    @Test("options: the URL, an empty query, too many points for a sparkline are refused with their key")
    func options() throws {
        func panel(_ options: [String: WidgetOptions.Value]) throws -> PrometheusPanel {
            try PrometheusPanel(try PrometheusOptions(WidgetOptions(options)), environment: [:])
        }
        #expect(try panel(["query": .string("up")]).query.key.absoluteString == "http://127.0.0.1:9090/api/v1/query?query=up&timeout=20s")
        #expect(throws: (any Error).self) { try panel(["query": .string("up"), "url": .string("ftp://x")]) }
        #expect(throws: (any Error).self) { try panel(["query": .string("")]) }
        do {
            _ = try panel(["query": .string("up"), "show": .string("sparkline"), "rangeSeconds": .integer(86_400), "stepSeconds": .integer(1)])
            Issue.record("86,400 points accepted")
        } catch {
            #expect("\(error)".hasPrefix("stepSeconds: "), "\(error)")
        }
        #expect(try panel(["query": .string("up"), "show": .string("sparkline")]).query.stepSeconds == 60)
    }

    @Test("a long refresh is reached without a reload between: by the minute for an hour, then every 5 minutes, policy after the fetch")
    func reachesNextFetch() async throws {
        let state = makeTemporaryDirectory(prefix: "prometheus")
        defer { removeTree(state) }
        let provider = try PrometheusWidget.configuration(context: WidgetContext(stateDirectory: state, now: { at(0) })).makeProvider(
            ["url": .string("http://127.0.0.1:9"), "query": .string("up"), "refreshSeconds": .integer(7_200)])
        let timeline = try await provider.timeline(in: TimelineProviderContext(family: .medium, size: CellSize(columns: 50, rows: 7)))
        #expect(timeline.policy == .after(at(7_200)), "the entries reach the next fetch")
        let offsets = timeline.entries.map { $0.date.timeIntervalSince(at(0)) }
        #expect(offsets.prefix(60) == ArraySlice((0..<60).map { Double($0) * 60 }))
        #expect(offsets.dropFirst(60) == ArraySlice(stride(from: 3_600.0, to: 7_200, by: 300)))
    }
}

@Suite("prometheus views")
struct PrometheusViewTests {
    static func entry(_ display: PrometheusDisplay, rows: [PrometheusEntry.Row], total: Int? = nil, error: String? = nil) -> PrometheusEntry {
        PrometheusEntry(date: testDate, rows: rows, totalSeries: total ?? rows.count, display: display, format: .percent,
                        alertAbove: 0.9, alertBelow: nil, hasData: true, fetchedAt: testDate - 30, fetchError: error, isFetching: false)
    }
    static let testDate = Date(timeIntervalSince1970: 1_800_000_000)
    static let rows: [PrometheusEntry.Row] = [
        .init(label: "cpu 0", latest: 0.25, points: [0.1, 0.2, 0.25]),
        .init(label: "cpu 10", latest: 0.95, points: [0.5, 0.9, 0.95]),
    ]

    static func draw(_ entry: PrometheusEntry, width: Int = 30, height: Int = 5) -> CellBuffer {
        var buffer = CellBuffer(width: width, height: height)
        PrometheusView.view(entry, context: WidgetViewContext(family: .medium, size: CellSize(columns: width, rows: height)))
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        return buffer
    }

    @Test("sparkline: labels padded so the lines start in one column, values right-aligned; a value past alertAbove is a warning")
    func sparkline() {
        let frame = Self.draw(Self.entry(.sparkline, rows: Self.rows))
        let lines = TextBackend.lines(frame)
        #expect(lines[0].hasPrefix("cpu 0  ") && lines[0].hasSuffix(" 25%"), "\(lines)")
        #expect(lines[1].hasPrefix("cpu 10 ") && lines[1].hasSuffix(" 95%"), "\(lines)")
        #expect(Array(lines[0])[7] != " " && Array(lines[1])[7] != " " && Array(lines[0])[6] == " ", "\(lines)")
        #expect(lines[4] == "updated <1m ago")
        #expect(frame[29, 0].style.role == .accent && frame[29, 1].style.role == .warning)
    }

    @Test("table and value; a cut list says how many series there were; an error shows with the data's age")
    func tableAndValue() {
        let table = TextBackend.lines(Self.draw(Self.entry(.table, rows: Self.rows, total: 5_000)))
        #expect(table[0].hasPrefix("cpu 0 ") && table[0].hasSuffix(" 25%") && table[0].count == 30, "\(table)")
        #expect(table[1].hasPrefix("cpu 10 ") && table[1].hasSuffix(" 95%"), "\(table)")
        #expect(table[2] == "showing 2 of 5,000 series", "\(table)")
        let value = TextBackend.lines(Self.draw(Self.entry(.value, rows: Self.rows, error: "bad_data: parse error")))
        #expect(value.contains { $0.contains("25%") } && value.contains { $0.contains("cpu 0") }, "\(value)")
        #expect(value.suffix(2) == ["⚠ bad_data: parse error", "data <1m old"], "\(value)")
        let empty = TextBackend.lines(Self.draw(Self.entry(.table, rows: [])))
        #expect(empty[0].contains("no series"), "\(empty)")
    }
}
