#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetTestSupport
@testable import WidgetHost

/// `snapshot --record FILE --duration D`: an asciicast v2 file played through simulated time.
@Suite("snapshot --record", .serialized)
@MainActor
struct SnapshotRecordingTests {
    static let config = """
    { "panels": [
        { "kind": "countdown", "family": "small", "title": "Launch", "options": { "to": "2026-12-31T00:00:00Z", "label": "New Year" } },
        { "kind": "clock", "family": "small", "title": "UTC", "options": { "timeZone": "UTC", "seconds": true } } ] }
    """
    static let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "NO_COLOR": "1"], homeDirectory: "/nonexistent")

    /// What a terminal shows after the cast's output so far: the rows it addresses, replayed
    /// (a whole screen, then rows redrawn by cursor position).
    static func screen(_ events: [String], rows: Int) -> [String] {
        var screen = Array(repeating: "", count: rows)
        var row: Int?
        for output in events {
            for part in output.components(separatedBy: "\u{1B}[").dropFirst() {
                if part.hasPrefix("2K") {  // clear the row, then its text
                    if let row { screen[row] = String(part.dropFirst(2)) }
                } else if let h = part.firstIndex(of: "H"), let semicolon = part.firstIndex(of: ";"), semicolon < h,
                          let number = Int(part[..<semicolon]), (1...rows).contains(number) {
                    row = number - 1
                    screen[number - 1] = String(part[part.index(after: h)...])
                }
            }
        }
        return screen.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    @Test("a countdown's last minute in one command: a header, a frame per changed second, times in simulated seconds, the last frame the moment after")
    func countdownLastMinute() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let config = try home.write("config.json", Self.config)
        let cast = home.path + "/launch.cast"
        let options = try #require({ () -> SnapshotOptions? in
            if case .snapshot(let options) = try? CommandLineParser.parse(
                ["snapshot", "--config", config, "--size", "60x12", "--at", "2026-12-30T23:59:00Z",
                 "--record", cast, "--duration", "65s"]) { return options }
            return nil
        }())
        let output = await SnapshotCommand.run(options, environment: Self.environment, catalog: .builtin())
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput == "recorded 66 frame(s) over 65 s to \(cast)\n")
        let lines = try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n").map(String.init)
        guard case .object(let header) = try JSONParser().parse(lines[0]) else { Issue.record("no header: \(lines[0])"); return }
        #expect(header["version"] == .integer(2) && header["width"] == .integer(60) && header["height"] == .integer(12))
        #expect(header["timestamp"] == .integer(1_798_675_140))
        var times: [Double] = []
        var outputs: [String] = []
        for line in lines.dropFirst() {
            guard case .array(let event) = try JSONParser().parse(line), event.count == 3, event[1] == .string("o"),
                  case .string(let text) = event[2] else { Issue.record("not an output event: \(line)"); continue }
            switch event[0] {
            case .integer(let seconds): times.append(Double(seconds))
            case .number(let seconds): times.append(seconds)
            default: Issue.record("no time: \(line)")
            }
            outputs.append(text)
        }
        #expect(times == (0...65).map(Double.init), "a frame each simulated second, the clock's seconds changing")
        let before = Self.screen(Array(outputs.prefix(60)), rows: 12)
        #expect(before.contains { $0.contains("00:00:59") || $0.contains("23:59:59") }, "\(before.joined(separator: "\n"))")
        let after = Self.screen(outputs, rows: 12)
        #expect(after.contains { $0.contains("done") }, "the countdown ends at midnight: \(after.joined(separator: "\n"))")
        #expect(after.contains { $0.contains("00:00:05") })
    }

    @Test("bad recordings are refused with a clear message, exit 2: no --duration, another format, too many frames, a symlink")
    func refusals() async throws {
        func usage(_ arguments: [String]) -> String? {
            do { _ = try CommandLineParser.parse(["snapshot"] + arguments); return nil } catch { return error.message }
        }
        #expect(usage(["--record", "x.cast"])?.contains("--record needs --duration") == true)
        #expect(usage(["--duration", "5s"])?.contains("--duration and --step go with --record FILE") == true)
        #expect(usage(["--record", "x.cast", "--duration", "5s", "--format", "svg"])?.contains("takes no --format svg") == true)
        #expect(usage(["--record", "x.cast", "--duration", "24h", "--step", "0.1s"])?.contains("at most 100000") == true)
        #expect(usage(["--record", "x.cast", "--duration", "2d"])?.contains("--duration expects a time up to a day") == true)
        let home = try ScratchDirectory()
        defer { home.remove() }
        let config = try home.write("config.json", Self.config)
        let link = home.path + "/link.cast"
        #expect(symlink(home.path + "/elsewhere", link) == 0)
        let output = await SnapshotCommand.run(SnapshotOptions(configPath: config, recordPath: link, recordDuration: 5),
                                               environment: Self.environment, catalog: .builtin())
        #expect(output.exitCode == 2 && output.standardError.contains("it is a symbolic link"), "\(output.standardError)")
        #expect(access(home.path + "/elsewhere", F_OK) != 0, "nothing written through the link")
    }
}
