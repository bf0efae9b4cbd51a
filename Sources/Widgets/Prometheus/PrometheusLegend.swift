/// A row's label from a legend template (`legend`): `{{name}}` (spaces inside the braces
/// allowed) stands for the series' label `name`, empty when the series has none, as in
/// Grafana. Without a template the label is the series as Prometheus writes it,
/// `name{a="1", b="2"}`. Label values are clean already (`PrometheusResult`); the label is cut
/// to `maximumLength`.
struct PrometheusLegend: Sendable, Equatable {
    static let maximumLength = 120
    let template: String

    func label(for series: PrometheusResult.Series) -> String {
        let text = template.isEmpty ? Self.plain(series) : expand(series)
        return PrometheusText.clean(text, limit: Self.maximumLength)
    }

    private func expand(_ series: PrometheusResult.Series) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            result += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.firstRange(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = String(after[..<close.lowerBound].filter { $0 != " " })
            result += series.label(name) ?? ""
            rest = after[close.upperBound...]
            if result.count > Self.maximumLength { break }
        }
        return result + rest
    }

    private static func plain(_ series: PrometheusResult.Series) -> String {
        let name = series.label("__name__") ?? ""
        let others = series.labels.filter { $0.name != "__name__" }.map { "\($0.name)=\"\($0.value)\"" }
        if others.isEmpty { return name.isEmpty ? "value" : name }
        return name + "{" + others.joined(separator: ", ") + "}"
    }
}
