// widgethost-bench: measures WidgetHost against its performance targets (README "Performance").
// Run it in release: `swift run -c release widgethost-bench [--quick] [--json PATH] [--only N,N]`.
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: widgethost-bench [--quick] [--json PATH] [--only SECTIONS] [--benchmarks DIR]

Measures WidgetHost against its targets and prints a table (README "Performance"):
  1 scheduler events/s    2 render+diff frames/s   3 terminal bytes (real widgethost in a pty)
  4 idle wake-ups, CPU, bytes over 60 s            5 loopback requests/s, `r` → screen latency
  6 start-up to first frame, peak RSS              7 display width and sanitising throughput
  8 cost per fetch (wake-ups by thread, disk, fsyncs for a 200 and a 304), memory by mapping
  9 push event → screen, `+` (heal) → screen
 10 extensions: launch → first entry, warm `r` → screen, idle wake-ups running and stopped
 11 the deepest view the limits allow: layout and drawing time
 12 MQTT (the real mosquitto): publish → screen, wake-ups per message, idle wake-ups
 13 pages: a switch key → frame, wake-ups with a seconds clock on a hidden page
 14 scale: 12, 24 and 48 panels at 300x100 — wake-ups against what they need, CPU, peak RSS,
    memory per extension process, frame time
 15 Live Activities: `activity update` → screen, idle wake-ups with the control socket open

  --quick            shorter runs (a smoke test; the idle run lasts 15 s instead of 60 s)
  --json PATH        also write the figures as JSON
  --only SECTIONS    e.g. --only 1,7 (sections 4 and 6's RSS run together)
  --benchmarks DIR   the pinned configs (default: ./Benchmarks)

Build in release (`swift build -c release`): the terminal figures run the `widgethost`
binary found next to this one.
"""

var quick = false
var jsonPath: String?
var only: Set<String>?
var benchmarks = "Benchmarks"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--quick": quick = true
    case "--json":
        guard let value = arguments.popFirst() else { printError("widgethost-bench: --json needs a path\n"); exit(2) }
        jsonPath = value
    case "--only":
        guard let value = arguments.popFirst() else { printError("widgethost-bench: --only needs sections\n"); exit(2) }
        only = Set(value.split(separator: ",").map(String.init))
    case "--benchmarks":
        guard let value = arguments.popFirst() else { printError("widgethost-bench: --benchmarks needs a directory\n"); exit(2) }
        benchmarks = value
    default:
        printError("widgethost-bench: unknown argument \(argument)\n\(usage)\n")
        exit(2)
    }
}
@MainActor func wanted(_ section: String) -> Bool { only?.contains(section) ?? true }

signal(SIGPIPE, SIG_IGN)
#if DEBUG
print("note: a debug build; figures are meaningful only in release (swift run -c release widgethost-bench)")
#endif
let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
let load = ProcFiles.read("/proc/loadavg")?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
print("widgethost-bench\(quick ? " --quick" : ""): \(cores) cores, load average \(load)")
print(Report.header)

let report = Report()
if wanted("1") { SchedulerBench.measure(into: report, quick: quick) }
if wanted("7") { TextBench.measure(into: report, quick: quick) }
if wanted("11") { ViewLayoutBench.measure(into: report, quick: quick) }

let needsHarness = ["2", "3", "4", "5", "6", "8", "9", "10", "12", "13", "14", "15"].contains(where: wanted)
if needsHarness {
    do {
        let harness = try Harness(benchmarks: benchmarks)
        if access(harness.widgethost, X_OK) != 0 {
            report.notes.append("no widgethost binary at \(harness.widgethost): build it (swift build -c release)")
        }
        if wanted("2") { await RenderBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("5") { NetworkBench.measure(into: report, harness: harness, duration: quick ? 0.5 : 2) }
        if wanted("3") || wanted("5") || wanted("6") { TerminalBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("9") {
            PushBench.measure(into: report, harness: harness, quick: quick)
            HealBench.measure(into: report, harness: harness, quick: quick)
        }
        if wanted("4") || wanted("6") { IdleBench.measure(into: report, harness: harness, duration: quick ? 15 : 60) }
        if wanted("8") { FetchCostBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("10") { ExtensionBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("12") { MQTTBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("13") { PageBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("14") { ScaleBench.measure(into: report, harness: harness, quick: quick) }
        if wanted("15") { ActivityBench.measure(into: report, harness: harness, quick: quick) }
        harness.close()
    } catch {
        report.notes.append("cannot start the loopback leaderboard server: \(error)")
    }
}
for note in report.notes { print("note: \(note)") }

if let jsonPath {
    let machine = ["cores": String(cores), "loadAverage": load, "quick": String(quick)]
    let bytes = report.json(environment: machine)
    guard FileManager.default.createFile(atPath: jsonPath, contents: Data(bytes)) else {
        printError("widgethost-bench: cannot write \(jsonPath)\n")
        exit(1)
    }
}
if !report.notes.isEmpty {
    // A figure that could not be measured is a failed run, not a shorter table.
    fflushStdout()
    printError("widgethost-bench: \(report.notes.count) note\(report.notes.count == 1 ? "" : "s") above: some figures were not measured\n")
    exit(1)
}
