#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import TerminalUI

/// Expects `buffer` to show exactly `lines` (plain text, trailing spaces ignored).
///
/// `lines` must have one entry per row. On a mismatch the issue shows both frames and a
/// line diff (`-` expected, `+` actual, with the row number), e.g.
/// ```swift
/// expectFrame(buffer, equals: [
///     "┌ Title ┐",
///     "└───────┘",
/// ])
/// ```
public func expectFrame(_ buffer: CellBuffer, equals lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = TextBackend.lines(buffer)
    let expected = lines.map { line in
        var trimmed = line
        while trimmed.last == " " { trimmed.removeLast() }
        return trimmed
    }
    guard actual != expected else { return }
    Issue.record(Comment(rawValue: frameDiff(expected: expected, actual: actual)), sourceLocation: sourceLocation)
}

/// A readable line diff of two frames: rows that differ, expected (`-`) above actual (`+`).
public func frameDiff(expected: [String], actual: [String]) -> String {
    var report = "frame differs (\(actual.count) rows, expected \(expected.count)):\n"
    for row in 0..<max(expected.count, actual.count) {
        let e = row < expected.count ? expected[row] : nil
        let a = row < actual.count ? actual[row] : nil
        if e == a {
            report += "  \(pad(row)) |\(e ?? "")|\n"
        } else {
            report += "- \(pad(row)) |\(e ?? "<missing>")|\n+ \(pad(row)) |\(a ?? "<missing>")|\n"
        }
    }
    return report
}

private func pad(_ row: Int) -> String { row < 10 ? " \(row)" : "\(row)" }

/// Compares `text` with the snapshot file `__Snapshots__/NAME.txt` next to the calling test.
///
/// When the file is missing, or the environment has `RECORD_SNAPSHOTS=1`, the file is
/// (re)written and an issue is recorded so a recording run never passes silently; run again
/// to compare. ESC characters are stored as `\e` so snapshot files stay readable in diffs.
public func expectSnapshot(_ text: String, named name: String, filePath: String = #filePath,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = URL(filePath: filePath).deletingLastPathComponent().appending(path: "__Snapshots__")
    let file = directory.appending(path: "\(name).txt")
    let stored = text.replacing("\u{1B}", with: "\\e")
    let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
    let existing = try? String(contentsOf: file, encoding: .utf8)
    if record || existing == nil {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(stored.utf8).write(to: file)
            Issue.record("recorded snapshot \(file.path); run the tests again to compare", sourceLocation: sourceLocation)
        } catch {
            Issue.record("cannot record snapshot \(file.path): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let existing, existing != stored else { return }
    let diff = frameDiff(expected: existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                         actual: stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    Issue.record(Comment(rawValue: "snapshot \(name) differs; RECORD_SNAPSHOTS=1 to accept\n" + diff), sourceLocation: sourceLocation)
}
