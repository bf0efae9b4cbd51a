#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// A `CurlTransport` and `BackgroundSessionManager` on a temporary state directory, and a
/// `TimelineDriver` on a `ManualClock` (started at the wall clock's now, so range queries
/// ask for the data the real server has) hosting `prometheus` panels, routed like the host.
@MainActor
private final class Rig {
    let directory = TemporaryStateDirectory()
    let clock = ManualClock(now: Date())
    let transport: CurlTransport
    let manager: BackgroundSessionManager
    let center = WidgetCenter()
    let driver: TimelineDriver
    let widget: TerminalWidget
    let state: String
    var panels: [WidgetInstanceID] = []
    static let size = CellSize(columns: 60, rows: 10)

    /// - Parameter stateDirectory: another rig's (a host started again on its state); nil: a
    ///   fresh one.
    init(requestTimeout: Duration = .seconds(10), stateDirectory: String? = nil) throws {
        var configuration = CurlTransportConfiguration()
        configuration.noProxy = "*"
        configuration.connectTimeout = .seconds(5)
        configuration.requestTimeout = requestTimeout
        configuration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), jitter: { 0.5 })
        transport = try CurlTransport(configuration: configuration)
        state = stateDirectory ?? directory.path + "/state"
        manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, clock: clock)
        let clock = clock
        let context = WidgetContext(sessions: manager, stateDirectory: state, center: center, now: { clock.now })
        let widgets = [PrometheusWidget.configuration(context: context)]
        widget = widgets[0]
        manager.eventRouter = BackgroundSessionManager.router(for: { widgets })
        driver = TimelineDriver(clock: clock, configuration: SchedulerConfiguration(minimumReloadInterval: 1), center: center,
                                providerExecutor: Self.providerExecutor)
    }

    private static let providerExecutor = ThreadTaskExecutor()

    /// Adds a panel with `options` (strings and integers); returns its index.
    @discardableResult
    func add(_ options: [String: WidgetOptions.Value]) throws -> Int {
        let provider = try widget.makeProvider(WidgetOptions(options))
        panels.append(driver.add(kind: PrometheusWidget.kind, family: .large, size: Self.size, provider: provider))
        return panels.count - 1
    }

    func entry(_ index: Int = 0) -> PrometheusEntry? { driver.status(of: panels[index])?.entry as? PrometheusEntry }

    func frame(_ index: Int = 0) -> [String] {
        guard let entry = entry(index) else { return [] }
        var buffer = CellBuffer(width: Self.size.columns, height: Self.size.rows)
        PrometheusView.view(entry, context: WidgetViewContext(family: .large, size: Self.size))
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        return TextBackend.lines(buffer)
    }

    var runningTasks: Int {
        manager.session(identifier: PrometheusWidget.session).allTasks.filter { $0.state == .running }.count
    }

    /// The host stops with its query in flight (a crash, as far as the journal knows).
    func abandon() {
        for panel in panels { driver.remove(panel) }
        manager.close()
        transport.shutdown()
    }

    func close() async {
        await driver.settle()
        _ = await eventually(within: 15) { self.manager.pendingEvents.isEmpty && self.runningTasks == 0 }
        for panel in panels { driver.remove(panel) }
        manager.close()
        transport.shutdown()
    }
}

/// A loopback port nothing listens on (bound, then closed).
private func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

@Suite("prometheus against the real Prometheus and node exporter", .serialized, .onOwnThreads(.blockingCalls))
@MainActor
struct PrometheusRealServerTests {
    @Test("a table of targets, CPUs as sparklines from a range query, and a query Prometheus refuses: its own message on the panel")
    func realServer() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let stack = try ScriptServer.prometheus(directory: home.path)
        defer { stack.stop() }
        let exporter = try #require(stack.extras.first)
        let rig = try Rig()
        try rig.add(["url": .string(stack.url), "query": .string("up"), "show": .string("table"), "legend": .string("{{job}} {{instance}}"),
                     "refreshSeconds": .integer(1)])
        try rig.add(["url": .string(stack.url), "query": .string(#"sum by (cpu) (rate(node_cpu_seconds_total{mode!="idle"}[5s]))"#),
                 "show": .string("sparkline"), "rangeSeconds": .integer(60), "stepSeconds": .integer(1),
                 "legend": .string("cpu {{cpu}}"), "format": .string("percent"), "refreshSeconds": .integer(1)])
        try rig.add(["url": .string(stack.url), "query": .string("sum(rate(node_cpu_seconds_total[5s]"), "show": .string("value")])

        #expect(await eventually(within: 20) { rig.entry(0)?.rows.first?.latest == 1 }, "\(String(describing: rig.entry(0)))")
        #expect(rig.entry(0)?.rows.map(\.label) == ["node \(exporter)"])
        #expect(rig.frame(0).first?.hasPrefix("node \(exporter)") == true && rig.frame(0).first?.hasSuffix(" 1") == true,
                "\(rig.frame(0))")
        #expect(rig.entry(0)?.fetchError == nil)

        // One row per CPU of this machine, each with points over the range.
        let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #expect(await eventually(within: 20) {
            rig.entry(1)?.rows.count == min(cpus, 64) && rig.entry(1)?.rows.allSatisfy { !$0.points.isEmpty } == true
        }, "\(String(describing: rig.entry(1)))")
        #expect(rig.entry(1)?.rows.first?.label == "cpu 0", "\(String(describing: rig.entry(1)?.rows.first))")
        #expect(rig.frame(1).first?.hasPrefix("cpu 0") == true && rig.frame(1).first?.hasSuffix("%") == true, "\(rig.frame(1))")

        // Prometheus's own words, not "server answered 400 Bad Request".
        #expect(await eventually(within: 20) { rig.entry(2)?.fetchError != nil }, "\(String(describing: rig.entry(2)))")
        let error = rig.entry(2)?.fetchError ?? ""
        #expect(error.hasPrefix("bad_data: invalid parameter \"query\": 1:") && error.contains("parse error"), "\(error)")
        #expect(rig.frame(2).contains { $0.hasPrefix("⚠ bad_data: invalid parameter") }, "\(rig.frame(2))")
        await rig.close()
    }
}

