import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A damaged or hostile message log: every problem is a `MessageLogError` naming the line,
/// never a crash; `snapshot --replay` says it and exits 2.
@Suite("Message log: reading bad files")
@MainActor
struct MessageLogReadingTests {
    private let coding = MessageLogCoding(catalog: .builtin())
    private static let header = #"{"format":"widgethost-messages","version":1,"start":817898208.5,"columns":100,"rows":30,"config":{},"environment":{}}"#

    private func error(_ text: String) -> String? {
        do {
            _ = try MessageLogFile.parse(Array(text.utf8), path: "run.jsonl", coding: coding)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("each problem is said with its line: empty, not JSON, another format or version, a bad size, an unknown message, key, codec or reason, a missing field, a NaN date, a line cut by a crash")
    func errorsNameTheLine() {
        let key = #"{"date":817898209,"type":"key","key":"tab"}"#
        #expect(error("") == "run.jsonl: empty: no header line")
        #expect(error("hello\n")?.hasPrefix("run.jsonl: line 1: ") == true)
        #expect(error(#"{"format":"asciicast","version":1}"# + "\n") == "run.jsonl: line 1: 'start' is missing")
        #expect(error(Self.header.replacing("widgethost-messages", with: "other") + "\n")
                == "run.jsonl: line 1: not a widgethost message log (format 'other')")
        #expect(error(Self.header.replacing(#""version":1"#, with: #""version":2"#) + "\n")
                == "run.jsonl: line 1: format version 2 is not one this widgethost reads (1)")
        #expect(error(Self.header.replacing(#""rows":30"#, with: #""rows":0"#) + "\n")
                == "run.jsonl: line 1: size 100x0 is outside 1…1000")
        #expect(error(Self.header.replacing(#""environment":{}"#, with: #""environment":{"LD_PRELOAD":"x"}"#) + "\n")
                == "run.jsonl: line 1: environment variable 'LD_PRELOAD' is not one a log records")
        func third(_ line: String) -> String? { error([Self.header, key, line].joined(separator: "\n") + "\n") }
        #expect(third(#"{"date":817898210,"type":"explode"}"#) == "run.jsonl: line 3: unknown message type 'explode' at type")
        #expect(third(#"{"date":817898210,"type":"key","key":"char:\u0007"}"#) == "run.jsonl: line 3: unknown key 'char:\u{7}' at key")
        #expect(third(#"{"date":817898210,"type":"key","key":"f:99999999999999999999"}"#)
                == "run.jsonl: line 3: unknown key 'f:99999999999999999999' at key")
        #expect(third(#"{"type":"quit"}"#) == "run.jsonl: line 3: 'date' is missing")
        #expect(third(#"{"date":"NaN","type":"quit"}"#)?.hasPrefix("run.jsonl: line 3: ") == true)
        #expect(third(#"{"date":817898210,"type":"providerAnswered","instance":1,"generation":1,"reason":"initial","policy":"atEnd","codec":"bogus","entries":[{"date":1}]}"#)
                == "run.jsonl: line 3: no widget kind reads entries of 'bogus' at codec")
        #expect(third(#"{"date":817898210,"type":"providerAnswered","instance":1,"generation":1,"reason":"because","policy":"atEnd","entries":[]}"#)
                == "run.jsonl: line 3: unknown reason 'because' at reason")
        #expect(third(#"{"date":817898210,"type":"providerAnswered","instance":1,"generation":1,"reason":"initial","policy":"atEnd","codec":"clock","entries":[{"date":1}]}"#)
                == "run.jsonl: line 3: 'time' is missing at entries.[0]")
        #expect(third(#"{"date":817898210,"type":"widgetsFound","kinds":["clock","nope"]}"#)
                == "run.jsonl: line 3: unknown widget kind 'nope' at kinds")
        #expect(third(#"{"date":817898210,"type":"resized","columns":100000,"rows":2}"#)
                == "run.jsonl: line 3: size 100000x2 out of bounds at columns")
        #expect(third(#"{"date":817898210,"type":"unrecorded","reason":"no codec for entries of type Probe"}"#)
                == "run.jsonl: line 3: a message the recorder could not write: no codec for entries of type Probe at type")
        // A crash in the middle of a write leaves half a line.
        #expect(third(#"{"date":817898210,"type":"provid"#)?.hasPrefix("run.jsonl: line 3: ") == true)
        #expect(error([Self.header, key, "", key].joined(separator: "\n")) == nil, "a blank line is skipped")
    }

    @Test("a line past the limit, and nesting 100,000 deep, are errors, not a crash or a stack overflow")
    func bounded() {
        let long = String(repeating: " ", count: MessageLogFile.maximumLineBytes + 1)
        #expect(error(Self.header + "\n" + long + "\n") == "run.jsonl: line 2: longer than the limit of \(MessageLogFile.maximumLineBytes) bytes")
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(error(Self.header + "\n" + deep + "\n")?.hasPrefix("run.jsonl: line 2: ") == true)
        let deepEntry = #"{"date":817898210,"type":"providerAnswered","instance":1,"generation":1,"reason":"initial","policy":"atEnd","codec":"extension","entries":[{"date":1,"view":"#
        #expect(error(Self.header + "\n" + deepEntry + deep + "}]}\n")?.hasPrefix("run.jsonl: line 2: ") == true)
    }

    @Test("snapshot --replay of a bad file exits 2 with the file, the line and the problem; of a missing file, says so")
    func snapshotSaysWhy() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/run.jsonl"
        #expect(FileManager.default.createFile(atPath: path, contents: Data((Self.header + "\n" + #"{"date":1,"type":"nope"}"# + "\n").utf8)))
        let environment = HostEnvironment(variables: [:], homeDirectory: directory.path)
        let bad = await SnapshotCommand.run(SnapshotOptions(replayPath: path), environment: environment, catalog: .builtin())
        #expect(bad == CommandOutput(exitCode: 2, standardError: "widgethost snapshot: --replay \(path): line 2: unknown message type 'nope' at type\n"))
        let missing = await SnapshotCommand.run(SnapshotOptions(replayPath: path + ".gone"), environment: environment, catalog: .builtin())
        #expect(missing.exitCode == 2 && missing.standardError.hasPrefix("widgethost snapshot: --replay \(path).gone: cannot read: "), "\(missing)")
    }

    @Test("--replay FILE parses; it refuses what the recording decides (config, theme, size, waiting, recording); --describe goes with it")
    func commandLine() throws {
        #expect(try CommandLineParser.parse(["snapshot", "--replay", "run.jsonl", "--at", "+90s", "--format", "svg"])
                == .snapshot(SnapshotOptions(at: .relative(seconds: 90), format: .svg, replayPath: "run.jsonl")))
        #expect(try CommandLineParser.parse(["snapshot", "--replay", "run.jsonl", "--describe"])
                == .snapshot(SnapshotOptions(replayPath: "run.jsonl", describe: true)))
        for extra in [["--config", "c.json"], ["--theme", "mono"], ["--size", "80x24"], ["--wait", "1"], ["--state-dir", "s"],
                      ["--record", "x.cast", "--duration", "1m"]] {
            #expect(throws: UsageError.self) { try CommandLineParser.parse(["snapshot", "--replay", "run.jsonl"] + extra) }
        }
        do {
            _ = try CommandLineParser.parse(["snapshot", "--replay", "run.jsonl", "--size", "80x24"])
        } catch {
            #expect(error.message == "--replay takes the config, theme and size from the recording; it takes no --size")
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["snapshot", "--describe"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["snapshot", "--replay", "r", "--describe", "--at", "+1s"]) }
    }
}

