#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// Edit mode in the real binary (issue 25's checks): from no config, a countdown added from
/// the gallery and set in the form, saved, checked and shown at the next start; then a clock's
/// zone picked in the form, the clock moved, saved, and the file and the screen agree.
@Suite("edit mode, end to end", .serialized, .onOwnThreads)
struct EditModeEndToEndTests {
    @Test("from no config: E, a, countdown, its date set, s, q; check-config passes; the next start shows it; a zone picked and the clock moved")
    func galleryFormSaveAndStartAgain() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        let file = home.path + "/.config/widgethost/config.json"
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost], size: (100, 30), environment: environment)
        tmux.waitFor(description: "the default dashboard") { ($0.first ?? "").hasPrefix("┌ Ranger Leaderboard") }
        try tmux.sendText("E")
        tmux.waitFor(description: "edit mode") { ($0.last ?? "").contains("EDIT │ Ranger Leaderboard") }
        try tmux.sendText("a")
        tmux.waitFor(description: "the gallery") { ($0.first ?? "").hasPrefix("┌ Add a widget") }
        try tmux.sendText("countdown")
        tmux.waitFor(description: "the countdown's snapshot") { anyRow($0, containsAll: "filter: countdown", "┌ Countdown") }
        try tmux.sendKeys("Enter")
        tmux.waitFor(description: "the countdown added, its form open (its date has no default)") {
            anyRow($0, containsAll: "Edit Widget: Countdown (countdown)")
        }
        try tmux.sendKeys("C-u")
        try tmux.sendText("2030-01-01T00:00")
        try tmux.sendKeys("Tab")
        try tmux.sendText("Launch")
        tmux.waitFor(description: "the form filled, nothing wrong") {
            anyRow($0, containsAll: "2030-01-01T00:00") && anyRow($0, containsAll: "▸ label", "Launch") && !anyRow($0, containsAll: "⚠")
        }
        try tmux.sendKeys("Enter")
        tmux.waitFor(description: "applied") { anyRow($0, containsAll: "┌ Launch") && ($0.last ?? "").contains("EDIT*") }
        try tmux.sendText("s")
        tmux.waitFor(description: "saved") { ($0.last ?? "").contains("saved \(home.path)") }
        try tmux.sendText("q")
        tmux.waitFor(description: "edit mode left") { !($0.last ?? "").contains("EDIT") }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))

        let check = try Subprocess.run([widgethost, "check-config", file], environment: environment,
                                       timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(check.status == 0 && check.standardOutput == "\(file): ok\n", "\(check.standardError)")
        let saved = String(decoding: try ConfigBytes.read(file), as: UTF8.self)
        #expect(saved.contains("""
                {
                  "kind": "countdown",
                  "options": {
                    "to": "2030-01-01T00:00",
                    "label": "Launch"
                  }
                },
            """), "\(saved)")

        // The next start shows it; the clock's zone is picked in its form, then it moves up one.
        let again = TmuxHarness()
        defer { again.stop() }
        try again.start(command: [widgethost], size: (100, 30), environment: environment)
        again.waitFor(description: "the saved dashboard") { anyRow($0, containsAll: "┌ Launch") && anyRow($0, containsAll: "┌ Clock") }
        try again.sendText("E")
        try again.sendKeys("Tab", "Tab", "Tab")
        again.waitFor(description: "the clock focused") { ($0.last ?? "").contains("EDIT │ Clock") }
        try again.sendKeys("Enter")
        again.waitFor(description: "the clock's form") { anyRow($0, containsAll: "Edit Widget: Clock (clock)") }
        try again.sendText("tokyo")
        again.waitFor(description: "the dynamic option's hint") { anyRow($0, containsAll: "▸ timeZone", "tokyo") && anyRow($0, containsAll: "→ pick from a list") }
        try again.sendKeys("Right")
        again.waitFor(description: "the zone picker, answered") {
            anyRow($0, containsAll: "Pick timeZone (clock)") && anyRow($0, containsAll: "Asia/Tokyo  JP") && anyRow($0, containsAll: "1 of 1")
        }
        try again.sendKeys("Enter")
        again.waitFor(description: "the zone picked") { anyRow($0, containsAll: "▸ timeZone", "Asia/Tokyo") && !anyRow($0, containsAll: "Pick timeZone") }
        try again.sendKeys("Enter")
        try again.sendText("K")
        again.waitFor(description: "the clock in Tokyo, moved before Spouty") {
            !anyRow($0, containsAll: "Edit Widget") && anyRow($0, containsAll: "JST") && ($0.last ?? "").contains("EDIT* │ Clock")
        }
        try again.sendText("s")
        again.waitFor(description: "saved") { ($0.last ?? "").contains("saved \(home.path)") }
        let screen = try again.capture()
        try again.sendText("qq")
        #expect(again.waitForExit() == .exited(0))
        let moved = String(decoding: try ConfigBytes.read(file), as: UTF8.self)
        let clock = try #require(moved.range(of: "\"kind\": \"clock\""))
        let hero = try #require(moved.range(of: "\"kind\": \"hero\""))
        #expect(clock.lowerBound < hero.lowerBound, "the file has the clock before Spouty, as the screen: \(moved)")
        #expect(moved.contains("\"timeZone\": \"Asia/Tokyo\""))
        // The screen, read row by row, has them in the same order.
        func place(_ title: String) -> [Int]? {
            for (row, line) in screen.enumerated() {
                if let range = line.range(of: "┌ " + title) { return [row, line.distance(from: line.startIndex, to: range.lowerBound)] }
            }
            return nil
        }
        let shown = try #require(place("Clock")), spouty = try #require(place("Spouty"))
        #expect(shown.lexicographicallyPrecedes(spouty), "\(screen.joined(separator: "\n"))")
    }
}

/// A file's bytes (the test's own reads).
private enum ConfigBytes {
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    struct Failure: Error { var path: String }
}
