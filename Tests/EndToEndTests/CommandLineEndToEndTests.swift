import Testing
import WidgetTestSupport

/// `widgethost` commands that print and exit, run as a user would in a terminal.
///
/// Nothing here asserts on the bare `widgethost` command: the dashboard replaces its
/// placeholder output.
@Suite("widgethost command line, end to end", .serialized, .onOwnThreads)
struct CommandLineEndToEndTests {
    /// Runs `widgethost ARGUMENTS` in a wide pane with a private home and `term`, waits for
    /// it to exit, and returns how it ended with the whole output (scrollback included).
    private func run(_ arguments: [String], term: String = "xterm-256color",
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> (exit: PaneExit?, screen: [String]) {
        let widgethost = try BuiltProducts.executable("widgethost")
        let home = try ScratchDirectory()
        defer { home.remove() }
        return try TmuxHarness.runToExit(command: [widgethost] + arguments, size: (cols: 160, rows: 30),
                                         environment: TmuxHarness.isolatedEnvironment(home: home.path), term: term,
                                         sourceLocation: sourceLocation)
    }

    @Test("--help shows the usage, the commands and the keys, and exits 0")
    func help() throws {
        let (exit, screen) = try run(["--help"])
        #expect(exit == .exited(0))
        #expect(screen.contains("Usage:"), "\(text(screen))")
        #expect(anyRow(screen, containsAll: "widgethost", "--config PATH"), "\(text(screen))")
        #expect(anyRow(screen, containsAll: "check-config"), "\(text(screen))")
        #expect(anyRow(screen, containsAll: "--version"), "\(text(screen))")
        #expect(anyRow(screen, containsAll: "q", "quit"), "\(text(screen))")
    }

    @Test("--version prints 'widgethost' and a version number, and exits 0")
    func version() throws {
        let (exit, screen) = try run(["--version"])
        #expect(exit == .exited(0))
        let line = screen.first { $0.hasPrefix("widgethost ") }
        #expect(line.map(isVersionLine) == true, "\(text(screen))")
    }

    @Test("check-config on a missing file exits 2 and names the file")
    func checkConfigMissingFile() throws {
        let (exit, screen) = try run(["check-config", "/nonexistent.json"])
        #expect(exit == .exited(2))
        #expect(anyRow(screen, containsAll: "/nonexistent.json"), "\(text(screen))")
    }

    @Test("check-config on a file with an unknown key exits 2 and names the file and the key")
    func checkConfigUnknownKey() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let file = try directory.write("config.json", #"{"panels": [], "themee": "x"}"#)
        let (exit, screen) = try run(["check-config", file])
        #expect(exit == .exited(2))
        #expect(anyRow(screen, containsAll: file, "themee"), "\(text(screen))")
    }

    @Test("an unknown TERM reaches the program and commands that print still work")
    func unknownTerm() throws {
        let version = try run(["--version"], term: "nonexistent-term")
        #expect(version.exit == .exited(0))
        #expect(version.screen.contains { $0.hasPrefix("widgethost ") }, "\(text(version.screen))")

        let missing = try run(["check-config", "/nonexistent.json"], term: "nonexistent-term")
        #expect(missing.exit == .exited(2))
        #expect(anyRow(missing.screen, containsAll: "/nonexistent.json"), "\(text(missing.screen))")
    }
}

/// `widgethost 1.2.3` (a pre-release or build suffix after the numbers is allowed).
private func isVersionLine(_ line: String) -> Bool {
    let version = line.dropFirst("widgethost ".count)
    let numbers = version.prefix { $0.isNumber || $0 == "." }.split(separator: ".")
    return numbers.count >= 2 && numbers.allSatisfy { !$0.isEmpty }
}
