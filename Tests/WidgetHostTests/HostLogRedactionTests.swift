import Testing
import WidgetTestSupport
@testable import WidgetHost

@Suite("Host log")
struct HostLogRedactionTests {
    @Test("a URL with credentials is logged without them (issue 10, also)")
    func credentialsNeverLogged() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/widgethost.log"
        let log = try #require(HostLog(path: path, debug: true))
        log.error("leaderboard: https://alice:s3cret@example.org/board failed: server answered 500")
        log.info("plain http://example.org/x stays as it is")
        let text = try FileContents.text(at: path)
        #expect(!text.contains("s3cret") && !text.contains("alice"), "\(text)")
        #expect(text.contains("https://***@example.org/board failed"), "\(text)")
        #expect(text.contains("plain http://example.org/x stays"), "\(text)")
    }
}
