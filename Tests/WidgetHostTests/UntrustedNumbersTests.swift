import JSONTree
import Testing
@testable import WidgetHost

private func errors(_ text: String) throws -> [String] {
    Catalog.builtin().validator().validate(try JSONParser().parse(text)).errors.map(\.description)
}

/// Config files and command-line options are untrusted: extreme numbers are refused with a
/// message, never converted into a trap, and URLs in messages never show credentials.
@Suite("Untrusted numbers and URLs in config and options")
struct UntrustedNumbersTests {
    @Test("extreme numbers in the config are refused with a message", arguments: [
        "1e300", "-1e300", "99999999999999999999", "-9223372036854775808", "9223372036854775807", "1.5", "1e-300",
    ])
    func extremeConfigNumbers(value: String) throws {
        let text = #"{"minimumReloadSeconds": \#(value), "dailyReloadBudget": \#(value), "panels": [{"kind": "leaderboard", "#
            + #""options": {"url": "http://h/x", "refreshSeconds": \#(value), "maxRows": \#(value)}}]}"#
        let found = try errors(text)
        #expect(found.count == 4, "\(found)")
        #expect(found.allSatisfy { $0.contains("expected an integer") }, "\(found)")
    }

    @Test("a number beyond Double is a syntax error, not infinity")
    func beyondDouble() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser().parse(#"{"minimumReloadSeconds": 1e400}"#) }
    }

    @Test("extreme option values on the command line are usage errors", arguments: [
        ["snapshot", "--size", "99999999999999999999x1"], ["snapshot", "--at", "+9223372036854775807s"],
        ["snapshot", "--at", "+99999999999h"], ["snapshot", "--at", "99999-01-01T00:00:00Z"],
        ["snapshot", "--wait", "1e300"], ["snapshot", "--wait", "99999999999999999999999999"],
        ["preview", "clock", "--count", "99999999999999999999"], ["preview", "clock", "--count", "-9223372036854775808"],
    ])
    func extremeOptions(arguments: [String]) {
        #expect(throws: UsageError.self) { try CommandLineParser.parse(arguments) }
    }

    @Test("a URL the config refuses is quoted without its credentials (issue 10, also)")
    func urlCredentialsHidden() throws {
        let found = try errors(#"{"panels": [{"kind": "leaderboard", "options": {"url": "ftp://alice:s3cret@h/x"}}]}"#)
        #expect(found == [#"panels[0].options.url: expected a URL (http or https), got "ftp://***@h/x""#])
    }
}
