#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HostProcesses
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget whose entry links to `url` (nil: no link).
private struct Linked: Sendable {
    struct Entry: TimelineEntry {
        var date: Date
        var url: String?
    }

    struct Provider: TimelineProvider {
        let url: String?
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, url: nil) }
        func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
        func timeline(in context: Context) async throws -> Timeline<Entry> { Timeline(entries: [Entry(date: .distantPast, url: url)], policy: .never) }
    }

    let kind: String
    let url: String?
    /// A span linking to this, drawn at the top left of the panel.
    var spanLink: String? = nil

    var widget: TerminalWidget {
        TerminalWidget(kind: kind, displayName: kind, makeProvider: { [url] _ in AnyTimelineProvider(Provider(url: url)) },
                       view: { [spanLink] _, _ in
                           PanelView(node: .text(ViewNode.Text(spans: [ViewNode.Span("see "), ViewNode.Span("the site", link: spanLink)])))
                       })
    }
}

@Suite("Links", .serialized)
@MainActor
struct LinkTests {
    @Test("o opens the focused panel's entry URL; a panel without one says so until the next key")
    func openKey() async {
        let url = "https://example.com/heroes?name=Octo&x=$(true)"
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 12))
        dashboard.install([PreparedPanel.of([("Linked", Linked(kind: "linked", url: url).widget)], family: .small),
                           PreparedPanel.of([("Plain", Linked(kind: "plain", url: nil).widget)], family: .small)])
        await dashboard.settle()
        dashboard.press(.character("o"))
        #expect(dashboard.host.effects.contains(.openURL(url)), "the URL exactly as the entry gave it")
        dashboard.press(.tab)
        dashboard.press(.character("o"))
        #expect(TextBackend.lines(dashboard.render()).last?.contains("this panel has no link to open") == true)
        dashboard.press(.tab)
        #expect(TextBackend.lines(dashboard.render()).last?.contains("no link") == false, "gone at the next key")
    }

    @Test("the opener gets the URL as its one argument, untouched by any shell; a missing opener is a clear message")
    func opener() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let record = directory.path + "/argv"
        let script = directory.write("browser", "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '\(record)'\n")
        chmod(script, 0o755)
        let processes = ProcessSpawner()
        let url = "https://example.com/a b?c=1&d=$(touch \(directory.path)/pwned);e`x`"
        #expect(LinkOpener.open(url, environment: ["BROWSER": script, "PATH": "/usr/bin:/bin"], processes: processes, log: nil)
                == "not a link to open (http, https or mailto)", "a space: not one argument as given")
        let link = "https://example.com/?c=1&d=$(touch${IFS}\(directory.path)/pwned);e`x`|y>z"
        #expect(LinkOpener.open(link, environment: ["BROWSER": script, "PATH": "/usr/bin:/bin"], processes: processes, log: nil) == nil)
        // The opener runs on its own; its record appears when it has run.
        #expect(await eventually { (try? FileContents.text(at: record)) == link + "\n" })
        #expect(access(directory.path + "/pwned", F_OK) != 0, "no shell ran the URL")
        #expect(LinkOpener.open(link, environment: ["BROWSER": "no-such-browser", "PATH": "/usr/bin:/bin"], processes: processes, log: nil)
                == "cannot open the link: $BROWSER (no-such-browser) is not a program")
        #expect(LinkOpener.open(link, environment: ["PATH": directory.path], processes: processes, log: nil)
                == "cannot open the link: no $BROWSER and no xdg-open")
        #expect(LinkOpener.open("file:///etc/passwd", environment: ["BROWSER": script], processes: processes, log: nil) != nil)
        _ = processes.reapExited()
    }

    @Test("linked text is underlined; a click on it opens its link (and focuses its panel), a click beside it does not")
    func clickALink() async {
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 12))
        dashboard.install([PreparedPanel.of([("Plain", Linked(kind: "plain", url: nil).widget)], family: .small),
                           PreparedPanel.of([("Linked", Linked(kind: "linked", url: nil, spanLink: "https://example.com/x").widget)],
                                            family: .small)])
        await dashboard.settle()
        let frame = dashboard.render()
        let row = TextBackend.lines(frame)[1]
        let column = row.firstRange(of: "the site", startingAt: 40)
        let x = try! #require(column)
        #expect(frame[x, 1].style.attributes.contains(.underline))
        dashboard.press(.mouse(MouseEvent(.press, column: x - 2, row: 1)))
        #expect(!dashboard.host.effects.contains { if case .openURL = $0 { true } else { false } }, "'see ' is not the link")
        #expect(dashboard.focus == 1)
        dashboard.press(.mouse(MouseEvent(.press, column: x + 3, row: 1)))
        #expect(dashboard.host.effects.contains(.openURL("https://example.com/x")))
    }

    @Test("a view description's span may have a link; another scheme is an error at its path")
    func spanLinkDecoding() throws {
        let view = try ViewNode.decode(Array(#"{"type": "text", "spans": [{"text": "docs", "link": "https://example.com/docs"}]}"#.utf8))
        guard case .text(let text) = view else { Issue.record("not text: \(view)"); return }
        #expect(text.spans.first?.link == "https://example.com/docs")
        #expect(view.jsonText.contains(#""link":"https://example.com/docs""#), "kept in a replay's JSON")
        #expect(throws: ViewDescriptionError.self) {
            try ViewNode.decode(Array(#"{"type": "text", "spans": [{"text": "x", "link": "javascript:alert(1)"}]}"#.utf8))
        }
    }

    @Test("an extension's entry may carry a url (http, https, mailto); anything else is an error at its path")
    func extensionEntryURL() throws {
        #expect(Hyperlink.isAllowed("mailto:rangers@example.com") && Hyperlink.isAllowed("HTTPS://x.example/"))
        #expect(!Hyperlink.isAllowed("javascript:alert(1)") && !Hyperlink.isAllowed("https://") && !Hyperlink.isAllowed("http://a\u{1b}]8;;"))
        #expect(!Hyperlink.isAllowed("https://" + String(repeating: "a", count: 5000)))
    }
}

private extension String {
    /// The column (in a line of one-column characters) where `text` first occurs at or after `from`.
    func firstRange(of text: String, startingAt from: Int) -> Int? {
        let characters = Array(self)
        let needle = Array(text)
        guard characters.count >= needle.count else { return nil }
        for start in from...(characters.count - needle.count) where Array(characters[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}
