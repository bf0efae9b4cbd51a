/// The widget kinds built into WidgetHost, in the order `widgethost widgets` lists them, and
/// the Smart Stack that holds them. Adding a kind: its folder in `Sources/Widgets/` and one
/// line here; the host (`Catalog.builtin()`) names none of them.
public enum BuiltinWidgets {
    public static var definitions: [WidgetDefinition] {
        [
            ClockWidget.definition,
            LeaderboardWidget.definition,
            HeroWidget.definition,
            SystemWidget.definition,
            CountdownWidget.definition,
            CommandWidget.definition,
            TextWidget.definition,
            HTTPJSONWidget.definition,
            PrometheusWidget.definition,
            MQTTWidget.definition,
        ]
    }

    /// The container kind: its manifest, config rules and rotation (`Stack/`).
    public static var stack: StackDefinition { StackWidget.definition }
}
