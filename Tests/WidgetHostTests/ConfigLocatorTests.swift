import Testing
@testable import WidgetHost

private let home = "/home/ranger"

private func locate(_ explicit: String? = nil, _ variables: [String: String] = [:], existing: Set<String>,
                    home: String? = home) throws(ConfigLoadError) -> ConfigSource {
    try ConfigLocator.locateConfig(explicitPath: explicit,
                                   environment: HostEnvironment(variables: variables, homeDirectory: home),
                                   fileExists: { existing.contains($0) })
}

@Suite("Config lookup order")
struct ConfigLocatorTests {
    @Test("--config wins over the environment and XDG")
    func explicitPathFirst() throws {
        let source = try locate("/etc/cfg.json", ["WIDGETHOST_CONFIG": "/env.json", "XDG_CONFIG_HOME": "/xdg"],
                                existing: ["/etc/cfg.json", "/env.json", "/xdg/widgethost/config.json"])
        #expect(source == .file("/etc/cfg.json"))
    }

    @Test("a --config path that does not exist is an error")
    func explicitMissing() {
        #expect(throws: ConfigLoadError.notFound(path: "/nope.json", namedBy: "--config")) {
            try locate("/nope.json", existing: ["/home/ranger/.config/widgethost/config.json"])
        }
        #expect(ConfigLoadError.notFound(path: "/nope.json", namedBy: "--config").description
                == "/nope.json: no such file (named by --config)")
    }

    @Test("$WIDGETHOST_CONFIG comes next, and must exist when set")
    func environmentVariable() throws {
        #expect(try locate(nil, ["WIDGETHOST_CONFIG": "/env.json", "XDG_CONFIG_HOME": "/xdg"],
                           existing: ["/env.json", "/xdg/widgethost/config.json"]) == .file("/env.json"))
        #expect(throws: ConfigLoadError.notFound(path: "/env.json", namedBy: "$WIDGETHOST_CONFIG")) {
            try locate(nil, ["WIDGETHOST_CONFIG": "/env.json"], existing: [])
        }
        #expect(try locate(nil, ["WIDGETHOST_CONFIG": ""], existing: []) == .defaultDashboard(searched: ["/home/ranger/.config/widgethost/config.json"]))
    }

    @Test("then $XDG_CONFIG_HOME, then ~/.config; a missing XDG file means the default dashboard")
    func xdgThenHome() throws {
        #expect(try locate(nil, ["XDG_CONFIG_HOME": "/xdg/"], existing: ["/xdg/widgethost/config.json"])
                == .file("/xdg/widgethost/config.json"))
        #expect(try locate(nil, ["XDG_CONFIG_HOME": "/xdg"], existing: []) == .defaultDashboard(searched: ["/xdg/widgethost/config.json"]))
        #expect(try locate(nil, [:], existing: ["/home/ranger/.config/widgethost/config.json"])
                == .file("/home/ranger/.config/widgethost/config.json"))
        #expect(try locate(nil, [:], existing: [], home: nil) == .defaultDashboard(searched: []))
    }

    @Test("relative or empty XDG variables are ignored, as the XDG spec says")
    func relativeXDGIgnored() throws {
        #expect(try locate(nil, ["XDG_CONFIG_HOME": "relative/dir"], existing: ["relative/dir/widgethost/config.json"])
                == .defaultDashboard(searched: ["/home/ranger/.config/widgethost/config.json"]))
        let environment = HostEnvironment(variables: ["XDG_STATE_HOME": ""], homeDirectory: home)
        #expect(try ConfigLocator.stateDirectory(explicitPath: nil, environment: environment) == "/home/ranger/.local/state/widgethost")
    }

    @Test("state directory: --state-dir, else $XDG_STATE_HOME/widgethost, else ~/.local/state/widgethost")
    func stateDirectory() throws {
        let full = HostEnvironment(variables: ["XDG_STATE_HOME": "/state"], homeDirectory: home)
        #expect(try ConfigLocator.stateDirectory(explicitPath: "/mine", environment: full) == "/mine")
        #expect(try ConfigLocator.stateDirectory(explicitPath: nil, environment: full) == "/state/widgethost")
        #expect(try ConfigLocator.stateDirectory(explicitPath: nil, environment: HostEnvironment(homeDirectory: home))
                == "/home/ranger/.local/state/widgethost")
        #expect(throws: ConfigLoadError.noStateDirectory) {
            try ConfigLocator.stateDirectory(explicitPath: nil, environment: HostEnvironment())
        }
    }

    @Test("the file reader refuses directories, missing files and files over the limit")
    func fileReader() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let small = directory.write("small.json", "[1]")
        let big = directory.write("big.json", [UInt8](repeating: 0x20, count: 2_000))
        #expect(try ConfigFileReader.read(small, limit: 100) == Array("[1]".utf8))
        #expect(throws: ConfigLoadError.tooLarge(path: big, limit: 1_000)) { try ConfigFileReader.read(big, limit: 1_000) }
        #expect(throws: ConfigLoadError.notAFile(path: directory.path)) { try ConfigFileReader.read(directory.path) }
        #expect(throws: ConfigLoadError.unreadable(path: directory.path + "/none", reason: "No such file or directory")) {
            try ConfigFileReader.read(directory.path + "/none")
        }
        #expect(ConfigFileReader.exists(small))
        #expect(!ConfigFileReader.exists(directory.path + "/none"))
    }
}
