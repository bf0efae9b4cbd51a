import Testing
@testable import WidgetHost

@Suite("widgethost activity and events: the command line")
struct ActivityCommandLineTests {
    @Test("start, update, end and list parse into checked requests")
    func parses() throws {
        let start = try CommandLineParser.parse(["activity", "start", "build", "--title", "Build", "--progress", "0.2",
                                                 "--stale-after", "10m", "--state-dir", "/tmp/s"])
        #expect(start == .activity(ActivityOptions(request: ActivityRequest(action: .start, id: "build", title: "Build", progress: 0.2,
                                                                            staleAfter: 600), stateDirectory: "/tmp/s")))
        let end = try CommandLineParser.parse(["activity", "end", "tests", "--state", "failure", "--dismiss-after", "0"])
        #expect(end == .activity(ActivityOptions(request: ActivityRequest(action: .end, id: "tests", state: .failure, dismissAfter: 0))))
        #expect(try CommandLineParser.parse(["activity", "list", "--json"]) == .activity(ActivityOptions(json: true)))
        #expect(try CommandLineParser.parse(["events", "--since", "1h", "--json"]) == .events(EventsOptions(since: 3600, json: true)))
    }

    @Test("bad usage is exit 2 with a clear message")
    func usage() {
        let cases: [([String], String)] = [
            (["activity"], "activity expects start, update, end or list"),
            (["activity", "stop", "x"], "'stop' is not an activity command: start, update, end or list"),
            (["activity", "start"], "start needs an ID, like: activity start build"),
            (["activity", "start", "my build", "--title", "x"], "'my build' is not an activity ID: 1 to 64 of A-Z a-z 0-9 . _ -"),
            (["activity", "start", "b"], "start needs --title TEXT"),
            (["activity", "update", "b", "--progress", "40%"], "--progress expects a number from 0 to 1, like 0.4; got '40%'"),
            (["activity", "update", "b", "--progress", "1.2"], "--progress expects a number from 0 to 1, like 0.4"),
            (["activity", "end", "b", "--state", "done"], "--state expects success, failure or cancelled; got 'done'"),
            (["activity", "update", "b", "--stale-after", "soon"], "--stale-after expects a time like 90s, 10m or 2h; got 'soon'"),
            (["activity", "list", "b"], "list takes only --json and --state-dir"),
            (["activity", "start", "b", "--title", "x", "--json"], "--json goes with list"),
            (["events", "--since", "yesterday"], "--since expects a time like 90s, 10m or 2h; got 'yesterday'"),
        ]
        for (arguments, message) in cases {
            #expect(throws: UsageError.self, "\(arguments)") { try CommandLineParser.parse(arguments) }
            do {
                _ = try CommandLineParser.parse(arguments)
            } catch {
                #expect(error.message == message, "\(arguments)")
                #expect(error.description.hasSuffix("see 'widgethost \(arguments[0]) --help'"))
            }
        }
    }

    @Test("the help lists the commands and their options")
    func help() {
        let main = HelpText.text(for: nil, catalog: .builtin())
        #expect(main.contains("activity start|update|end|list") && main.contains("events            the history"))
        let activity = HelpText.text(for: .activity, catalog: .builtin())
        #expect(activity.contains("--stale-after TIME") && activity.contains("--dismiss-after TIME") && activity.contains("  make test\n"))
        #expect(HelpText.text(for: .events, catalog: .builtin()).contains("--since TIME"))
    }
}
