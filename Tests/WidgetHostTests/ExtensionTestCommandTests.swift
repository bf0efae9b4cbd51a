#if canImport(Glibc)
import Glibc
#endif
import Extensions
import FoundationEssentials
import HostProcesses
import Testing
@testable import WidgetHost
import WidgetTestSupport

/// `widgethost extension test` and `extension new`, run in-process as `main` runs them.
@MainActor
private final class Workbench {
    static let repository: String = {
        let here = #filePath
        var path = String(here[..<here.lastIndex(of: "/")!])
        for _ in 0..<2 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()
    static let fixtures = repository + "/Tests/ExtensionsTests/Fixtures"
    static let examples = repository + "/Examples/extensions"

    let scratch: ScratchDirectory
    let spawner = ProcessSpawner()
    var environment: HostEnvironment {
        HostEnvironment(variables: ["XDG_CONFIG_HOME": scratch.path + "/config", "HOME": scratch.path, "TZ": "UTC", "LANG": "C.UTF-8"])
    }

    init() throws {
        scratch = try ScratchDirectory()
        mkdir(scratch.path + "/config", 0o755)
    }

    /// `extension test ARGUMENTS`, parsed as the command line is.
    func test(_ arguments: [String]) async -> CommandOutput {
        guard case .extensionTest(let options)? = try? CommandLineParser.parse(["extension", "test"] + arguments) else {
            return CommandOutput(exitCode: 99)
        }
        var io = HostIO.live()
        io.environment = environment
        io.processes = spawner
        io.files = FileRoots(state: nil, temporary: "/tmp")
        io.widgetEnvironment = ["PATH": "/usr/bin:/bin"]
        return await ExtensionTestCommand.run(options, environment: environment, io: io).inert()
    }

    func new(_ arguments: [String]) -> CommandOutput {
        WidgetHostCommand.run(arguments: ["extension", "new"] + arguments, environment: environment, catalog: .builtin())
    }

    /// An extension folder `NAME` in the scratch directory running a fixture script.
    func addFixture(_ name: String, script: String, widgets: String) throws -> String {
        mkdir(scratch.path + "/" + name, 0o755)
        _ = try scratch.write("\(name)/extension.json", """
            {"name": "\(name)", "exec": ["/bin/sh", "\(Self.fixtures)/\(script)"], "protocol": 1,
             "widgets": \(widgets), "limits": {"requestSeconds": 3}}
            """)
        return scratch.path + "/" + name
    }

    func close() {
        for _ in 0..<100 where spawner.runningCount > 0 {
            _ = spawner.reapExited()
            usleep(10_000)
        }
        scratch.remove()
    }
}

/// The FAIL line of check `name` and the rule line under it.
private func failure(_ output: CommandOutput, _ name: String) -> (line: String, rule: String)? {
    let lines = output.standardOutput.split(separator: "\n").map(String.init)
    guard let index = lines.firstIndex(where: { $0.hasPrefix("FAIL  \(name):") }), index + 1 < lines.count else { return nil }
    return (lines[index], lines[index + 1])
}

@Suite("extension test", .serialized, .onOwnThreads(.awaitingExtensions))
@MainActor
struct ExtensionTestCommandTests {
    @Test("every example in Examples/extensions passes every check", arguments: ["hourglass", "rangers", "sitewatch", "daylight"])
    func examplesPass(name: String) async throws {
        let bench = try Workbench()
        defer { bench.close() }
        if name == "daylight" {
            // The Swift SDK's example runs its build: made here as a user would (once; after
            // that swift build only checks it is current), so `swift test` alone needs nothing first.
            let built = try Subprocess.run(["swift", "build", "--package-path", Workbench.examples + "/daylight"],
                                           timeout: TestTimeScale.scaled(.seconds(600)))
            try #require(built.status == 0, "\(built.standardOutput)\(built.standardError)")
        }
        let output = await bench.test([Workbench.examples + "/" + name])
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(!output.standardOutput.contains("FAIL"), "\(output.standardOutput)")
        for check in ["initialize", "snapshot", "placeholder", "unknown method", "idle exit"] {
            #expect(output.standardOutput.contains("PASS  \(check)"), "\(check): \(output.standardOutput)")
        }
        if name == "sitewatch" {
            #expect(output.standardOutput.contains("PASS  options status 'url': 2 items, the first \"http://127.0.0.1:8787/healthz\""),
                    "its dynamic option: \(output.standardOutput)")
        }
    }

