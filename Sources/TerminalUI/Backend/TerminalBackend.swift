/// Where frames go: a terminal (`CursesBackend`) or text (`TextBackend`).
///
/// The host draws a whole frame into a `CellBuffer` of `size` and hands it to `present`;
/// the backend sends only what changed since the previous frame. Backends are not
/// thread-safe: use one from a single isolation domain (the host uses the main actor).
public protocol TerminalBackend: AnyObject {
    /// The current size of the screen in cells.
    var size: TerminalSize { get }
    /// Shows `buffer`; a buffer of another size than the previous one is drawn in full.
    func present(_ buffer: CellBuffer) throws
}