@Suite("prometheus faults: down, slow, 10,000 series, hostile labels", .serialized, .onOwnThreads(.blockingCalls))
@MainActor
struct PrometheusFaultTests {
    @Test("Prometheus down: connection refused on the panel, no rows")
    func down() async throws {
        let rig = try Rig()
        try rig.add(["url": .string("http://127.0.0.1:\(closedPort())"), "query": .string("up"), "show": .string("table")])
        #expect(await eventually { rig.entry()?.fetchError?.contains("connection refused") == true },
                "\(String(describing: rig.entry()))")
        #expect(rig.entry()?.rows.isEmpty == true)
        #expect(rig.frame().contains { $0.hasPrefix("⚠ connection refused") }, "\(rig.frame())")
        await rig.close()
    }

    @Test("a slow Prometheus: the request times out and the panel says so")
    func slow() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let fake = try ScriptServer.fakePrometheus(["--sleep", "5"], logDirectory: home.path)
        defer { fake.stop() }
        let rig = try Rig(requestTimeout: .seconds(1))
        try rig.add(["url": .string(fake.url), "query": .string("up"), "show": .string("value")])
        #expect(await eventually(within: 20) { rig.entry()?.fetchError?.contains("timed out after 1 s") == true },
                "\(String(describing: rig.entry()))")
        #expect(rig.frame().contains { $0.hasPrefix("⚠ timed out after 1 s") }, "\(rig.frame())")
        await rig.close()
    }

    @Test("10,000 series: 64 kept, 'showing N of 10,000 series', a small file; a hostile label is shown inert")
    func tenThousandSeries() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let fake = try ScriptServer.fakePrometheus(["--series", "10000", "--label", "evil\u{1B}[2J\nline\u{202E}"],
                                                   logDirectory: home.path)
        defer { fake.stop() }
        let rig = try Rig()
        try rig.add(["url": .string(fake.url), "query": .string("m"), "show": .string("table"), "legend": .string("{{instance}}")])
        #expect(await eventually(within: 20) { rig.entry()?.totalSeries == 10_000 }, "\(String(describing: rig.entry()))")
        #expect(rig.entry()?.rows.count == PrometheusResult.maximumSeries)
        #expect(rig.entry()?.rows.first?.label == "evil\u{FFFD}[2J\u{FFFD}line\u{FFFD}", "\(String(describing: rig.entry()?.rows.first))")
        let frame = rig.frame()
        #expect(frame.contains { $0 == "showing 8 of 10,000 series" }, "\(frame)")
        #expect(!frame.joined().contains("\u{1B}"))
        // What is kept is the bounded result, not the 800 KB answer.
        let container = try WidgetContainer(kind: PrometheusWidget.kind, stateDirectory: rig.state)
        let files = try FileManager.default.contentsOfDirectory(atPath: container.path).filter { $0.hasSuffix(".body.json") }
        #expect(files.count == 1)
        let size = try FileManager.default.attributesOfItem(atPath: container.path + "/" + files[0])[.size] as? Int ?? .max
        #expect(size < 8 * 1024, "\(size) bytes kept")
        await rig.close()
    }

    @Test("a sparkline's range query: at most 1,000 points per series are kept")
    func points() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let fake = try ScriptServer.fakePrometheus(["--series", "2", "--points", "3000"], logDirectory: home.path)
        defer { fake.stop() }
        let rig = try Rig()
        try rig.add(["url": .string(fake.url), "query": .string("m"), "show": .string("sparkline"), "rangeSeconds": .integer(3600)])
        #expect(await eventually(within: 20) { rig.entry()?.rows.count == 2 }, "\(String(describing: rig.entry()))")
        #expect(rig.entry()?.rows.map(\.points.count) == [1_000, 1_000])
        #expect(rig.entry()?.rows.first?.latest == 2_999, "the latest points are the ones kept")
        #expect(fake.standardError.contains("GET /api/v1/query_range?query=m&step=60&timeout=20s&start="), "\(fake.standardError)")
        await rig.close()
    }

    @Test("a query in flight when the host stops is taken up by the next host on the same state: one more request, the answer shown")
    func restart() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let fake = try ScriptServer.fakePrometheus(["--sleep", "1.5", "--series", "3"], logDirectory: home.path)
        defer { fake.stop() }
        let first = try Rig()
        try first.add(["url": .string(fake.url), "query": .string("m"), "show": .string("table")])
        #expect(await eventually { fake.standardError.contains("GET /api/v1/query?query=m") })
        first.abandon()

        let second = try Rig(stateDirectory: first.state)
        let left = second.manager.suspendedTasks
        #expect(left.count == 1 && left.first.map { $0.url.absoluteString.hasPrefix(fake.url + "/api/v1/query?query=m") } == true,
                "\(left)")
        try second.add(["url": .string(fake.url), "query": .string("m"), "show": .string("table")])
        #expect(await eventually(within: 20) { second.entry()?.rows.count == 3 }, "\(String(describing: second.entry()))")
        #expect(second.manager.suspendedTasks.isEmpty)
        #expect(fake.standardError.split(separator: "\n").count == 2, "the abandoned request and the one taken up: \(fake.standardError)")
        await second.close()
        withExtendedLifetime(first) {}  // its temporary directory holds the state both used
    }
}