    @Test("a dynamic option's options answer is checked: its items' shape, the rule named when wrong; no options request without one")
    func optionsAnswer() async throws {
        let bench = try Workbench()
        defer { bench.close() }
        func folder(_ name: String, session: String, dynamic: Bool = true) throws -> String {
            mkdir(bench.scratch.path + "/" + name, 0o755)
            _ = try bench.scratch.write("\(name)/extension.json", """
                {"name": "\(name)", "exec": ["python3", "\(Workbench.fixtures)/options.py"], "protocol": 1,
                 "widgets": [{"kind": "pick", "displayName": "Pick",
                              "options": {"site": {"type": "string", "default": "alpha.example", "doc": "d", "dynamic": \(dynamic)},
                                          "session": {"type": "string", "default": "\(session)", "doc": "d"}}}],
                 "limits": {"requestSeconds": 3}}
                """)
            return bench.scratch.path + "/" + name
        }
        let good = await bench.test([try folder("good", session: "s1")])
        #expect(good.standardOutput.contains("PASS  options pick 'site': 3 items, the first \"ALPHA.EXAMPLE\""), "\(good.standardOutput)")
        let wrong = await bench.test([try folder("wrong", session: "bad")])
        #expect(wrong.exitCode == 1)
        let check = failure(wrong, "options pick 'site'")
        #expect(check?.line.contains("items[0].value: expected a non-empty printable string") == true, "\(wrong.standardOutput)")
        #expect(check?.rule == "      breaks docs/extensions.md, \(ConformanceRule.options)")
        let plain = await bench.test([try folder("plain", session: "bad", dynamic: false)])
        #expect(!plain.standardOutput.contains("options pick"), "\(plain.standardOutput)")
    }

