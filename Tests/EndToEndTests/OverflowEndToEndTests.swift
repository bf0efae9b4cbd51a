#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

// A stack overflow on a thread other than the main one (issue 22, item 3): `overflow-helper`
// takes the terminal as the dashboard does (curses, the fatal-signal handlers), then overflows
// a thread started the host's way (`HostThread`). A SIGSEGV on an exhausted stack reaches the
// handler only on an alternate signal stack; threads had none, so the process died with the
// terminal raw and on the alternate screen. The shell in the pane then reports the exit
// status and the terminal settings.
@Suite("a stack overflow on a host thread, end to end", .serialized, .onOwnThreads)
struct OverflowEndToEndTests {
    @Test("an overflow on a host thread gives the terminal back: normal screen, cursor shown, the saved stty, 139")
    func restoresTheTerminal() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        let script = """
            dir=$1; shift
            stty -g > "$dir/before"
            "$@"
            status=$?
            stty -g > "$dir/after"
            stty -a
            echo "helper ended: $status"
            exec cat
            """
        // Without the backtracer: it would ask "Press space to interact" on a terminal.
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["SWIFT_BACKTRACE": "enable=no"])
        try tmux.start(command: ["/bin/sh", "-c", script, "sh", home.path, try BuiltProducts.executable("overflow-helper")],
                       size: (80, 24), environment: environment)
        tmux.waitFor(description: "the helper on the alternate screen") { anyRow($0, containsAll: "READY") }
        #expect(try tmux.alternateScreenIsOn, "the helper should draw on the alternate screen")
        try tmux.sendKeys("x")
        let screen = tmux.waitFor(description: "the shell's report after the helper", history: true) {
            anyRow($0, containsAll: "helper ended:")
        }
        #expect(anyRow(screen, containsAll: "helper ended: 139"), "\(text(screen))")
        #expect(try !tmux.alternateScreenIsOn, "the alternate screen was left on\n\(text(screen))")
        #expect(try tmux.cursorIsVisible, "the cursor was left hidden")
        let words = Set(screen.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == ";" }).map(String.init) })
        #expect(words.isSuperset(of: ["echo", "icanon"]) && words.isDisjoint(with: ["-echo", "-icanon"]), "stty -a says\n\(text(screen))")
        let before = try FileContents.text(at: home.path + "/before")
        let after = try FileContents.text(at: home.path + "/after")
        #expect(!before.isEmpty && after == before, "stty -g before \(before) after \(after)")
    }
}
