import Testing
import TerminalUI
import WidgetCore
@testable import WidgetHost
import Widgets

// `widgethost widgets` at 100 columns: every line of every built-in kind fits, and wrapping
// breaks only at spaces, losing and adding no word.

/// The words of `text` (split at spaces and newlines).
private func words(_ text: Substring) -> [Substring] {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" })
}

@Suite("widgets listing width")
struct WidgetsCommandTests {
    @Test("every built-in kind's listing fits 100 columns, each description whole across its lines")
    func builtinsFit() {
        let catalog = Catalog.builtin()
        let listing = WidgetsCommand.run(catalog: catalog).standardOutput
        let lines = listing.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines {
            #expect(DisplayWidth.of(String(line)) <= 100, "\(DisplayWidth.of(String(line))) columns: \(line)")
        }
        for manifest in catalog.manifests {
            // The header's words, in order, on its first line and the lines indented under it.
            guard let start = lines.firstIndex(where: { $0.hasPrefix("\(manifest.kind): ") }) else {
                Issue.record("no header for \(manifest.kind)")
                continue
            }
            let continued = lines[(start + 1)...].prefix { $0.hasPrefix("    ") }
            let shown = ([lines[start]] + continued).flatMap(words)
            #expect(shown == words("\(manifest.kind): \(manifest.displayName). \(manifest.description)"[...]))
        }
    }

    @Test("a kind's listing says what it uses of the host (its definition's uses); a local kind says nothing of it")
    func listsUses() {
        // A wrapped line's continuation (indented four) joined back to it.
        let listing = WidgetsCommand.run(catalog: Catalog.builtin()).standardOutput.replacing("\n    ", with: " ")
        let lines = listing.split(separator: "\n").map(String.init)
        func behaviour(_ kind: String) -> String? {
            lines.firstIndex { $0.hasPrefix(kind + ": ") }.flatMap { start in
                lines[(start + 1)...].first { $0.hasPrefix("  fetches") || $0.hasPrefix("  computed") }
            }
        }
        #expect(behaviour("leaderboard")?.hasSuffix("; uses the host's background sessions, push") == true)
        #expect(behaviour("text")?.hasSuffix("; uses the host's file watching") == true)
        #expect(behaviour("clock")?.contains("uses the host's") == false)
    }

    @Test("a long line breaks at the last space that fits; later lines start with the indent")
    func breaksAtWords() {
        let line = "kind: Name. " + Array(repeating: "word", count: 40).joined(separator: " ")
        let wrapped = WidgetsCommand.wrapped(line, indent: "    ", width: 30)
        let lines = wrapped.split(separator: "\n")
        #expect(wrapped.hasSuffix("\n"))
        #expect(lines.first == "kind: Name. word word word")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    word") && !$0.hasPrefix("     ") })
        #expect(lines.allSatisfy { $0.count <= 30 && $0.last != " " })
        #expect(words(wrapped[...]) == words(line[...]))
    }

    @Test("a line that fits is left alone, padding included; a word wider than the line stands alone")
    func fitsAndLongWords() {
        #expect(WidgetsCommand.wrapped("  format   one of 'text'", indent: "    ", width: 30) == "  format   one of 'text'\n")
        #expect(WidgetsCommand.wrapped("  format   one of 'text', 'number'", indent: "             ", width: 30)
                == "  format   one of 'text',\n             'number'\n")
        let url = "http://127.0.0.1:8787/" + String(repeating: "x", count: 40)
        #expect(WidgetsCommand.wrapped("see \(url) now", indent: "  ", width: 30) == "see\n  \(url)\n  now\n")
        #expect(WidgetsCommand.wrapped(url, indent: "  ", width: 30) == url + "\n")
    }

    @Test("an option without doc gets no empty line; a refresh interval's note stands alone, without a leading comma")
    func undocumentedOptions() {
        let listing = WidgetsCommand.options([
            OptionSpec(name: "a", type: .string, doc: ""),
            OptionSpec(name: "w", type: .seconds(60...Int.max, refreshInterval: true), defaultValue: .integer(60), doc: ""),
            OptionSpec(name: "e", type: .string, doc: "", example: "Oslo"),
            OptionSpec(name: "d", type: .integer(1...7), doc: "the days"),
            OptionSpec(name: "r", type: .seconds(60...600, refreshInterval: true), doc: "how often"),
        ], indent: "  ")
        #expect(listing == """
              a  a string
              w  an integer ≥ 60, default 60
                 raised to minimumReloadSeconds
              e  a string
                 (e.g. Oslo)
              d  an integer in 1…7
                 the days
              r  an integer in 60…600
                 how often, raised to minimumReloadSeconds

            """, "\(listing)")
    }
}
