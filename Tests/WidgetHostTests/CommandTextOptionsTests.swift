import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost
import Widgets

// Bad options of the `command` and `text` widgets: every error names its key path, all are
// listed, and "exactly one of" groups are checked from the manifest.

private func errors(_ json: String) throws -> [String] {
    Catalog.builtin().validator().validate(try JSONParser().parse(json)).errors.map(\.description)
}

@Suite("command and text options")
struct CommandTextOptionsTests {
    @Test("command: neither or both of command/argv, and each option out of its type or range, name their key path")
    func badCommandOptions() throws {
        #expect(try errors("""
            {"panels": [
              {"kind": "command"},
              {"kind": "command", "options": {"command": "date", "argv": ["date"]}},
              {"kind": "command", "options": {"command": 7, "intervalSeconds": -1, "timeoutSeconds": 31,
                                              "maxOutputBytes": 0, "show": "middle", "env": {"A": 1},
                                              "workingDirectory": false, "timeout": 3}},
              {"kind": "command", "options": {"argv": "date"}}
            ]}
            """) == [
            "panels[0].options: missing option: give 'command' or 'argv'",
            "panels[1].options.argv: give only one of 'command' or 'argv', not both",
            "panels[2].options.timeout: unknown option; ('command' has command, argv, intervalSeconds, timeoutSeconds, maxOutputBytes, workingDirectory, env, show, alertOnFailure)",
            "panels[2].options.command: expected a string, got 7",
            "panels[2].options.intervalSeconds: expected an integer in 0…86400, got -1",
            "panels[2].options.timeoutSeconds: expected an integer in 1…30, got 31",
            "panels[2].options.maxOutputBytes: expected an integer in 1…4194304, got 0",
            "panels[2].options.workingDirectory: expected a string, got false",
            "panels[2].options.env.A: expected a string, got 1",
            "panels[2].options.show: expected one of 'tail', 'head', got \"middle\"",
            "panels[3].options.argv: expected a list of strings, got \"date\"",
        ])
        #expect(try errors(#"{"panels": [{"kind": "command", "options": {"argv": ["uptime"], "intervalSeconds": 0}}]}"#) == [])
    }

    @Test("text: neither or both of text/file, and a bad wrap, name their key path")
    func badTextOptions() throws {
        #expect(try errors("""
            {"panels": [
              {"kind": "text", "options": {"wrap": true}},
              {"kind": "text", "options": {"text": "a", "file": "/b"}},
              {"kind": "text", "options": {"file": ["/b"], "wrap": "yes"}}
            ]}
            """) == [
            "panels[0].options: missing option: give 'text' or 'file'",
            "panels[1].options.file: give only one of 'text' or 'file', not both",
            "panels[2].options.file: expected a string, got an array",
            "panels[2].options.wrap: expected true or false, got \"yes\"",
        ])
    }

    @Test("the built-in manifests declare their groups well; a bad group is a manifest problem")
    func groupProblems() {
        #expect(Catalog.builtin().manifests.flatMap(\.problems).isEmpty)
        let bad = WidgetManifest(kind: "bad", displayName: "Bad", description: "", defaultFamily: .small,
                                 options: [OptionSpec(name: "a", type: .string, defaultValue: .string("x"), doc: "a")],
                                 exactlyOneOf: [["a", "b"], ["a"]])
        #expect(bad.problems == [
            "bad: exactly-one-of option 'a' is required or has a default",
            "bad: exactly-one-of option 'b' is not an option",
            "bad: an exactly-one-of group needs two options or more",
            "bad: exactly-one-of option 'a' is required or has a default",
        ])
    }
}
