import JSONTree

/// A Prometheus query's answer, bounded: at most `maximumSeries` series of at most
/// `maximumPoints` values each (the latest), at most `maximumLabels` labels of bounded, clean
/// text each, and how many series the server had (`totalSeries`), so a query that matched
/// 10,000 series keeps 64 and the panel says "showing 64 of 10,000 series".
///
/// Read from the API's answer (`init(answer:)`: `/api/v1/query` and `/api/v1/query_range`,
/// `{"status": "success", "data": {"resultType": …, "result": …}}`), or from what the
/// widget stored (`stored`, `init(stored:)`: the bounded result in a compact form of its own,
/// values without their timestamps).
public struct PrometheusResult: Sendable, Equatable {
    public static let maximumSeries = 64
    public static let maximumPoints = 1_000
    public static let maximumLabels = 32

    public struct Series: Sendable, Equatable {
        /// Label names and values, sorted by name (`__name__` included).
        public var labels: [Label]
        /// Oldest first; non-numbers (`NaN`) as `.nan`, infinities kept.
        public var values: [Double]

        public init(labels: [Label], values: [Double]) {
            self.labels = labels
            self.values = values
        }

        public func label(_ name: String) -> String? { labels.first { $0.name == name }?.value }
    }

    public struct Label: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public var series: [Series]
    /// How many series the answer had (at least `series.count`).
    public var totalSeries: Int

    public init(series: [Series], totalSeries: Int) {
        self.series = series
        self.totalSeries = max(totalSeries, series.count)
    }

    /// Why an answer holds no result: Prometheus's own error, or not an answer at all.
    public enum AnswerError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `{"status": "error", "errorType": …, "error": …}`, cleaned: "bad_data: 1:5: parse error…".
        case server(String)
        /// Not the API's shape.
        case malformed(String)

        public var description: String {
            switch self {
            case .server(let message): message
            case .malformed(let reason): "not a Prometheus answer: " + reason
            }
        }
    }

    /// Reads an API answer; throws Prometheus's error when `status` is `error`.
    public init(answer: JSONValue) throws(AnswerError) {
        guard case .object(let top) = answer, case .string(let status)? = top["status"] else {
            throw .malformed("no \"status\"")
        }
        guard status == "success" else {
            let type = Self.string(top["errorType"]).map { PrometheusText.clean($0, limit: 40) }
            let message = PrometheusText.clean(Self.string(top["error"]) ?? "status \(status)", limit: PrometheusText.maximumMessageLength)
            throw .server(type.map { "\($0): \(message)" } ?? message)
        }
        guard case .object(let data)? = top["data"], let kind = Self.string(data["resultType"]), let result = data["result"] else {
            throw .malformed("no \"data.resultType\" and \"data.result\"")
        }
        switch (kind, result) {
        case ("vector", .array(let elements)), ("matrix", .array(let elements)):
            var series: [Series] = []
            for element in elements.prefix(Self.maximumSeries) {
                guard case .object(let object) = element else { throw .malformed("a result that is not an object") }
                let values: [Double]
                if kind == "vector" {
                    guard let sample = object["value"], let value = Self.sampleValue(sample) else {
                        throw .malformed("a vector sample without a value")
                    }
                    values = [value]
                } else {
                    guard case .array(let samples)? = object["values"] else { throw .malformed("a matrix series without values") }
                    values = samples.suffix(Self.maximumPoints).compactMap(Self.sampleValue)
                }
                series.append(Series(labels: Self.labels(object["metric"]), values: values))
            }
            self.init(series: series, totalSeries: elements.count)
        case ("scalar", let sample):
            guard let value = Self.sampleValue(sample) else { throw .malformed("a scalar without a value") }
            self.init(series: [Series(labels: [], values: [value])], totalSeries: 1)
        case ("string", _):
            throw .malformed("a string result (not shown)")
        default:
            throw .malformed("resultType \(PrometheusText.clean(kind, limit: 20))")
        }
    }

    /// The compact form kept in the widget's container:
    /// `{"total": N, "series": [{"labels": {…}, "values": ["1.5", "NaN", …]}]}` (values as
    /// Prometheus writes them, so NaN and infinities survive JSON).
    public var stored: JSONValue {
        .object(JSONObject(members: [
            (key: "total", value: .integer(totalSeries)),
            (key: "series", value: .array(series.map { series in
                .object(JSONObject(members: [
                    (key: "labels", value: .object(JSONObject(members: series.labels.map { (key: $0.name, value: .string($0.value)) }))),
                    (key: "values", value: .array(series.values.map { .string(Self.text($0)) })),
                ]))
            })),
        ]))
    }

    /// Reads `stored`; nil when it is not that form (a file written by hand, or cut short).
    public init?(stored: JSONValue) {
        guard case .object(let top) = stored, case .integer(let total)? = top["total"], case .array(let list)? = top["series"] else {
            return nil
        }
        var series: [Series] = []
        for element in list.prefix(Self.maximumSeries) {
            guard case .object(let object) = element, case .array(let values)? = object["values"] else { return nil }
            series.append(Series(labels: Self.labels(object["labels"]),
                                 values: values.suffix(Self.maximumPoints).compactMap { Self.string($0).flatMap(Self.number) }))
        }
        self.init(series: series, totalSeries: total)
    }

    // MARK: - Reading

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    /// `[timestamp, "value"]` → the value; a scalar answer's sample has the same shape.
    private static func sampleValue(_ sample: JSONValue) -> Double? {
        guard case .array(let pair) = sample, pair.count == 2, let text = string(pair[1]) else { return nil }
        return number(text)
    }

    /// Prometheus's number text: decimals, exponents, `NaN`, `+Inf`, `-Inf`.
    static func number(_ text: String) -> Double? {
        guard text.utf8.count <= 64 else { return nil }
        switch text {
        case "NaN": return .nan
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        default: return Double(text)
        }
    }

    static func text(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return "\(value)"
    }

    /// The labels of a `metric` object: strings only, cleaned and cut, at most `maximumLabels`,
    /// sorted by name.
    private static func labels(_ value: JSONValue?) -> [Label] {
        guard case .object(let metric)? = value else { return [] }
        var labels: [Label] = []
        for (name, value) in metric.members.prefix(maximumLabels) {
            guard case .string(let text) = value else { continue }
            labels.append(Label(name: PrometheusText.clean(name, limit: PrometheusText.maximumLabelLength),
                                value: PrometheusText.clean(text, limit: PrometheusText.maximumLabelLength)))
        }
        return labels.sorted { $0.name < $1.name }
    }
}
