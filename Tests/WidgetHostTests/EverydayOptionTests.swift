import JSONTree
import Testing
import WidgetCore
@testable import WidgetHost

/// The `path: message` errors of a config with `panels`, checked against the built-in catalogue.
private func errors(_ panels: String) throws -> [String] {
    let validator = Catalog.builtin().validator(isKnownTimeZone: { _ in true })
    return validator.validate(try JSONParser().parse(#"{"panels": \#(panels)}"#)).errors.map(\.description)
}

@Suite("System and countdown options")
struct EverydayOptionTests {
    @Test("system: intervalSeconds defaults to 2 and is not raised to minimumReloadSeconds; a bad one names its key path")
    func systemOptions() throws {
        let validator = Catalog.builtin().validator(isKnownTimeZone: { _ in true })
        let config = try #require(validator.validate(try JSONParser().parse(
            #"{"minimumReloadSeconds": 30, "panels": [{"kind": "system"}, {"kind": "system", "options": {"intervalSeconds": 1}}]}"#)).config)
        #expect(config.panels[0].family == .medium)
        #expect(config.panels[0].options["intervalSeconds"] == .integer(2))
        #expect(config.panels[1].options["intervalSeconds"] == .integer(1), "local readings are not a network refresh")
        #expect(try errors(#"[{"kind": "system", "options": {"intervalSeconds": 0}}]"#)
                == ["panels[0].options.intervalSeconds: expected an integer in 1…3600, got 0"])
        #expect(try errors(#"[{"kind": "clock"}, {"kind": "system", "options": {"intervalSeconds": "two"}}]"#)
                == [#"panels[1].options.intervalSeconds: expected an integer in 1…3600, got "two""#])
        #expect(try errors(#"[{"kind": "system", "options": {"interval": 5}}]"#).first?.hasPrefix("panels[0].options.interval:") == true)
    }

    @Test("countdown: `to` is required and must be ISO 8601 (with offset) or a local date and time; errors name the key path")
    func countdownOptions() throws {
        #expect(try errors(#"[{"kind": "countdown", "options": {"to": "2026-12-31T23:59", "label": "New Year"}}]"#).isEmpty)
        #expect(try errors(#"[{"kind": "countdown", "options": {"to": "2026-12-31T23:59:00+01:00"}}]"#).isEmpty)
        #expect(try errors(#"[{"kind": "countdown", "options": {"to": "next friday"}}]"#)
                == [#"panels[0].options.to: expected an ISO 8601 date and time like '2026-12-31T23:59' or '2026-12-31T23:59:00+01:00', got "next friday""#])
        #expect(try errors(#"[{"kind": "countdown", "options": {"to": "2026-02-30T10:00"}}]"#).first?.hasPrefix("panels[0].options.to:") == true)
        #expect(try errors(#"[{"kind": "countdown", "options": {"to": 20261231}}]"#).first?.hasPrefix("panels[0].options.to:") == true)
        #expect(try errors(#"[{"kind": "countdown", "options": {"label": "x"}}]"#).first?.hasPrefix("panels[0].options.to:") == true,
                "a missing `to` is named too")
        #expect(try errors(#"[{"kind": "countdown", "family": "large", "options": {"to": "2026-12-31"}}]"#).first?.hasPrefix("panels[0].family:") == true)
    }

    @Test("--option to=… on the command line is read as a string and checked the same way")
    func commandLine() {
        #expect(OptionType.dateTime.value(fromCommandLine: "2026-12-31T23:59") == .string("2026-12-31T23:59"))
        #expect(OptionType.dateTime.problem(with: .string("2026-12-31T23:59"), isKnownTimeZone: { _ in true }) == nil)
        #expect(OptionType.dateTime.problem(with: .string("soon"), isKnownTimeZone: { _ in true }) != nil)
    }
}
