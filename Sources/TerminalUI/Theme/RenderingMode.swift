/// How the frame uses colour: WidgetKit's `widgetRenderingMode` for a terminal.
///
/// - `fullColor`: every role in its theme colour (as before rendering modes existed).
/// - `accented`: two tones. Content marked accentable (`CellStyle.accentable`, a view's
///   `"accentable": true`) takes the theme's `accent` colour, everything else its
///   `foreground`; roles keep apart by the attributes the built-in `mono` theme gives them.
/// - `mono` (WidgetKit's `vibrant`): no colour at all, emphasis by attributes only (bold, dim,
///   reverse, underline), as the `mono` theme draws.
public enum RenderingMode: String, CaseIterable, Hashable, Sendable {
    case fullColor
    case accented
    case mono

    /// The mode a terminal of `capability` gets unless the user chose one.
    ///
    /// No colours (fewer than 8, or `NO_COLOR`, which `ColorCapability.detect` reads) is
    /// `mono`; 8 colours `accented` — the nearest of eight ANSI colours merges the theme's
    /// greys and tints (the default theme's `muted` turns yellow like `warning`, `placeholder`
    /// black), so two tones and attributes say more; 16 and more `fullColor`: the sixteen ANSI
    /// colours keep every role of the built-in themes apart.
    public static func detect(capability: ColorCapability) -> RenderingMode {
        switch capability {
        case .none: .mono
        case .ansi8: .accented
        case .ansi16, .palette256, .direct: .fullColor
        }
    }
}
