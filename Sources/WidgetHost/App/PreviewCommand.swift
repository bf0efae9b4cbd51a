import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost preview KIND`: shows a widget's timeline entry by entry, each drawn in a panel
/// of its family's size, without a terminal.
@MainActor
enum PreviewCommand {
    /// Panel size per family for previews: a grid unit is 24×9 cells.
    static func panelSize(_ family: WidgetFamily) -> TerminalSize {
        TerminalSize(columns: 24 * family.gridUnits.columns, rows: 9 * family.gridUnits.rows)
    }

    static let defaultCount = 5

    static func run(_ options: PreviewOptions, environment: HostEnvironment, catalog: Catalog,
                    now: Date = Date(), io: HostIO? = nil) async -> CommandOutput {
        let validator = catalog.validator()
        let checked = validator.previewPanel(kind: options.kind, family: options.family,
                                             options: options.options.map { ($0.name, $0.value) })
        guard let panel = checked.panel else {
            return CommandOutput(exitCode: 2, standardError: ConfigDiagnostic.lines(checked.errors, prefix: "widgethost preview: "))
        }
        // The headless path `snapshot` takes too: a manual clock, sessions on a temporary directory.
        guard let binding = HeadlessBinding(catalog: catalog, now: now, io: io) else {
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: cannot create a temporary directory\n")
        }
        let sessions = binding.sessions
        defer { sessions.close() }
        guard let widget = binding.widgets.widget(kind: panel.kind) else {
            return CommandOutput(exitCode: 2, standardError: "widgethost preview: unknown widget kind '\(panel.kind)'\n")
        }
        let widgetEnvironment = binding.environment(variables: environment.variables)
        let provider: AnyTimelineProvider
        do {
            provider = try widget.makeProvider(panel.options, widgetEnvironment)
        } catch {
            return CommandOutput(exitCode: 2, standardError: "widgethost preview: \(panel.kind): \(error)\n")
        }
        let size = panelSize(panel.family)
        let inner = CellSize(columns: size.columns - 2, rows: size.rows - 2)
        let context = TimelineProviderContext(family: panel.family, size: inner, isPreview: true)
        // A widget that fetches starts its download on the first call; once the download's
        // events are in, the second call answers with the data.
        var answer: Result<AnyTimeline, any Error>?
        let answered = await finishes(within: 10) {
            do { answer = .success(try await provider.timeline(in: context)) } catch { answer = .failure(error) }
            guard !sessions.isIdle else { return }
            while !sessions.isIdle { try? await Task.sleep(for: .milliseconds(20)) }
            do { answer = .success(try await provider.timeline(in: context)) } catch { answer = .failure(error) }
        }
        guard answered, let answer else {
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(panel.kind) gave no timeline within 10 s\n")
        }
        let timeline: AnyTimeline
        switch answer {
        case .success(let value): timeline = value
        case .failure(let error):
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(panel.kind): \(error)\n")
        }
        let glyphs = GlyphSet.forLocale(environment: environment.variables)
        let entries = timeline.entries.sorted { $0.date < $1.date }
        let shown = entries.prefix(options.count ?? defaultCount)
        var text = "\(widget.displayName) (\(panel.kind), \(panel.family)): \(entries.count) entries, policy \(describe(timeline.policy))\n"
        for (index, item) in shown.enumerated() {
            var buffer = CellBuffer(width: size.columns, height: size.rows)
            text += "entry \(index + 1) of \(entries.count) at \(item.date.ISO8601Format())\n"
            Box(title: widget.displayName, glyphs: glyphs).draw(into: &buffer, in: buffer.bounds)
            let view = widget.view(item, WidgetViewContext(family: panel.family, size: inner))
            view.draw(into: &buffer, in: Box.inner(of: buffer.bounds), glyphs: glyphs)
            text += TextBackend.lines(buffer).map { $0 + "\n" }.joined()
        }
        if entries.count > shown.count {
            text += "… \(entries.count - shown.count) more (use --count)\n"
        }
        return CommandOutput(exitCode: 0, standardOutput: text)
    }

    static func describe(_ policy: TimelineReloadPolicy) -> String {
        switch policy {
        case .atEnd: "atEnd"
        case .after(let date): "after \(date.ISO8601Format())"
        case .never: "never"
        }
    }
}
