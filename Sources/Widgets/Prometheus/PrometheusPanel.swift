import FoundationEssentials

/// A `prometheus` panel's options, checked and resolved: the query's URLs, the headers with
/// `"$NAME"` values taken from the environment, the legend and how values are shown.
struct PrometheusPanel: Sendable {
    var query: PrometheusQuery
    /// Never shown, logged or stored: they go to the transport only.
    var headers: [String: String]
    var legend: PrometheusLegend
    var display: PrometheusDisplay
    var format: HTTPJSONFormat
    var alertAbove: Double?
    var alertBelow: Double?
    var refreshSeconds: Int

    init(_ options: PrometheusOptions, environment: [String: String]) throws {
        guard let base = URL(string: options.url), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw OptionError("url must be an http or https URL")
        }
        guard !options.query.isEmpty, options.query.utf8.count <= Self.maximumQueryBytes else {
            throw OptionError("query: give a PromQL expression of at most \(Self.maximumQueryBytes) bytes")
        }
        let range = options.show == .sparkline ? options.rangeSeconds : nil
        let step = options.stepSeconds ?? max(1, options.rangeSeconds / 60)
        if let range, range / step > PrometheusResult.maximumPoints {
            throw OptionError("stepSeconds: \(step) s over rangeSeconds \(range) s is more than \(PrometheusResult.maximumPoints) points; give a larger step")
        }
        guard let query = PrometheusQuery(base: options.url, expression: options.query, rangeSeconds: range, stepSeconds: step) else {
            throw OptionError("url: cannot make a query URL from it")
        }
        self.query = query
        headers = try HTTPJSONWidget.resolve(headers: options.headers ?? [:], environment: environment)
        legend = PrometheusLegend(template: options.legend)
        display = options.show
        format = options.format
        alertAbove = options.alertAbove
        alertBelow = options.alertBelow
        refreshSeconds = min(max(1, options.refreshSeconds), LeaderboardWidget.maximumRefreshSeconds)
    }

    /// The longest PromQL expression accepted (Prometheus takes longer, a panel needs no more).
    static let maximumQueryBytes = 4_096
}
