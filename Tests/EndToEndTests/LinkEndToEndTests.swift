#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// `o` in the real binary: a hero card links to its hero's page on the leaderboard server,
/// opened with `$BROWSER` (a script that records its arguments).
@Suite("links, end to end", .serialized, .onOwnThreads)
struct LinkEndToEndTests {
    @Test("o on a hero card opens its page on the server with $BROWSER, the URL its one argument; the page answers")
    func heroPage() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let server = try LeaderboardProcess.start(arguments: ["--tick", "3600", "--quiet"], logDirectory: home.path)
        defer { server.stop() }
        let record = home.path + "/opened"
        let browser = try home.write("browser", "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > '\(record)'\n")
        chmod(browser, 0o755)
        let config = try home.write("config.json", """
            { "panels": [
                { "kind": "leaderboard", "family": "large", "options": { "url": "\(server.url)", "refreshSeconds": 600 } },
                { "kind": "hero", "family": "small", "title": "Panda", "options": { "name": "Power Panda" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (100, 30), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["BROWSER": browser]))
        tmux.waitFor(description: "the hero card") { anyRow($0, containsAll: "Power Panda") && anyRow($0, containsAll: "level 3") }
        try tmux.sendKeys("Tab")
        try tmux.sendText("o")
        let base = String(server.url.dropLast("/leaderboard".count))
        let expected = "1\n\(base)/heroes/Power%20Panda\n"
        tmux.waitFor(description: "the browser ran") { _ in (try? FileContents.text(at: record)) == expected }
        #expect((try? FileContents.text(at: record)) == expected, "one argument, the page's URL")
        // o on a panel without a link says so in the status bar.
        try tmux.sendKeys("BTab")
        try tmux.sendText("o")
        tmux.waitFor(description: "no link") { ($0.last ?? "").contains("this panel has no link to open") }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
        // The page is the server's: GET /heroes/NAME.
        let page = try Subprocess.run(["/usr/bin/python3", "-c",
                                       "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
                                       "\(base)/heroes/Power%20Panda"], timeout: TestTimeScale.scaled(.seconds(10)))
        #expect(page.standardOutput.contains("🐼 Power Panda, ") && page.standardOutput.contains(": rank 6, level 3"), "\(page.standardError)")
    }
}

/// The sitewatch example in the real binary, watching a leaderboard server's `/healthz`, in a
/// private HOME with `environment` added; `stop()` ends both.
private struct Sitewatch {
    let home: ScratchDirectory
    let server: LeaderboardProcess
    let tmux = TmuxHarness()
    let health: String

    init(environment: [String: String]) throws {
        home = try ScratchDirectory()
        mkdir(home.path + "/state", 0o700)
        server = try LeaderboardProcess.start(arguments: ["--quiet"], logDirectory: home.path)
        health = server.url.replacing("/leaderboard", with: "/healthz")
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "sitewatch/status", "family": "large",
                            "options": { "name": "Test server", "url": "\(health)", "every": 300, "expect": "ok" } } ] }
            """)
        var root = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        root.removeLast(3)  // Tests/EndToEndTests/LinkEndToEndTests.swift
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", root.joined(separator: "/") + "/Examples/extensions"],
                       size: (80, 24), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: environment.merging(["TZ": "UTC"]) { a, _ in a }))
        tmux.waitFor(timeout: .seconds(20), description: "the site up, its URL shown") { [health] screen in
            anyRow(screen, containsAll: "● UP") && anyRow(screen, containsAll: health)
        }
    }

    func stop() {
        tmux.stop()
        server.stop()
        home.remove()
    }
}

extension LinkEndToEndTests {
    @Test("sitewatch's site is linked text and its entry's url: o opens the site")
    func extensionLink() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let record = scratch.path + "/opened"
        let browser = try scratch.write("browser", "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record)'\n")
        chmod(browser, 0o755)
        let site = try Sitewatch(environment: ["BROWSER": browser])
        defer { site.stop() }
        try site.tmux.sendText("o")
        site.tmux.waitFor(description: "the browser ran") { _ in (try? FileContents.text(at: record)) == site.health + "\n" }
        try site.tmux.sendText("q")
        #expect(site.tmux.waitForExit() == .exited(0))
    }

    @Test("where the terminal shows OSC 8 hyperlinks, linked text is sent as one: the URL, its text, the link closed")
    func osc8() throws {
        // tmux itself does not show OSC 8; the variable says the terminal does.
        let site = try Sitewatch(environment: ["WIDGETHOST_HYPERLINKS": "1"])
        defer { site.stop() }
        let output = site.home.path + "/output"
        try site.tmux.recordOutput(to: output)
        // A resize draws everything again, the links too, while the output is recorded.
        try site.tmux.resize(cols: 84, rows: 24)
        let opened = "\u{1b}]8;;\(site.health)\u{1b}\\"
        site.tmux.waitFor(description: "the hyperlink sent") { _ in ((try? FileContents.text(at: output)) ?? "").contains(opened) }
        let bytes = (try? FileContents.text(at: output)) ?? ""
        let start = try #require(bytes.firstRange(of: opened))
        let rest = bytes[start.upperBound...]
        let close = try #require(rest.firstRange(of: "\u{1b}]8;;\u{1b}\\"))
        #expect(rest[..<close.lowerBound].contains(site.health), "the link's text inside the link")
        try site.tmux.sendText("q")
        #expect(site.tmux.waitForExit() == .exited(0))
    }
}
