import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost

private func errors(_ text: String) throws -> [String] {
    Catalog.builtin().validator(isKnownTimeZone: { _ in true }).validate(try JSONParser().parse(text)).errors.map(\.description)
}

@Suite("http-json config")
struct HTTPJSONConfigTests {
    @Test("a valid panel: defaults filled in the fields")
    func valid() throws {
        let report = Catalog.builtin().validator().validate(try JSONParser().parse("""
            { "panels": [ { "kind": "http-json", "options": { "url": "https://example.com/status",
              "headers": { "Authorization": "$TOKEN" },
              "fields": [ { "label": "Price", "pointer": "/data/0/price", "format": "number" },
                          { "label": "Name", "pointer": "/a~1b/~0c" } ] } } ] }
            """))
        #expect(report.errors.isEmpty, "\(report.errors)")
        let options = try #require(report.config?.panels.first?.options)
        #expect(options.objects("fields")?.map { $0.string("format") } == ["number", "text"])
        #expect(options.integer("refreshSeconds") == 60 && options.string("session") == "http-json")
        #expect(options.stringMap("headers") == ["Authorization": "$TOKEN"])
    }

    @Test("bad options: every error names its key path")
    func badOptions() throws {
        #expect(try errors("""
            { "panels": [ { "kind": "http-json", "options": {
              "url": "ftp://example.com/x", "headers": { "X-Key": 5 }, "refreshSeconds": 0, "session": 7,
              "fields": [ { "label": "Price", "pointer": "data/0" },
                          { "label": "Change", "pointer": "/a~2", "format": "percentage" },
                          { "pointer": "/x", "colour": "red" } ] } } ] }
            """) == [
            #"panels[0].options.url: expected a URL (http or https), got "ftp://example.com/x""#,
            #"panels[0].options.headers["X-Key"]: expected a string, got 5"#,
            #"panels[0].options.fields[0].pointer: expected a JSON Pointer like '/data/0/price' (~1 for '/', ~0 for '~'), got "data/0": a JSON Pointer is empty or starts with '/'"#,
            #"panels[0].options.fields[1].pointer: expected a JSON Pointer like '/data/0/price' (~1 for '/', ~0 for '~'), got "/a~2": '~' must be followed by 0 or 1 (~0 for '~', ~1 for '/')"#,
            #"panels[0].options.fields[1].format: expected one of 'text', 'number', 'percent', 'bytes', 'duration', 'relative-time', got "percentage"; did you mean 'percent'?"#,
            "panels[0].options.fields[2].colour: unknown option; (each element has label, pointer, format, alertAbove, alertBelow)",
            "panels[0].options.fields[2].label: missing required option: the row's label (a string)",
            "panels[0].options.refreshSeconds: expected an integer in 1…86400, got 0",
            "panels[0].options.session: expected a string, got 7",
        ])
        #expect(try errors(#"{ "panels": [ { "kind": "http-json", "options": { "url": "http://127.0.0.1/x" } } ] }"#)
                == ["panels[0].options.fields: missing required option: the rows: label, pointer, format (a list of objects with label, pointer, format?, alertAbove?, alertBelow?)"])
    }
}
