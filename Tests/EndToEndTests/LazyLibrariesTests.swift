import Testing
import WidgetTestSupport

/// libcurl and libmosquitto are opened at their first call (CLazyLibraries), so the commands
/// that never fetch start without them and the ~30 libraries they pull in (issue 27: the
/// start-up of `widgethost activity update` from a loop).
///
/// Each test puts a `libcurl.so.4` and a `libmosquitto.so.1` that are not libraries first on
/// `LD_LIBRARY_PATH`: a binary linked to them the usual way does not start at all.
@Suite("libcurl and libmosquitto opened on first use", .serialized, .onOwnThreads(.blockingCalls))
struct LazyLibrariesTests {
    private struct Run {
        let home: ScratchDirectory
        let environment: [String: String]

        init() throws {
            home = try ScratchDirectory()
            try home.write("libcurl.so.4", "not a library\n")
            try home.write("libmosquitto.so.1", "not a library\n")
            environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: [
                "LD_LIBRARY_PATH": home.path, "XDG_RUNTIME_DIR": home.path])
        }

        func callAsFunction(_ arguments: [String]) throws -> Subprocess.Result {
            try Subprocess.run([try BuiltProducts.executable("widgethost")] + arguments, environment: environment,
                               timeout: TestTimeScale.scaled(.seconds(30)))
        }
    }

    @Test("commands that never fetch run with libcurl and libmosquitto unloadable, exactly as with them",
          arguments: [
              (["--version"], Int32(0), "widgethost "),
              (["--help"], 0, "Usage:"),
              (["activity", "list"], 0, ""),
              (["events"], 0, ""),
              (["activity", "update", "build", "--progress", "0.5"], 1, "no dashboard"),
              (["reload", "--all"], 1, "no dashboard"),
          ])
    func commandsStartWithout(arguments: [String], status: Int32, says: String) throws {
        let run = try Run()
        defer { run.home.remove() }
        let result = try run(arguments)
        let output = result.standardOutput + result.standardError
        #expect(result.status == status, "\(arguments): \(output)")
        #expect(!output.contains("shared librar") && !output.contains("libcurl") && !output.contains("libmosquitto"),
                "\(arguments): \(output)")
        #expect(says.isEmpty || output.contains(says), "\(arguments): \(output)")
    }

    @Test("check-config of a dashboard with http-json and mqtt panels needs neither library")
    func checkConfig() throws {
        let run = try Run()
        defer { run.home.remove() }
        let config = try run.home.write("config.json", """
            {"panels": [
              {"kind": "http-json", "options": {"url": "http://127.0.0.1:9/x", "fields": [{"label": "a", "pointer": "/a"}]}},
              {"kind": "mqtt", "options": {"broker": "mqtt://127.0.0.1:9", "topics": ["a/#"]}}
            ]}
            """)
        let result = try run(["check-config", config])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    }

    @Test("a fetch with libcurl unloadable says so: the library, why, and what to install")
    func fetchSaysWhy() throws {
        let run = try Run()
        defer { run.home.remove() }
        let config = try run.home.write("config.json", """
            {"panels": [{"kind": "http-json", "options": {"url": "http://127.0.0.1:9/x", "fields": [{"label": "a", "pointer": "/a"}]}}]}
            """)
        let result = try run(["snapshot", "--config", config, "--size", "80x12", "--wait", "1"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("background sessions are off: libcurl is not available (cannot open libcurl.so.4")
                    && result.standardError.contains("install libcurl4"), "\(result.standardError)")
    }
}
