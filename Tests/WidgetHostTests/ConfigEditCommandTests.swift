#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetCore
@testable import WidgetHost

private func config(_ arguments: [String], _ directory: TemporaryDirectory) -> CommandOutput {
    let environment = HostEnvironment(variables: ["XDG_CONFIG_HOME": directory.path], homeDirectory: "/nonexistent")
    return WidgetHostCommand.run(arguments: ["config"] + arguments, environment: environment, catalog: .builtin())
}

private func contents(_ path: String) -> String? {
    (try? ConfigFileReader.read(path)).map { String(decoding: $0, as: UTF8.self) }
}

/// The default dashboard as `config add` first writes it: 2-space JSON, keys in their order.
private let defaultDashboardText = """
    {
      "panels": [
        {
          "kind": "leaderboard",
          "family": "large",
          "title": "Ranger Leaderboard",
          "options": {
            "url": "http://127.0.0.1:8787/leaderboard",
            "push": "http://127.0.0.1:8787/events"
          }
        },
        {
          "kind": "hero",
          "family": "small",
          "title": "Spouty",
          "options": {
            "name": "Spouty"
          }
        },
        {
          "kind": "clock",
          "family": "small",
          "title": "Clock"
        },
        {
          "kind": "system",
          "family": "medium",
          "title": "System"
        }
    """

@Suite("widgethost config add|remove")
struct ConfigEditCommandTests {
    @Test("with no config, add creates it from the default dashboard plus the new panel, byte for byte")
    func addCreates() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/widgethost/config.json"
        let output = config(["add", "countdown", "--option", "to=2026-12-31T23:59", "--option", "label=New Year"], directory)
        #expect(output == CommandOutput(exitCode: 0, standardOutput: """
            \(file): created from the default dashboard
            \(file): added countdown as panel 5