    @Test("the examples folder holds exactly the examples the test above runs")
    func examplesListed() {
        var names: [String] = []
        if let directory = opendir(Workbench.examples) {
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                    pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if access(Workbench.examples + "/" + name + "/extension.json", F_OK) == 0 { names.append(name) }
            }
            closedir(directory)
        }
        #expect(names.sorted() == ["daylight", "hourglass", "rangers", "sitewatch"])
    }

    @Test("an extension that breaks the rules fails each check with the rule it broke, exit 1")
    func brokenFixture() async throws {
        let bench = try Workbench()
        defer { bench.close() }
        let folder = try bench.addFixture("broken", script: "breaks-rules.sh", widgets: """
            [{"kind": "panel", "displayName": "Panel", "families": ["small", "medium"], "actions": [{"key": "u", "title": "up"}]}]
            """)
        let output = await bench.test([folder])
        #expect(output.exitCode == 1, "\(output.standardOutput)")
        #expect(output.standardOutput.contains("PASS  initialize: answered {\"protocol\": 1}"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("PASS  timeline panel small 22x7: 1 entry, policy never"))
        let view = failure(output, "timeline panel small 1x1")
        #expect(view?.line.contains("entries[0].view") == true, "\(output.standardOutput)")
        #expect(view?.rule == "      breaks docs/extensions.md, \(ConformanceRule.timeline)")
        #expect(failure(output, "snapshot panel")?.rule.hasSuffix(ConformanceRule.snapshot) == true, "\(output.standardOutput)")
        let action = failure(output, "action panel 'u'")
        #expect(action?.line.contains(#"answered "done", not {}"#) == true, "\(output.standardOutput)")
        #expect(action?.rule.hasSuffix(ConformanceRule.action) == true)
        let unknown = failure(output, "unknown method '\(ExtensionConformance.unknownMethod)'")
        #expect(unknown?.line.contains("answered a result") == true)
        #expect(unknown?.rule.hasSuffix(ConformanceRule.unknownMethod) == true)
        let idle = failure(output, "idle exit")
        #expect(idle?.line.contains("still running 2 s after shutdown") == true, "\(output.standardOutput)")
        #expect(idle?.rule.hasSuffix(ConformanceRule.shutdown) == true)
        #expect(output.standardOutput.hasSuffix("5 failed\n"), "\(output.standardOutput)")
    }

    @Test("a wrong initialize answer fails initialize (and stops there: nothing else can run)")
    func wrongProtocol() async throws {
        let bench = try Workbench()
        defer { bench.close() }
        let folder = try bench.addFixture("twoish", script: "wrong-protocol.sh",
                                          widgets: #"[{"kind": "panel", "displayName": "Panel"}]"#)
        let output = await bench.test([folder])
        #expect(output.exitCode == 1)
        let check = failure(output, "initialize")
        #expect(check?.line.contains("answered initialize without a protocol this host speaks") == true, "\(output.standardOutput)")
        #expect(check?.rule.hasSuffix(ConformanceRule.initialize) == true)
    }

    @Test("a refused manifest is one failed check naming the key path, exit 1; no such extension is exit 2")
    func refusedAndMissing() async throws {
        let bench = try Workbench()
        defer { bench.close() }
        let folder = try bench.addFixture("badkind", script: "answers.sh", widgets: #"[{"kind": "panel", "displayName": "Panel", "families": ["tiny"]}]"#)
        let refused = await bench.test([folder])
        #expect(refused.exitCode == 1)
        #expect(failure(refused, "manifest")?.line.contains("widgets[0].families") == true, "\(refused.standardOutput)")
        #expect(failure(refused, "manifest")?.rule.hasSuffix(ConformanceRule.manifest) == true)
        let missing = await bench.test(["nosuch"])
        #expect(missing.exitCode == 2)
        #expect(missing.standardError.hasPrefix("widgethost extension test: no extension named 'nosuch'"), "\(missing.standardError)")
    }
}

@Suite("extension new", .serialized, .onOwnThreads(.awaitingExtensions))
@MainActor
struct ExtensionNewCommandTests {
    @Test("writes a folder that passes extension test as written", arguments: [ExtensionNewOptions.Language.python, .sh])
    func scaffoldPasses(language: ExtensionNewOptions.Language) async throws {
        let bench = try Workbench()
        defer { bench.close() }
        let directory = bench.scratch.path + "/config/widgethost/extensions"
        let written = bench.new(["greeter", "--language", language.rawValue, "--extensions-dir", directory])
        #expect(written.exitCode == 0, "\(written.standardError)")
        #expect(written.standardOutput.contains("widgethost extension test greeter --extensions-dir \(directory)"))
        // Found by NAME, as every command finds it (here in the XDG folder).
        let output = await bench.test(["greeter"])
        #expect(output.exitCode == 0, "\(output.standardOutput)")
        #expect(!output.standardOutput.contains("FAIL"))
        #expect(output.standardOutput.contains("PASS  action hello 'c'"), "\(output.standardOutput)")
    }

    @Test("a Swift extension: written against the SDK, built with swift build, passes extension test")
    func swiftScaffoldPasses() async throws {
        let bench = try Workbench()
        defer { bench.close() }
        let directory = bench.scratch.path + "/ext"
        let written = bench.new(["swifty", "--language", "swift", "--extensions-dir", directory])
        #expect(written.exitCode == 0, "\(written.standardError)")
        #expect(written.standardOutput.contains("build it:  swift build --package-path \(directory)/swifty"))
        let built = try Subprocess.run(["swift", "build", "--package-path", directory + "/swifty"], timeout: TestTimeScale.scaled(.seconds(600)))
        try #require(built.status == 0, "\(built.standardOutput)\(built.standardError)")
        let output = await bench.test([directory + "/swifty"])
        #expect(output.exitCode == 0, "\(output.standardOutput)")
        #expect(output.standardOutput.contains("PASS  action hello 'c'"), "\(output.standardOutput)")
    }

    @Test("never overwrites: an existing NAME is refused and left as it was")
    func refusesOverwrite() throws {
        let bench = try Workbench()
        defer { bench.close() }
        let directory = bench.scratch.path + "/ext"
        #expect(bench.new(["mine", "--extensions-dir", directory]).exitCode == 0)
        _ = try bench.scratch.write("ext/mine/mine.py", "# my work\n")
        let again = bench.new(["mine", "--language", "sh", "--extensions-dir", directory])
        #expect(again.exitCode == 1)
        #expect(again.standardError == "widgethost extension new: \(directory)/mine already exists; nothing was written (choose another NAME or remove it)\n")
        #expect(access(directory + "/mine/mine.sh", F_OK) != 0)
    }

    @Test("bad usage is exit 2 with the reason")
    func usage() throws {
        let bench = try Workbench()
        defer { bench.close() }
        #expect(bench.new(["a/b"]).standardError.contains("'a/b' is not a valid name"))
        let language = bench.new(["x", "--language", "pyhton"])
        #expect(language.exitCode == 2)
        #expect(language.standardError.contains("--language expects one of python, sh, swift; got 'pyhton'; did you mean 'python'?"))
        #expect(bench.new([]).exitCode == 2)
    }
}
