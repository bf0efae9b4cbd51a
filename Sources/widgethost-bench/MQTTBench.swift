import CMosquitto
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 12 (MQTT publish → screen) on Benchmarks/mqtt.json: the real `mosquitto` on a free
/// loopback port (its own config in the scratch directory; its pinned `127.0.0.1:41883` is
/// replaced), one `mqtt` panel with a field. Each try publishes a new value from this process
/// (libmosquitto, QoS 0) and reads the terminal until it is quiet for 100 ms; the time of the
/// last byte is when the value was drawn. Tries are 1.2 s apart, outside the push budget's
/// one reload a second. Wake-ups per message are the dashboard's voluntary context switches
/// (all threads) over a try; idle wake-ups are counted over a quiet minute with the broker
/// connected (the keepalive ping and its answer, the status bar's clock turning its minute).
enum MQTTBench {
    static let pinnedAddress = "127.0.0.1:41883"

    static func measure(into report: Report, harness: Harness, quick: Bool) {
        let figures = "12 MQTT publish → screen"
        guard access("/usr/sbin/mosquitto", X_OK) == 0 else {
            report.notes.append("\(figures): not measured — no /usr/sbin/mosquitto (Debian: apt-get install mosquitto)")
            return
        }
        let port = freePort()
        let configPath = harness.scratch + "/mosquitto.conf"
        let lines = ["listener \(port) 127.0.0.1", "allow_anonymous true", "persistence false", "log_dest none"]
            + (getuid() == 0 ? ["user root"] : [])
        _ = FileManager.default.createFile(atPath: configPath, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        guard let broker = spawn(["/usr/sbin/mosquitto", "-c", configPath]) else {
            report.notes.append("\(figures): not measured — mosquitto could not be started")
            return
        }
        defer {
            kill(broker, SIGTERM)
            var status: Int32 = 0
            waitpid(broker, &status, 0)
        }
        _ = mosquitto_lib_init()
        guard let publisher = mosquitto_new("widgethost-bench", true, nil) else { return }
        defer { mosquitto_destroy(publisher) }
        let deadline = monotonicNanos() + 5_000_000_000
        while mosquitto_connect(publisher, "127.0.0.1", Int32(port), 60) != MOSQ_ERR_SUCCESS.rawValue {
            guard monotonicNanos() < deadline else {
                report.notes.append("\(figures): not measured — mosquitto did not accept connections on \(port)")
                return
            }
            usleep(20_000)
        }
        func publish(_ value: Int) {
            let payload = Array(#"{"w": \#(value)}"#.utf8)
            _ = mosquitto_publish(publisher, nil, "bench/power", Int32(payload.count), payload, 0, false)
            while mosquitto_want_write(publisher) { _ = mosquitto_loop_write(publisher, 1) }
        }
        publish(0)
        let text = (ProcFiles.read(harness.benchmarks + "/mqtt.json") ?? "").replacing(pinnedAddress, with: "127.0.0.1:\(port)")
        let name = "mqtt-\(port).json"
        _ = FileManager.default.createFile(atPath: harness.scratch + "/" + name, contents: Data(text.utf8))
        guard let pty = harness.started(nil, for: figures, report: report,
                                        extraArguments: ["--config", harness.scratch + "/" + name]) else { return }
        defer { pty.stop() }
        guard pty.readUntil("live", timeoutMs: 5_000) != nil else {
            report.notes.append("\(figures): not measured — the panel never said live")
            return
        }
        _ = pty.readUntilQuiet(quietMs: 500, maxMs: 5_000)
        var latencies: [Double] = []
        var wakeups: [Double] = []
        for value in 1...(quick ? 8 : 40) {
            usleep(1_200_000)
            _ = pty.readUntilQuiet(quietMs: 50, maxMs: 1_000)
            let before = pty.wakeups().voluntary
            let t0 = monotonicNanos()
            publish(value * 100 + 1)
            let burst = pty.readUntilQuiet(quietMs: 100, maxMs: 3_000)
            guard let last = burst.last else { continue }
            latencies.append(Double(last - t0) / 1e6)
            wakeups.append(Double(pty.wakeups().voluntary - before))
        }
        let workload = "Benchmarks/mqtt.json, 100x30, real mosquitto on loopback; publish (QoS 0), read until 100 ms quiet; \(latencies.count) tries"
        let median = quantile(latencies, 0.5)
        let p99 = quantile(latencies, 0.99)
        report.add(Figure(section: "12", name: "MQTT publish → screen median", value: median, unit: "ms",
                          workload: workload, target: "≤ 20", met: median <= 20))
        report.add(Figure(section: "12", name: "MQTT publish → screen p99", value: p99, unit: "ms",
                          workload: workload, target: "≤ 20", met: p99 <= 20))
        report.add(Figure(section: "12", name: "MQTT wake-ups per message", value: quantile(wakeups, 0.5), unit: "wake-ups",
                          workload: workload + "; median of the dashboard's voluntary switches, all threads"))
        // Idle: connected, nothing published, over a minute: what remains is the keepalive
        // ping and its answer (every 60 s from the last packet sent) and the status bar's
        // clock turning its minute.
        let window = quick ? 15 : 60
        _ = pty.readUntilQuiet(quietMs: 200, maxMs: 2_000)
        let idleBefore = pty.wakeups().voluntary
        usleep(UInt32(window) * 1_000_000)
        let idle = pty.wakeups().voluntary - idleBefore
        report.add(Figure(section: "12", name: "MQTT idle wake-ups (\(window) s)", value: Double(idle), unit: "wake-ups",
                          workload: "Benchmarks/mqtt.json connected to a quiet broker, \(window) s, all threads; a minute holds one keepalive ping and its answer, and the clock's minute",
                          target: window == 60 ? "≤ 3" : nil, met: window == 60 ? idle <= 3 : nil))
        pty.stop()
        // The same quiet broker beside a prometheus panel: idle with both engines.
        EngineIdleBench.measure(into: report, harness: harness, brokerPort: port, quick: quick)
    }

    private static func freePort() -> Int {
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

    /// `posix_spawn` with stdin, stdout and stderr on /dev/null.
    private static func spawn(_ arguments: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid: pid_t = 0
        let rc = withCleanSignals { posix_spawn(&pid, arguments[0], &actions, &$0, &argv, &environment) }
        return rc == 0 ? pid : nil
    }
}