            """))
        #expect(contents(file) == defaultDashboardText + """
            ,
                {
                  "kind": "countdown",
                  "options": {
                    "to": "2026-12-31T23:59",
                    "label": "New Year"
                  }
                }
              ]
            }

            """)
        #expect(contents(file + ".bak") == nil)
        let check = CheckConfigCommand.run(path: file, environment: HostEnvironment(), catalog: .builtin())
        #expect(check.exitCode == 0, "\(check)")
    }

    @Test("remove takes panel N out, keeps the old file as .bak, and writes options in the manifest's order")
    func remove() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        directory.makeDirectory("widgethost")
        let original = #"{"panels": [{"options": {"seconds": true, "timeZone": "UTC"}, "kind": "clock"}, {"kind": "system"}], "theme": "default"}"#
        let file = directory.write("widgethost/config.json", original)
        #expect(config(["remove", "2"], directory) == CommandOutput(exitCode: 0, standardOutput: "\(file): removed panel 2 (system)\n"))
        #expect(contents(file) == """
            {
              "theme": "default",
              "panels": [
                {
                  "kind": "clock",
                  "options": {
                    "timeZone": "UTC",
                    "seconds": true
                  }
                }
              ]
            }

            """)
        #expect(contents(file + ".bak") == original)
        // Formatting a formatted file changes nothing: the order is stable.
        let formatted = contents(file)
        #expect(config(["add", "system", "--family", "medium"], directory).exitCode == 0)
        #expect(config(["remove", "2"], directory).exitCode == 0)
        #expect(contents(file) == formatted)
    }

    @Test("pages: --page N adds to page N, N+1 makes a page, a page left empty goes")
    func pages() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("c.json", #"{"panels": [{"kind": "system", "area": "sys"}], "grid": ["sys"], "columns": [1]}"#)
        #expect(config(["add", "clock", "--page", "2", "--config", path], directory).exitCode == 0)
        #expect(contents(path) == """
            {
              "pages": [
                {
                  "title": "Page 1",
                  "grid": [
                    "sys"
                  ],
                  "columns": [1],
                  "panels": [
                    {
                      "kind": "system",
                      "area": "sys"
                    }
                  ]
                },
                {
                  "title": "Page 2",
                  "panels": [
                    {
                      "kind": "clock"
                    }
                  ]
                }
              ]
            }

            """)
        let noPage = config(["add", "clock", "--page", "4", "--config", path], directory)
        #expect(noPage == CommandOutput(exitCode: 2, standardError: "widgethost config: \(path): there is no page 4: the config has 2 (--page 3 adds one)\n"))
        #expect(config(["remove", "2", "--config", path], directory) == CommandOutput(exitCode: 0, standardOutput: "\(path): removed panel 2 (clock)\n"))
        #expect(contents(path)?.contains("Page 2") == false)
    }

    @Test("a config that is a link is written where it lives: the link stays a link")
    func symlinkedConfig() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("dotfiles-config.json", #"{"panels": [{"kind": "clock"}]}"# + "\n")
        let link = directory.path + "/config.json"
        #expect(symlink(target, link) == 0)
        try ConfigWriter.replace(link, with: Array("{\"panels\": []}\n".utf8))
        var info = stat()
        #expect(lstat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK, "the link is still a link")
        #expect(contents(target) == "{\"panels\": []}\n")
        #expect(contents(target + ".bak")?.contains("clock") == true)
    }

    @Test("a bad option exits 2 with check-config's message for the saved file, and nothing is written")
    func badOptions() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("c.json", #"{"panels": [{"kind": "system"}]}"#)
        let before = contents(path)
        let output = config(["add", "clock", "--config", path, "--option", "seconds=yes", "--option", "timeZone=Mars/Base",
                             "--option", "colour=red"], directory)
        #expect(output.exitCode == 2)
        #expect(output.standardOutput == "")
        #expect(output.standardError == """
            \(path): panels[1].options.colour: unknown option; ('clock' has timeZone, seconds, hour24, showDate)
            \(path): panels[1].options.timeZone: expected a time zone name like 'Europe/Paris', 'UTC' or 'local', got "Mars/Base"
            \(path): panels[1].options.seconds: expected true or false, got "yes"

            """)
        #expect(config(["add", "countdown", "--config", path, "--family", "large", "--option", "to=soon"], directory) == CommandOutput(
            exitCode: 2, standardError: """
            \(path): panels[1].family: 'countdown' does not support family 'large'; it supports small, medium
            \(path): panels[1].options.to: expected an ISO 8601 date and time like '2026-12-31T23:59' or '2026-12-31T23:59:00+01:00', got "soon"

            """))
        #expect(contents(path) == before)
        #expect(contents(path + ".bak") == nil)
        #expect(config(["add", "kettle", "--config", path], directory).standardError
            .hasPrefix("\(path): panels[1].kind: unknown widget kind \"kettle\""))
        #expect(config(["remove", "3", "--config", path], directory)
            == CommandOutput(exitCode: 2, standardError: "widgethost config: \(path): there is no panel 3: the config has 1\n"))
        #expect(config(["remove", "1", "--config", path], directory) == CommandOutput(exitCode: 2,
            standardError: "\(path): panels: expected at least one panel, got an empty array\n"))
    }

    @Test("a file with errors is the user's to fix: listed, exit 2, not rewritten")
    func invalidFile() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("c.json", #"{"panels": [{"kind": "clok"}]}"#)
        let output = config(["add", "system", "--config", path], directory)
        #expect(output.exitCode == 2)
        #expect(output.standardError.hasPrefix("\(path): panels[0].kind: unknown widget kind \"clok\"; did you mean 'clock'?"))
        #expect(contents(path) == #"{"panels": [{"kind": "clok"}]}"#)
    }

    @Test("bad usage exits 2 and points at the help")
    func usage() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(config(["move", "1"], directory) == CommandOutput(exitCode: 2,
            standardError: "widgethost config: expects 'add KIND' or 'remove N'; got 'move'\nsee 'widgethost config --help'\n"))
        #expect(config(["remove", "first"], directory).standardError
            == "widgethost config: remove expects a panel number from 1; got 'first'\nsee 'widgethost config --help'\n")
        #expect(config(["remove", "1", "--family", "small"], directory).exitCode == 2)
        #expect(config(["add"], directory).exitCode == 2)
        #expect(config(["add", "clock", "--page", "10"], directory).exitCode == 2)
        #expect(config(["--help"], directory).standardOutput.contains("Usage: widgethost config add KIND"))
    }

    @Test("a directory that cannot be written: a clear message, exit 1, nothing changed")
    func readOnly() throws {
        let directory = TemporaryDirectory()
        defer {
            chmod(directory.path + "/ro", 0o755)
            directory.remove()
        }
        // Root writes anywhere chmod allows nothing; sysfs refuses new files even to root.
        let readOnly = geteuid() == 0 ? "/sys" : directory.makeDirectory("ro")
        if geteuid() != 0 { chmod(readOnly, 0o555) }
        let path = readOnly + "/widgethost-config.json"
        let output = config(["add", "system", "--config", path], directory)
        #expect(output.exitCode == 1)
        #expect(output.standardError.hasPrefix("widgethost config: cannot write \(path): cannot create a file in \(readOnly): "))
        #expect(!ConfigFileReader.exists(path))
    }
}
