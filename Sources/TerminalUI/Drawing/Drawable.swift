/// Something that draws itself into a rectangle of a cell buffer.
///
/// Implementations draw only inside `rect` (clipped to the buffer), name roles rather than
/// colours, and are safe with any rectangle, including empty and 1×1 ones.
public protocol Drawable {
    func draw(into buffer: inout CellBuffer, in rect: Rect)
}
