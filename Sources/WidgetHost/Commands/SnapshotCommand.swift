#if canImport(Glibc)
import Glibc
#endif
import Extensions
import FoundationEssentials
import TerminalUI

/// `widgethost snapshot`: renders one frame of the dashboard as text (or ANSI, SVG, HTML), at a
/// chosen size and moment, without a terminal.
@MainActor
enum SnapshotCommand {
    /// Builds the dashboard headless (`HeadlessDashboard`) on a manual clock set to `--at`
    /// (default now), lets providers and their downloads finish (at most `--wait` seconds,
    /// default 5), and returns the frame as text, with ANSI colours for `--color`.
    ///
    /// Without `--at` the frame shows the moment it is drawn: the clock is moved on to
    /// `wallClock()` after the wait, so an entry a provider dated "now" when it answered (an
    /// extension's own now, after its launch) has come by then, as on the dashboard.
    static func run(_ options: SnapshotOptions, environment: HostEnvironment, catalog: Catalog,
                    wallClock: () -> Date = { Date() }, io: HostIO? = nil, extensions: ExtensionRuntime? = nil) async -> CommandOutput {
        if let replay = options.replayPath {
            return SnapshotReplay.run(options, path: replay, environment: environment, catalog: catalog, io: io, extensions: extensions)
        }
        let now = wallClock()
        if let state = options.stateDirectory {
            var info = stat()
            guard stat(state, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                return CommandOutput(exitCode: 2, standardError: "widgethost snapshot: --state-dir \(state): no such directory\n")
            }
        }
        // ANSI colours unless NO_COLOR is set (a recording is always ANSI text); the rendering
        // mode of a 256-colour terminal, or of none under NO_COLOR, unless one is asked for.
        let noColor = !(environment.variables["NO_COLOR"] ?? "").isEmpty
        let mode = options.renderingMode ?? RenderingMode.detect(capability: noColor ? .none : .palette256)
        let dashboard: HeadlessDashboard
        switch HeadlessDashboard.open(catalog: catalog, configPath: options.configPath, theme: options.theme,
                                      stateDirectory: options.stateDirectory, size: options.size,
                                      now: options.at?.date(now: now) ?? now, environment: environment, io: io,
                                      extensions: extensions, renderingMode: mode) {
        case .success(let opened): dashboard = opened
        case .failure(let output): return output
        }
        defer { dashboard.close() }
        if options.isPrivate { dashboard.press(.character("P")) }
        let wait = options.waitSeconds ?? 5
        let settled = await dashboard.settle(within: wait)
        let notice = dashboard.sessionsUnavailable.map { "widgethost snapshot: background sessions are off: \($0)\n" } ?? ""
        if options.at == nil { dashboard.clock.advance(to: max(dashboard.clock.now, wallClock())) }
        if let path = options.recordPath, let duration = options.recordDuration {
            let palette = noColor ? nil : TerminalPalette(theme: dashboard.theme, capability: .palette256, mode: mode)
            let output = await SnapshotRecording.record(dashboard, to: path, duration: duration, step: options.recordStep ?? 1,
                                                        size: options.size, palette: palette, settleWithin: wait)
            return CommandOutput(exitCode: output.exitCode, standardOutput: output.standardOutput,
                                 standardError: notice + (settled ? "" : "widgethost snapshot: not every widget had its data after \(wait) s\n")
                                    + output.standardError)
        }
        var output = frameOutput(dashboard.render(), theme: dashboard.theme, size: options.size, format: options.format,
                                 noColor: noColor, mode: mode)
        output.standardError = notice + (settled ? "" : "widgethost snapshot: not every widget had its data after \(wait) s\n")
        return output
    }

    /// `frame` written as `format` says (a replay's frame too), its colours in `mode`.
    static func frameOutput(_ frame: CellBuffer, theme: Theme, size: TerminalSize, format: SnapshotFormat,
                            noColor: Bool, mode: RenderingMode = .fullColor) -> CommandOutput {
        let text: String
        switch format {
        case .svg: text = FrameExport.svg(frame, theme: theme, mode: mode)
        case .html: text = FrameExport.html(frame, theme: theme, mode: mode)
        case .text, .ansi:
            let backend = TextBackend(size: size)
            if format == .ansi {
                backend.palette = TerminalPalette(theme: theme, capability: noColor ? .none : .palette256, mode: mode)
            }
            backend.present(frame)
            text = backend.render()
        }
        // The frame's text went through the cell buffer's sanitiser; ansi adds SGR on purpose,
        // svg and html escape it as markup.
        return CommandOutput(exitCode: 0, standardOutput: text, standardOutputHasEscapes: format == .ansi)
    }
}
