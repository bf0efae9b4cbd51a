import TerminalUI
import Widgets

/// Whether a frame shows the clock time `time`: as text, or drawn large (`BigText`, at any
/// scale) — a seconds clock's "HH:MM:SS" large as HH:MM with ":SS" as text under it.
func showsTime(_ frame: String, _ time: String) -> Bool {
    if frame.contains(time) { return true }
    let fields = time.split(separator: ":")
    let large = fields.count == 3 ? fields[0] + ":" + fields[1] : time
    if fields.count == 3, !frame.contains(":" + fields[2]) { return false }
    return (1...4).contains { scale in
        BigText.lines(large, scaleX: scale, glyphs: .unicode)?.allSatisfy { frame.contains($0) } == true
    }
}
