import FoundationEssentials
import JSONTree
import Testing
import WidgetCore
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
}
