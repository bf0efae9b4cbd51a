import FoundationEssentials
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
    }
}
