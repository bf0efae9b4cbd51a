// Test-only (OverflowEndToEndTests): takes the terminal the way the dashboard does (curses, the
// fatal-signal handlers), shows READY, waits for a key, then overflows the stack of a thread
// started the host's way (`HostThread`). The test checks the terminal is given back. The
// shipped binary has no path that overflows on purpose; this program is that path.
#if canImport(Glibc)
import Glibc
#endif
import TerminalUI
import WidgetCore

/// Recursion that never ends, with a frame the optimizer cannot drop.
enum Overflow {
    @inline(never) static func recurse(_ depth: Int) -> Int {
        var frame = (depth, depth, depth, depth, depth, depth, depth, depth)
        return withUnsafeMutablePointer(to: &frame) { recurse(depth + 1) + $0.pointee.0 }
    }
}

/// One line on stderr.
func complain(_ message: String) {
    let bytes = Array("overflow-helper: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let backend: CursesBackend
do {
    backend = try CursesBackend(theme: .mono)
} catch {
    complain("\(error)")
    exit(2)
}
var buffer = CellBuffer(width: backend.size.columns, height: backend.size.rows)
_ = buffer.write("READY: press a key to overflow a host thread's stack", x: 0, y: 0)
backend.present(buffer)
var input = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
while poll(&input, 1, -1) < 0 && errno == EINTR {}
_ = backend.readKeys()
switch HostThread.start(name: "wh-overflow", stackSize: 256 * 1024, detached: false, { _ = Overflow.recurse(1) }) {
case .success(let thread): pthread_join(thread, nil)
case .failure(let error): complain("no thread (\(error.code))")
}
backend.end()
exit(1)  // not reached: the overflow ends the process
