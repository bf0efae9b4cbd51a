import Extensions
import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost preview KIND`: shows a widget's timeline entry by entry, each drawn in a panel
/// of its family's size, without a terminal. `extension run` shares it (`fetch`, `render`).
@MainActor
enum PreviewCommand {
    /// Panel size per family for previews: a grid unit is 24×9 cells.
    static func panelSize(_ family: WidgetFamily) -> TerminalSize {
        TerminalSize(columns: 24 * family.gridUnits.columns, rows: 9 * family.gridUnits.rows)
    }

    static let defaultCount = 5

    /// What to ask one widget for: `preview`'s and `extension run`'s common part.
    struct Request {
        var kind: String
        var family: WidgetFamily?
        var options: [OptionAssignment]
        /// The content area sent to the provider; nil: the family's preview panel less its border.
        var contentSize: CellSize?
        /// Ask for the snapshot (one entry, `isPreview`) rather than the timeline.
        var snapshot = false
        /// The context's `isPreview` (true for `preview`, and for every snapshot).
        var isPreview = true
        /// How long the whole exchange (with one round of downloads) may take.
        var waitSeconds = 10.0
        /// Starts each error line (`widgethost preview: `).
        var prefix: String
        /// Asked while downloads are waited for, and again whenever `bell` rings: an error ends
        /// the wait at once, as the provider's failure (an extension that answered its
        /// `sessionEvents` with an error).
        var abandonWait: (check: @Sendable () -> (any Error)?, bell: Wakeup)? = nil
    }

    /// What `fetch` got: the widget, its panel and the timeline (a snapshot is a timeline of one
    /// entry whose policy is `never`).
    struct Fetched {
        var widget: TerminalWidget
        var panel: PanelConfig
        var contentSize: CellSize
        var timeline: AnyTimeline
    }

    enum Failure: Error {
        /// Bad kind, family or options: the lines to print (exit 2).
        case refused(String)
        /// Not answered within `waitSeconds`.
        case timedOut(Double)
        /// The provider threw.
        case provider(any Error)
        /// The host could not set up (exit 1).
        case host(String)
    }

    /// - Parameter extensions: the extensions `catalog` holds the kinds of: an extension that
    ///   answers its `sessionEvents` with an error ends the wait at once (as `extension run`).
    static func run(_ options: PreviewOptions, environment: HostEnvironment, catalog: Catalog,
                    now: Date = Date(), io: HostIO? = nil, extensions: ExtensionRuntime? = nil) async -> CommandOutput {
        var request = Request(kind: options.kind, family: options.family, options: options.options,
                              snapshot: options.snapshot, prefix: "widgethost preview: ")
        if ExtensionRediscovery.isExtensionKind(options.kind), let name = options.kind.split(separator: "/", maxSplits: 1).first,
           let host = extensions?.host(named: String(name)) {
            request.abandonWait = ({ host.unansweredEvents.map(ExtensionRunCommand.EventsUnanswered.init) }, host.eventsUnansweredBell)
        }
        switch await fetch(request, environment: environment, catalog: catalog, now: now, io: io) {
        case .success(let fetched):
            if let failure = (fetched.timeline.entries.first as? ExtensionEntry)?.failure {
                return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(options.kind): \(failure)\n")
            }
            return CommandOutput(exitCode: 0, standardOutput: render(fetched, count: options.count, environment: environment,
                                                                      style: .preview))
        case .failure(.refused(let lines)):
            return CommandOutput(exitCode: 2, standardError: lines)
        case .failure(.timedOut(let seconds)):
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(options.kind) gave no timeline within \(Int(seconds)) s\n")
        case .failure(.provider(let error as ExtensionRunCommand.EventsUnanswered)):
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(options.kind): its answer to sessionEvents: \(error.error)\n")
        case .failure(.provider(let error)):
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(options.kind): \(error)\n")
        case .failure(.host(let message)):
            return CommandOutput(exitCode: 1, standardError: "widgethost preview: \(message)\n")
        }
    }

    /// Validates the request against the catalogue, makes the provider (headless sessions on
    /// a manual clock at `now`) and asks it for its timeline — twice when the first call
    /// started downloads, once their events are in — or for its snapshot.
    static func fetch(_ request: Request, environment: HostEnvironment, catalog: Catalog,
                      now: Date, io: HostIO?) async -> Result<Fetched, Failure> {
        let checked = catalog.validator().previewPanel(kind: request.kind, family: request.family,
                                                       options: request.options.map { ($0.name, $0.value) })
        guard let panel = checked.panel else { return .failure(.refused(ConfigDiagnostic.lines(checked.errors, prefix: request.prefix))) }
        // The headless path `snapshot` takes too: a manual clock, sessions on a temporary directory.
        guard let binding = HeadlessBinding(catalog: catalog, now: now, io: io, variables: environment.variables) else {
            return .failure(.host("cannot create a temporary directory"))
        }
        let sessions = binding.sessions
        defer { sessions.close() }
        guard let widget = binding.widgets.widget(kind: panel.kind) else {
            return .failure(.refused("\(request.prefix)unknown widget kind '\(panel.kind)'\n"))
        }
        let provider: AnyTimelineProvider
        do {
            provider = try widget.makeProvider(panel.options)
        } catch {
            return .failure(.refused("\(request.prefix)\(panel.kind): \(error)\n"))
        }
        let size = panelSize(panel.family)
        let inner = request.contentSize ?? CellSize(columns: size.columns - 2, rows: size.rows - 2)
        let context = TimelineProviderContext(family: panel.family, size: inner, isPreview: request.isPreview || request.snapshot)
        // A widget that fetches starts its download on the first call; once the download's
        // events are in, the second call answers with the data.
        var answer: Result<AnyTimeline, any Error>?
        let answered = await finishes(within: request.waitSeconds) {
            func ask() async -> Result<AnyTimeline, any Error> {
                if request.snapshot { return .success(AnyTimeline(entries: [await provider.snapshot(in: context)], policy: .never)) }
                do { return .success(try await provider.timeline(in: context)) } catch { return .failure(error) }
            }
            answer = await ask()
            guard !sessions.isIdle else { return }
            var abandoned = false
            await sessions.wait(until: {
                if let error = request.abandonWait?.check() {
                    answer = .failure(error)
                    abandoned = true
                }
                return abandoned || sessions.isIdle
            }, wakeup: request.abandonWait?.bell ?? Wakeup())
            if !abandoned { answer = await ask() }
        }
        guard answered, let answer else { return .failure(.timedOut(request.waitSeconds)) }
        switch answer {
        case .success(let timeline): return .success(Fetched(widget: widget, panel: panel, contentSize: inner, timeline: timeline))
        case .failure(let error): return .failure(.provider(error))
        }
    }

    enum Style {
        /// A header with the count and policy, then the entries.
        case preview
        /// A header, the entries with their relevance, the policy last.
        case extensionRun
    }

    /// The entries as text: each one's date (and relevance for `extensionRun`), then its view
    /// drawn in a panel of `fetched.contentSize` plus a border.
    static func render(_ fetched: Fetched, count: Int?, environment: HostEnvironment, style: Style) -> String {
        let widget = fetched.widget
        let panel = fetched.panel
        let inner = fetched.contentSize
        let glyphs = GlyphSet.forLocale(environment: environment.variables)
        let entries = fetched.timeline.entries.sorted { $0.date < $1.date }
        let shown = entries.prefix(count ?? defaultCount)
        let policy = describe(fetched.timeline.policy)
        let title = DashboardBuilder.title(of: panel, manifest: widget.manifest)
        var text: String
        switch style {
        case .preview:
            text = "\(widget.displayName) (\(panel.kind), \(panel.family)): \(Self.counted(entries.count, "entry", "entries")), policy \(policy)\n"
        case .extensionRun:
            text = "\(widget.displayName) (\(panel.kind), \(panel.family), \(inner.columns)x\(inner.rows)): \(Self.counted(entries.count, "entry", "entries"))\n"
        }
        for (index, item) in shown.enumerated() {
            var buffer = CellBuffer(width: inner.columns + 2, height: inner.rows + 2)
            text += "entry \(index + 1) of \(entries.count) at \(item.date.ISO8601Format())"
            if style == .extensionRun, let relevance = item.relevance {
                text += ", relevance \(relevance.score)" + (relevance.duration > 0 ? " for \(relevance.duration) s" : "")
            }
            text += "\n"
            Box(title: title, glyphs: glyphs).draw(into: &buffer, in: buffer.bounds)
            let view = widget.view(item, WidgetViewContext(family: panel.family, size: inner))
            view.draw(into: &buffer, in: Box.inner(of: buffer.bounds), glyphs: glyphs, at: item.date)
            text += TextBackend.lines(buffer).map { $0 + "\n" }.joined()
        }
        if entries.count > shown.count {
            text += "… \(entries.count - shown.count) more (use --count)\n"
        }
        if style == .extensionRun { text += "policy \(policy)\n" }
        return text
    }

    /// "1 entry", "2 entries".
    static func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }

    static func describe(_ policy: TimelineReloadPolicy) -> String {
        switch policy {
        case .atEnd: "atEnd"
        case .after(let date): "after \(date.ISO8601Format())"
        case .never: "never"
        }
    }
}
