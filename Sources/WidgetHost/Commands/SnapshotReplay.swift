#if canImport(Glibc)
import Glibc
#endif
import Extensions
import FoundationEssentials
import TerminalUI

/// `widgethost snapshot --replay FILE [--at TIME] [--format …]`: the frame a run recorded with
/// `--record-messages FILE` showed at a moment of it (default its last message), drawn by a
/// headless dashboard built as the run's was (the header: config, theme, size, start time,
/// zone and locale) and fed the recorded messages — keys, time, answers — with nothing
/// fetched or waited for. `--describe` lists the messages instead, one line each.
@MainActor
enum SnapshotReplay {
    static func run(_ options: SnapshotOptions, path: String, environment: HostEnvironment, catalog: Catalog,
                    io: HostIO? = nil, extensions: ExtensionRuntime? = nil) -> CommandOutput {
        let contents: MessageLogFile.Contents
        do throws(MessageLogError) {
            contents = try MessageLogFile.read(path: path, coding: MessageLogCoding(catalog: catalog))
        } catch {
            return CommandOutput(exitCode: 2, standardError: "widgethost snapshot: --replay \(error)\n")
        }
        let header = contents.header
        let note = contents.wasStopped ? "widgethost snapshot: the recording stopped at its size limit; it ends there\n" : ""
        if options.describe {
            let lines = contents.records.map { HostLog.line(MessageLog.time($0, start: header.start) + "\t", MessageLog.describe($0.message)) }
            return CommandOutput(exitCode: 0, standardOutput: String(decoding: lines.joined(), as: UTF8.self), standardError: note)
        }
        let setup = replayEnvironment(header, environment)
        var configPath = header.config.path
        var temporary: String?
        if !header.config.isDefaultDashboard, currentText(of: header.config.path) != header.config.text {
            // The file changed (or went) since: the recorded text, in a file of our own.
            guard let written = writeTemporary(header.config.text ?? "", directory: io?.files.temporary ?? "/tmp") else {
                return CommandOutput(exitCode: 1, standardError: "widgethost snapshot: cannot write a temporary file for the recorded config\n")
            }
            temporary = written
            configPath = written
        }
        defer { if let temporary { unlink(temporary) } }
        let dashboard: HeadlessDashboard
        switch HeadlessDashboard.open(catalog: catalog, configPath: configPath, theme: header.theme, size: header.size,
                                      now: header.start, environment: setup, io: io, extensions: extensions) {
        case .success(let opened): dashboard = opened
        case .failure(let output):
            return CommandOutput(exitCode: output.exitCode, standardError: "widgethost snapshot: --replay \(path): the recorded config: "
                                    + output.standardError)
        }
        defer { dashboard.close() }
        let end = options.at?.date(now: header.start) ?? contents.records.last?.date ?? header.start
        dashboard.replay(contents.records.prefix { $0.date <= end })
        dashboard.clock.set(to: end)
        let noColor = !(setup.variables["NO_COLOR"] ?? "").isEmpty
        var output = SnapshotCommand.frameOutput(dashboard.render(), theme: dashboard.theme, size: header.size,
                                                 format: options.format, noColor: noColor)
        output.standardError = note
        return output
    }

    /// This command's environment with the recording's zone, locale and NO_COLOR in place of
    /// its own; for the default dashboard nothing is left that would find a config file.
    static func replayEnvironment(_ header: MessageLogHeader, _ environment: HostEnvironment) -> HostEnvironment {
        var replay = environment
        for name in MessageLogHeader.frameVariables { replay.variables[name] = header.environment[name] }
        if header.config.isDefaultDashboard {
            replay.variables["WIDGETHOST_CONFIG"] = nil
            replay.variables["XDG_CONFIG_HOME"] = nil
            replay.homeDirectory = nil
        }
        return replay
    }

    private static func currentText(of path: String?) -> String? {
        guard let path, let bytes = try? ConfigFileReader.read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` in a new file (mode 0600) under `directory`; its path, or nil.
    private static func writeTemporary(_ text: String, directory: String) -> String? {
        var template = Array("\(directory)/widgethost-replay-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard OutputFile.write(fd, Array(text.utf8)) else {
            unlink(path)
            return nil
        }
        return path
    }
}
