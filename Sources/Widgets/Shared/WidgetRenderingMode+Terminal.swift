import TerminalUI
import WidgetCore

extension WidgetRenderingMode {
    /// The widgets' name for the backends' `RenderingMode` (the same three cases).
    public init(_ mode: RenderingMode) {
        switch mode {
        case .fullColor: self = .fullColor
        case .accented: self = .accented
        case .mono: self = .mono
        }
    }
}
