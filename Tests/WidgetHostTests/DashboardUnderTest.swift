import FoundationEssentials
import TerminalUI
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// The host of a dashboard under test: records the effects a terminal would run; a program to
/// run in the terminal answers with `terminalAnswer`.
@MainActor
final class EffectRecorder: DashboardHost {
    var effects: [DashboardEffect] = []
    var terminalAnswer: ([String]) -> String? = { _ in "no terminal to run it in" }

    func perform(_ effect: DashboardEffect, in program: DashboardProgram) {
        effects.append(effect)
        if case .runInTerminal(let arguments, let member, let action) = effect {
            program.send(.actionFinished(member, action: action, failure: terminalAnswer(arguments)))
        }
    }
}

/// A dashboard running in its `DashboardProgram`, as the loop runs it, on a manual clock: keys
/// and messages go in through the program, the state is read through (`focus`, `panels`…).
@MainActor
@dynamicMemberLookup
final class DashboardUnderTest {
    let program: DashboardProgram
    let host: EffectRecorder
    let clock: any WidgetClock
    var center: WidgetCenter { program.center }

    init(size: TerminalSize, themes: [Theme] = [Theme.default], environment: [String: String] = ["TZ": "UTC"],
         clock: any WidgetClock = ManualClock(now: at(0)), center: WidgetCenter = WidgetCenter(),
         panelFactory: PanelFactory? = nil, host: EffectRecorder = EffectRecorder(), renderingMode: RenderingMode = .fullColor) {
        var dashboard = Dashboard(size: size, glyphs: .unicode, themes: themes, environment: environment, clock: clock)
        dashboard.panelFactory = panelFactory
        dashboard.renderingMode = renderingMode
        self.clock = clock
        self.host = host
        program = DashboardProgram(dashboard: dashboard, clock: clock, center: center, host: host)
    }

    /// The dashboard's state now (a value: it does not change with the program afterwards).
    var dashboard: Dashboard { program.dashboard }

    subscript<T>(dynamicMember path: KeyPath<Dashboard, T>) -> T { program.dashboard[keyPath: path] }

    func send(_ message: DashboardMessage) { program.send(message) }
    /// A key through the program, with its effects (reloads, pause, theme…).
    func press(_ key: Key) { send(.key(key)) }
    func resize(to size: TerminalSize) { send(.resized(size)) }
    func render() -> CellBuffer { program.render() }
    func settle(_ ids: Set<WidgetInstanceID>? = nil) async { await program.settle(ids) }
    func status(of id: WidgetInstanceID) -> TimelineScheduler.Status? { program.dashboard.timelines.status(of: id) }

    /// Installs `panels` as a config's are (`.panelsBuilt`).
    func install(_ panels: [PreparedPanel]) { send(.panelsBuilt(panels)) }

    /// Builds `config`'s panels with `widgets` (the factories run here, as in `.buildPanels`)
    /// and installs them.
    func build(_ config: DashboardConfig, widgets: BoundWidgets) {
        install(DashboardBuilder.prepare(config, widgets: widgets, reusing: program.dashboard.panels))
    }
}

extension PreparedPanel {
    /// A panel of a widget (or a stack of several), its providers made with `options`.
    static func of(_ members: [(title: String, widget: TerminalWidget)], title: String? = nil, family: WidgetFamily,
                   options: WidgetOptions = WidgetOptions(), smartRotate: Bool = true) -> PreparedPanel {
        let configs = members.map { PanelConfig(kind: $0.widget.kind, family: family, title: $0.title, options: options) }
        var config = configs.count == 1 ? configs[0] : PanelConfig(kind: "stack", family: family, title: title, children: configs)
        config.smartRotate = smartRotate
        var fresh = Fresh(title: title ?? members.map(\.title).joined(separator: " · "))
        fresh.members = members.map {
            Member(widget: $0.widget, title: $0.title, options: options, provider: try! $0.widget.makeProvider(options))
        }
        return PreparedPanel(config: config, fresh: fresh)
    }
}
