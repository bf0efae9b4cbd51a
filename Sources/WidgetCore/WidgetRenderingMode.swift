/// How the host draws a widget's colours (WidgetKit's `WidgetRenderingMode`), from the
/// terminal or the user's `--rendering-mode`; views and providers may adapt to it.
///
/// - `fullColor`: every role in its theme colour.
/// - `accented`: two tones, the theme's accent for what a view marks accentable
///   (`"accentable": true`, WidgetKit's `widgetAccentable()`), one neutral tone for the rest.
/// - `mono` (WidgetKit's `vibrant`): no colour, emphasis by bold, dim, reverse and underline.
///
/// The raw values are the names on the command line and in an extension's request context.
/// (TerminalUI's `RenderingMode` is the same three cases for the backends, which do not see
/// WidgetCore.)
public enum WidgetRenderingMode: String, CaseIterable, Hashable, Sendable {
    case fullColor
    case accented
    case mono
}
