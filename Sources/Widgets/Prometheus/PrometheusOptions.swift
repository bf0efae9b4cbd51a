import WidgetCore

/// The `prometheus` widget's options (DESIGN.md §12), declared once: the manifest's entries
/// and what its provider reads.
public struct PrometheusOptions: OptionSchema, Equatable {
    /// Prometheus's base URL (the API is under `/api/v1/`).
    public var url = "http://127.0.0.1:9090"
    /// The PromQL expression (required).
    public var query = ""
    public var show = PrometheusDisplay.value
    /// The range a sparkline covers.
    public var rangeSeconds = 3600
    /// The range query's resolution; nil: `rangeSeconds / 60`.
    public var stepSeconds: Int?
    /// A row's label: `{{name}}` replaced by the series' label `name`; empty: the labels as
    /// Prometheus writes them.
    public var legend = ""
    public var format = HTTPJSONFormat.number
    public var refreshSeconds = 15
    public var headers: [String: String]?
    /// A value above (below) this is shown in the warning role.
    public var alertAbove: Double?
    public var alertBelow: Double?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.url, "url", .url(schemes: ["http", "https"]),
                    doc: "Prometheus's base URL", example: "http://127.0.0.1:9090"),
        OptionField(\.query, "query", .string, required: true, doc: "the PromQL expression",
                    example: "rate(node_cpu_seconds_total{mode=\"user\"}[1m])"),
        OptionField(\.show, "show", doc: "value (the first series'), sparkline or table (each series')",
                    example: "sparkline"),
        OptionField(\.rangeSeconds, "rangeSeconds", .seconds(60...31 * 86_400, refreshInterval: false),
                    doc: "the range a sparkline covers (a range query)", example: "3600"),
        OptionField(\.stepSeconds, "stepSeconds", .seconds(1...86_400, refreshInterval: false),
                    doc: "the range query's resolution (default: rangeSeconds / 60)", example: "60"),
        OptionField(\.legend, "legend", .string,
                    doc: "a row's label, {{name}} for the series' label (default: all)",
                    example: "{{instance}} {{cpu}}"),
        OptionField(\.format, "format", doc: "how values are shown (as http-json's)", example: "percent"),
        OptionField(\.refreshSeconds, "refreshSeconds", .seconds(1...86_400, refreshInterval: true),
                    doc: "seconds between queries", example: "15"),
        OptionField(\.headers, "headers", .stringMap, doc: "request headers (\"$NAME\": from the environment, never shown)"),
        OptionField(\.alertAbove, "alertAbove", .number(-1e15...1e15), doc: "a value above this is shown as a warning", example: "0.9"),
        OptionField(\.alertBelow, "alertBelow", .number(-1e15...1e15), doc: "a value below this is shown as a warning", example: "0.1"),
    ]
}

/// How a `prometheus` panel shows its series (`show`).
public enum PrometheusDisplay: String, Sendable, CaseIterable, OptionChoice, Codable {
    /// The first series' latest value, large, with its label.
    case value
    /// One row per series: label, its values over `rangeSeconds`, latest value.
    case sparkline
    /// One row per series: label and latest value.
    case table
}
