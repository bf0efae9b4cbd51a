/// The widget kinds built into WidgetHost.
public enum BuiltinWidgets {
    /// Every built-in kind, in the order `widgethost widgets` lists them.
    public static let all: [TerminalWidget] = [
        ClockWidget.configuration,
    ]

    /// The built-in kind named `kind`, if any.
    public static func named(_ kind: String) -> TerminalWidget? {
        all.first { $0.kind == kind }
    }
}