extension MessageLogReadingTests {
    @Test("values a provider never makes but a file can say are brought in bounds before a view draws them: a replay of the default dashboard with a leaderboard answer of -3 rows and a hero at 500% health draws, and a config the validator refuses is an error")
    func hostileValuesAreBounded() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let hero = #"{"name":"Octo","avatar":"🐙","heroType":"Octopus","level":43,"exp":86488,"health":5,"healthRecoveryRatePerHour":0.1}"#
        let good = #"{"name":"Cake","avatar":"🎂","heroType":"Birthday","level":15,"exp":3121,"health":0.5,"healthRecoveryRatePerHour":0.1}"#
        let entry = #"{"date":817898208.6,"maxRows":-3,"skipped":-1,"isFetching":false,"board":{"updated":817898208,"heroes":["# + hero + "," + good + "]}}"
        let heroEntry = #"{"date":817898208.6,"name":"Octo","rank":-2,"hero":"# + hero + "}"
        // Every instance of the default dashboard gets the answer its kind reads (the others are dropped).
        var lines = [Self.header]
        for instance in 1...6 {
            lines.append(#"{"date":817898208.7,"type":"providerAnswered","instance":\#(instance),"generation":1,"reason":"initial","policy":"never","codec":"leaderboard","entries":["# + entry + "]}")
            lines.append(#"{"date":817898208.7,"type":"providerAnswered","instance":\#(instance),"generation":1,"reason":"initial","policy":"never","codec":"hero","entries":["# + heroEntry + "]}")
        }
        let read = try MessageLogFile.parse(Array((lines.joined(separator: "\n") + "\n").utf8), path: "run.jsonl", coding: coding)
        guard case .providerAnswered(let answer) = read.records[0].message, case .success(let timeline) = answer.result,
              let board = timeline.entries.first as? LeaderboardEntry,
              case .providerAnswered(let heroAnswer) = read.records[1].message, case .success(let heroTimeline) = heroAnswer.result,
              let heroRead = heroTimeline.entries.first as? HeroEntry else {
            Issue.record("not read: \(read.records)")
            return
        }
        #expect(board.maxRows == 1 && board.skipped == 0 && board.board?.heroes.map(\.name) == ["Cake"])
        #expect(heroRead.hero == nil && heroRead.rank == 0)
        let path = directory.path + "/run.jsonl"
        #expect(FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8)))
        let output = await SnapshotCommand.run(SnapshotOptions(replayPath: path),
                                               environment: HostEnvironment(variables: ["LANG": "C.UTF-8", "TZ": "UTC"], homeDirectory: directory.path),
                                               catalog: .builtin())
        #expect(output.exitCode == 0 && output.standardOutput.contains("Cake"), "\(output)")

        let config = #"{"date":817898210,"type":"configLoaded","config":"{\"minimumReloadSeconds\":-5,\"panels\":[]}","theme":{"name":"x","colors":{},"attributes":{}}}"#
        #expect(error(Self.header + "\n" + config + "\n")?.hasPrefix("run.jsonl: line 2: the config: ") == true,
                "\(error(Self.header + "\n" + config + "\n") ?? "no error")")
    }
}
