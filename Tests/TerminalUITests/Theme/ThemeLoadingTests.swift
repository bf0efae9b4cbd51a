#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import TerminalUI

/// A scratch directory per test, removed afterwards.
private struct ScratchDirectory: ~Copyable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/terminalui-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        let directory = String(file[..<file.lastIndex(of: "/")!])
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(filePath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

private func loadError(_ body: () throws(ThemeError) -> Theme) -> ThemeError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

@Suite("Theme loading")
struct ThemeLoadingTests {
    @Test("each embedded built-in theme equals its file in Themes/", arguments: BuiltinThemes.names)
    func embeddedMatchesFile(name: String) throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appending(path: "Themes/\(name).json"), encoding: .utf8)
        #expect(BuiltinThemes.json[name] == file)
    }

    @Test("the Themes/ directory holds exactly the built-in themes")
    func noStrayThemeFiles() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "Themes").path)
        #expect(Set(files) == Set(BuiltinThemes.names.map { "\($0).json" }))
    }

    @Test("every built-in theme loads by name without files", arguments: BuiltinThemes.names)
    func builtinLoads(name: String) throws {
        let loader = ThemeLoader(environment: [:])
        let theme = try loader.load(name)
        #expect(Theme.builtin(named: name) == theme)
    }

    @Test("a bad colour names the file, the key and what is expected")
    func badColour() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.write(##"{ "colors": { "accent": "#12345" } }"##, to: "mytheme.json")
        let error = loadError { () throws(ThemeError) in try ThemeLoader(environment: [:]).load(path) }
        #expect(error?.description == ##"\##(path): colors.accent: "#12345" is not a colour (expected #rrggbb, a colour name, 0-255 or "default")"##)
    }

    @Test("every problem is listed, in the file's order: unknown keys, unknown roles, bad numbers and attributes")
    func allProblems() throws {
        let text = #"{ "colours": {}, "colors": { "accnt": "red", "muted": 300 }, "attributes": { "title": ["blink"] } }"#
        let error = loadError { () throws(ThemeError) in try ThemeParser.parse(text, file: "t.json") }
        #expect(error?.issues.map(\.keyPath) == ["colours", "colors.accnt", "colors.muted", "attributes.title[0]"])
        let lines = error?.description.split(separator: "\n").map(String.init) ?? []
        #expect(lines.contains("t.json: colours: unknown key (expected name, description, colors, attributes)"))
        #expect(lines.contains(#"t.json: attributes.title[0]: "blink" is not an attribute (expected bold, dim, reverse or underline)"#))
        #expect(lines.contains { $0.hasPrefix("t.json: colors.accnt: unknown role") })
        #expect(lines.contains { $0.hasPrefix("t.json: colors.muted: 300 is not a colour") })
        let duplicate = loadError { () throws(ThemeError) in try ThemeParser.parse("{ \"name\": \"a\",\n  \"name\": \"b\" }", file: "d.json") }
        #expect(duplicate?.description.contains("d.json") == true)
        #expect(duplicate?.description.contains("line 2, column 3: duplicate key") == true, "syntax errors give the place")
    }

    @Test("malformed JSON and a missing file are reported with the file name")
    func badJSONAndMissingFile() throws {
        let scratch = try ScratchDirectory()
        let path = try scratch.write(#"{ "colors": { "accent": "red", } "#, to: "broken.json")
        let broken = loadError { () throws(ThemeError) in try ThemeLoader(environment: [:]).load(path) }
        #expect(broken?.description.hasPrefix("\(path): not valid JSON") == true)
        let missing = loadError { () throws(ThemeError) in try ThemeLoader(environment: [:]).load(scratch.path + "/nope.json") }
        #expect(missing?.description == "\(scratch.path)/nope.json: no such file")
        let unknown = loadError { () throws(ThemeError) in try ThemeLoader(environment: ["HOME": "/nonexistent"]).load("neon") }
        #expect(unknown?.description.hasPrefix("neon: unknown theme: not built in (default, light, solarized-dark, high-contrast, mono)") == true)
        let array = loadError { () throws(ThemeError) in try ThemeParser.parse("[1]", file: "a.json") }
        #expect(array?.description == "a.json: expected a JSON object, found an array")
    }

    @Test("a user theme is found by name under XDG_CONFIG_HOME and may override a built-in")
    func userDirectory() throws {
        let scratch = try ScratchDirectory()
        _ = try scratch.write(#"{ "name": "Neon", "colors": { "accent": "magenta" } }"#, to: "widgethost/themes/neon.json")
        _ = try scratch.write(#"{ "name": "My Light" }"#, to: "widgethost/themes/light.json")
        let loader = ThemeLoader(environment: ["XDG_CONFIG_HOME": scratch.path, "HOME": "/nonexistent"])
        #expect(try loader.load("neon").name == "Neon")
        #expect(try loader.load("light").name == "My Light")
        #expect(loader.availableNames() == ["default", "light", "solarized-dark", "high-contrast", "mono", "neon"])
        let home = ThemeLoader(environment: ["HOME": "/home/u"])
        #expect(home.userThemesDirectory == "/home/u/.config/widgethost/themes")
    }

    @Test("missing roles fall back to the default theme; stale and placeholder to muted")
    func fallback() throws {
        let theme = try ThemeParser.parse(#"{ "colors": { "accent": 200, "muted": "grey" }, "attributes": { "muted": ["dim"] } }"#, file: "t.json")
        #expect(theme.name == "t")
        #expect(theme.color(.accent) == .indexed(200))
        #expect(theme.color(.border) == Theme.default.color(.border))
        #expect(theme.color(.background) == .terminalDefault)
        #expect(theme.color(.stale) == .indexed(8))
        #expect(theme.color(.placeholder) == .indexed(8))
        #expect(theme.attributes(.stale) == .dim)
        #expect(theme.attributes(.accent) == [])
    }

    @Test("colour values: hex, names, bright names, indexes and default", arguments: [
        ("#ff8000", ThemeColor.rgb(255, 128, 0)), ("#FFFFFF", .rgb(255, 255, 255)), ("red", .indexed(1)),
        ("brightRed", .indexed(9)), ("bright-white", .indexed(15)), ("Gray", .indexed(8)), ("42", .indexed(42)),
        ("default", .terminalDefault),
    ])
    func colourValues(text: String, color: ThemeColor) {
        #expect(ThemeColor(parsing: text) == color)
    }

    @Test("non-colours are rejected", arguments: ["#12345", "#gggggg", "256", "-1", "reddish", "", "brightgrey",
                                                  "#+fffff", "#+0000f", "#ff ff0", "99999999999999999999"])
    func nonColours(text: String) {
        #expect(ThemeColor(parsing: text) == nil)
    }
}
