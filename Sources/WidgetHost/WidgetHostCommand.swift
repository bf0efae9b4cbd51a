#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials
import HostProcesses
import Widgets

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
        // Orphaned descendants (an extension's `setsid` child) come to the host, which ends them
        // (on SIGCHLD in the dashboard, and at exit): nothing it started outlives it.
        OrphanReaper.adopt()
        switch try? CommandLineParser.parse(arguments) {
        case .snapshot(let options):
            runWithExtensions(catalog: catalog, directory: options.extensionsDirectory, environment: environment) { extensions in
                await SnapshotCommand.run(options, environment: environment, catalog: extensions.catalog,
                                          wallClock: { Date(timeIntervalSince1970: io.clock.wallNow) }, io: io,
                                          extensions: extensions.runtime)
            }
        case .preview(let options):
            runWithExtensions(catalog: catalog, directory: options.extensionsDirectory, environment: environment) { extensions in
                await PreviewCommand.run(options, environment: environment, catalog: extensions.catalog,
                                         now: Date(timeIntervalSince1970: io.clock.wallNow), io: io, extensions: extensions.runtime)
            }
        case .extensionRun(let options):
            runExtensionCommand {
                // --debug lines go out as they happen (a hang shows where it hangs).
                await ExtensionRunCommand.run(options, environment: environment, catalog: catalog,
                                              now: Date(timeIntervalSince1970: io.clock.wallNow), io: io,
                                              started: HeadlessSignals.stopOnSignals) { line in
                    write(CommandOutput(exitCode: 0, standardError: line).inert().standardError, to: 2)
                }
            }
        case .extensionTest(let options):
            runExtensionCommand {
                await ExtensionTestCommand.run(options, environment: environment, io: io, started: HeadlessSignals.stopOnSignals)
            }
        default:
            finish(run(arguments: arguments, io: io, catalog: catalog))
        }
    }

    /// A headless command that may show extensions (`snapshot`, `preview`): discovers them (as
    /// `discover(for:)` does), runs `command` on the main actor with the loop turning for its
    /// providers, stops them, and prints the extensions skipped before the command's errors.
    private static func runWithExtensions(catalog: Catalog, directory: String?, environment: HostEnvironment,
                                          _ command: @escaping @MainActor (ExtensionSetup) async -> CommandOutput) -> Never {
        let extensions = ExtensionSetup.discover(catalog: catalog, explicitDirectory: directory, environment: environment)
        Task { @MainActor in
            HeadlessSignals.stopOnSignals(extensions.runtime)
            var output = await command(extensions)
            extensions.runtime.stopAll()
            output.standardError = extensions.problemText(prefix: "widgethost: extension skipped: ") + output.standardError
            finish(output)
        }
        dispatchMain()
    }

    /// `extension run` and `extension test`: they discover their own extensions; `command` runs
    /// on the main actor with the loop turning for the extension's answers.
    private static func runExtensionCommand(_ command: @escaping @MainActor () async -> CommandOutput) -> Never {
        Task { @MainActor in finish(await command()) }
        dispatchMain()
    }

    private static func finish(_ output: CommandOutput) -> Never {
        OrphanReaper.killAll()
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
        let notes = extensions?.noteText(prefix: "widgethost: note: ") ?? ""
        switch command {
        case .version:
            return CommandOutput(exitCode: 0, standardOutput: "widgethost \(version)\n")
        case .help(let subcommand, _, let kind):
            return CommandOutput(exitCode: 0, standardOutput: HelpText.text(for: subcommand, catalog: catalog, kind: kind))
        case .checkConfig(let path, _):
            // A bad extension is a bad file of the user's config: listed first, exit 2.
            var output = CheckConfigCommand.run(path: path, environment: environment, catalog: catalog,
                                                extensionProblems: extensions?.problems.count ?? 0)
            output.standardError = skipped + output.standardError
            output.standardOutput += extensions?.noteText(prefix: "note: ") ?? ""
            return output
        case .widgets:
            var output = WidgetsCommand.run(catalog: catalog)
            output.standardError = skipped + notes + output.standardError
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
        case .extensionTest:
            return CommandOutput(exitCode: 1, standardError: "widgethost extension test: run it from the command line\n")
        case .extensionNew(let options):
            return ExtensionNewCommand.run(options, environment: environment)
        case .themes:
            return ThemesCommand.run(environment: environment, color: isatty(1) != 0)
        case .sessions(let options):
            return SessionsCommand.run(options, environment: environment)
        case .reload(let options):
            return ReloadCommand.run(options, environment: environment)
        case .config(let options):
            var output = ConfigEditCommand.run(options, environment: environment, validator: catalog.validator())
            output.standardError = skipped + output.standardError
            return output
        case .activity(let options):
            return ActivityCommand.run(options, environment: environment, now: Date(timeIntervalSince1970: io.clock.wallNow))
        case .events(let options):
            return EventsCommand.run(options, environment: environment, now: Date(timeIntervalSince1970: io.clock.wallNow))
        case .dashboard(let options):
            return MainActor.assumeIsolated {
                let runner = DashboardRunner(options: options, io: io, catalog: catalog, center: .shared,
                                             extensions: extensions?.runtime ?? .empty, extensionProblems: extensions?.problems ?? [],
                                             skippedExtensions: extensions?.skipped ?? [], extensionNotes: extensions?.notes ?? [])
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
