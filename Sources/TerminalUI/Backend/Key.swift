/// A key press (or a resize), decoded from terminal input.
///
/// `CursesBackend.readKeys()` produces these; the host maps them to messages. Enter is
/// `.enter` whether the terminal sends CR, LF or the keypad's Enter.
public enum Key: Hashable, Sendable {
    /// A printable character (already sanitised: never a control).
    case character(Character)
    /// Ctrl with a letter, e.g. `.control("l")` for Ctrl-L (Ctrl-C is `.ctrlC`).
    case control(Character)
    case tab
    case backTab
    case enter
    case escape
    case backspace
    case delete
    case insert
    case up
    case down
    case left
    case right
    case home
    case end
    case pageUp
    case pageDown
    /// F1…F12 (and beyond) as 1…n.
    case function(Int)
    /// Ctrl-C as a key (only when the terminal does not turn it into SIGINT).
    case ctrlC
    /// The terminal changed size; read the new size from the backend.
    case resize
    /// A key code curses knows but this enum does not name.
    case unknown(Int32)
    /// A mouse report (when the host turned them on): a press of the left button, or the wheel.
    case mouse(MouseEvent)

    /// Decodes a character read from the terminal (not a curses key code).
    public init(character scalarValue: UInt32) {
        switch scalarValue {
        case 3: self = .ctrlC
        case 9: self = .tab
        case 10, 13: self = .enter
        case 27: self = .escape
        case 8, 127: self = .backspace
        case 1...26: self = .control(Character(Unicode.Scalar(scalarValue + 96)!))
        default:
            if let scalar = Unicode.Scalar(scalarValue), Sanitizer.replacement(for: scalar) == nil {
                self = .character(Character(scalar))
            } else {
                self = .unknown(Int32(bitPattern: scalarValue))
            }
        }
    }
}
