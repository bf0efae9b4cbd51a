#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials

/// The `widgethost` command line: parses arguments and runs the chosen subcommand.
public enum WidgetHostCommand {
    public static let version = "0.1.0"

    /// Runs the command with the process arguments, writes its output and exits with its status.
    ///
    /// - Parameters:
    ///   - catalog: the widget kinds the host can build, handed to every command.
    ///   - io: the host's access to the system (environment, files, clocks, processes,
    ///     transport), built once by `main.swift` and passed down.
    public static func main(catalog: Catalog, io: HostIO) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = io.environment
        switch try? CommandLineParser.parse(arguments) {
        case .snapshot(let options):
            let extensions = ExtensionSetup.discover(catalog: catalog, explicitDirectory: options.extensionsDirectory,
                                                     environment: environment)  // as `discover(for:)` does
            // Headless commands wait for providers on the main actor: run the loop for them.
            Task { @MainActor in
                var output = await SnapshotCommand.run(options, environment: environment, catalog: extensions.catalog,
                                                       now: Date(timeIntervalSince1970: io.clock.wallNow), io: io,
                                                       extensions: extensions.runtime)
                extensions.runtime.stopAll()
                output.standardError = extensions.problemText(prefix: "widgethost: extension skipped: ") + output.standardError
                finish(output)
            }
            dispatchMain()
        case .preview(let options):
            let extensions = ExtensionSetup.discover(catalog: catalog, explicitDirectory: options.extensionsDirectory,
                                                     environment: environment)  // as `discover(for:)` does
            Task { @MainActor in
                var output = await PreviewCommand.run(options, environment: environment, catalog: extensions.catalog,
                                                      now: Date(timeIntervalSince1970: io.clock.wallNow), io: io,
                                                      extensions: extensions.runtime)
                extensions.runtime.stopAll()
                output.standardError = extensions.problemText(prefix: "widgethost: extension skipped: ") + output.standardError
                finish(output)
            }
            dispatchMain()
        case .extensionRun(let options):
            Task { @MainActor in
                // --debug lines go out as they happen (a hang shows where it hangs).
                let output = await ExtensionRunCommand.run(options, environment: environment, catalog: catalog,
                                                           now: Date(timeIntervalSince1970: io.clock.wallNow), io: io) { line in
                    write(CommandOutput(exitCode: 0, standardError: line).inert().standardError, to: 2)
                }
                finish(output)
            }
            dispatchMain()
        default:
            finish(run(arguments: arguments, io: io, catalog: catalog))
        }
    }

    private static func finish(_ output: CommandOutput) -> Never {
        let output = output.inert()
        write(output.standardOutput, to: 1)
        write(output.standardError, to: 2)
        exit(output.exitCode)
    }

    /// Parses `arguments` (without the program name) and runs the command.
    ///
    /// Returns what to print and the exit status rather than printing, so tests can call it.
    /// Usage errors exit 2 with the message and a pointer to the command's `--help`. The
    /// output is already inert (`CommandOutput.inert()`).
    public static func run(arguments: [String], environment: HostEnvironment,
                           catalog: Catalog) -> CommandOutput {
        var io = HostIO.live()
        io.environment = environment
        io.files = FileRoots.live(environment: environment)
        return run(arguments: arguments, io: io, catalog: catalog)
    }

    /// Parses `arguments` and runs the command with `io`; see `run(arguments:environment:catalog:)`.
    public static func run(arguments: [String], io: HostIO, catalog: Catalog) -> CommandOutput {
        dispatch(arguments: arguments, io: io, catalog: catalog).inert()
    }

    private static func dispatch(arguments: [String], io: HostIO, catalog: Catalog) -> CommandOutput {
        let environment = io.environment
        let command: HostCommand
        do {
            command = try CommandLineParser.parse(arguments)
        } catch {
            return CommandOutput(exitCode: 2, standardError: "\(error)\n")
        }
        // Extension kinds join the catalogue for the commands that read it (nothing launches).
        var catalog = catalog
        let extensions = ExtensionSetup.discover(for: command, catalog: catalog, environment: environment)
        if let extensions { catalog = extensions.catalog }
        let skipped = extensions?.problemText(prefix: "widgethost: extension skipped: ") ?? ""
        switch command {
        case .version:
            return CommandOutput(exitCode: 0, standardOutput: "widgethost \(version)\n")
        case .help(let subcommand, _, let kind):
            return CommandOutput(exitCode: 0, standardOutput: HelpText.text(for: subcommand, catalog: catalog, kind: kind))
        case .checkConfig(let path, _):
            var output = CheckConfigCommand.run(path: path, environment: environment, catalog: catalog)
            // A bad extension is a bad file of the user's config: listed, exit 2.
            if let problems = extensions?.problems, !problems.isEmpty {
                let configFine = output.exitCode == 0
                output.exitCode = 2
                output.standardError = skipped + output.standardError
                if configFine {
                    // "PATH: ok" beside exit 2 would read as a contradiction: say which is which.
                    let first = String(output.standardOutput.prefix { $0 != "\n" })
                    output.standardOutput = String(output.standardOutput.drop { $0 != "\n" }.dropFirst())
                    let subject = first.hasSuffix(": ok") ? "\(first.dropLast(4)): the config itself is fine" : first
                    output.standardError += "\(subject); \(problems.count) problem(s) in extension manifests (above): "
                        + "those extensions are skipped, so their kinds are unknown until fixed\n"
                }
            }
            return output
        case .widgets:
            var output = WidgetsCommand.run(catalog: catalog)
            output.standardError = skipped + output.standardError
            return output
        case .preview(let options):
            let validator = catalog.validator()
            let checked = validator.previewPanel(kind: options.kind, family: options.family,
                                                 options: options.options.map { ($0.name, $0.value) })
            if !checked.errors.isEmpty {
                let lines = ConfigDiagnostic.lines(checked.errors, prefix: "widgethost preview: ")
                return CommandOutput(exitCode: 2, standardError: lines)
            }
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: run it from the command line\n")
        case .snapshot:
            return CommandOutput(exitCode: 1, standardError: "widgethost snapshot: run it from the command line\n")
        case .extensionRun:
            return CommandOutput(exitCode: 1, standardError: "widgethost extension run: run it from the command line\n")
        case .themes:
            return ThemesCommand.run(environment: environment, color: isatty(1) != 0)
        case .sessions(let options):
            return SessionsCommand.run(options, environment: environment)
        case .dashboard(let options):
            return MainActor.assumeIsolated {
                let runner = DashboardRunner(options: options, io: io, catalog: catalog, center: .shared,
                                             extensions: extensions?.runtime ?? .empty, extensionProblems: extensions?.problems ?? [])
                return runner.run()
            }
        }
    }

    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
