import FoundationEssentials
import JSONTree
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

@Suite("Alerts of the built-ins: system thresholds, a command's failure")
struct AlertRuleTests {
    @Test("system warns at alertCpuPercent and alertMemoryPercent; command is critical on a failed run with alertOnFailure")
    func rules() throws {
        var options = SystemOptions()
        options.alertCpuPercent = 90
        options.alertMemoryPercent = 80
        let busy = SystemEntry(date: at(0), cpu: 0.93, cores: [], memory: MemoryInfo(total: 100, available: 10), load: nil, uptime: nil,
                               history: [], problems: [])
        #expect(SystemWidget.alert(busy, options: options) == EntryAlert(level: .warning, text: "CPU 93% (alert at 90%), memory 90% (alert at 80%)"))
        let calm = SystemEntry(date: at(0), cpu: 0.5, cores: [], memory: MemoryInfo(total: 100, available: 50), load: nil, uptime: nil,
                               history: [], problems: [])
        #expect(SystemWidget.alert(calm, options: options) == nil)
        #expect(CommandWidget.alert(.exited(3)) == EntryAlert(level: .critical, text: "the command failed (exit 3)"))
        #expect(CommandWidget.alert(.exited(0)) == nil && CommandWidget.alert(nil) == nil)
        let prometheus = PrometheusEntry(date: at(0), rows: [.init(label: "up", latest: 0.95, points: [0.95]),
                                                             .init(label: "down", latest: 0.1, points: [0.1]),
                                                             .init(label: "high", latest: 0.99, points: [])],
                                         totalSeries: 3, display: .table, format: .percent, alertAbove: 0.9, alertBelow: nil,
                                         hasData: true, fetchedAt: at(0), fetchError: nil, isFetching: false)
        #expect(PrometheusWidget.alert(prometheus)?.text.hasPrefix("up ") == true)
        #expect(PrometheusWidget.alert(prometheus)?.text.hasSuffix(" (+1 more)") == true)
        let field = HTTPJSONField(label: "Queue", pointer: try JSONPointer("/q"), alertAbove: 100, alertBelow: 1)
        #expect(field.isAlerting(.integer(101)) && field.isAlerting(.number(0.5)))
        #expect(!field.isAlerting(.integer(100)) && !field.isAlerting(.string("500")) && !field.isAlerting(nil))
        let http = HTTPJSONEntry(date: at(0), rows: [.init(label: "Queue", value: "101", alerting: true), .init(label: "Ok", value: "3")],
                                 hasData: true)
        #expect(HTTPJSONWidget.alert(http) == EntryAlert(level: .warning, text: "Queue 101"))
    }
}
