import FoundationEssentials
import TerminalUI
import WidgetHost

/// Figure 2: a 200x60 frame of Benchmarks/render-12.json (12 panels: 2 leaderboards, 4 clocks
/// with seconds, 6 hero cards, with the loopback server's board) drawn into the `CellBuffer` by
/// the dashboard's own `render()` (real widget views) and diffed with `changes(since:)` against
/// the previous frame; the dashboard's clock moves one second per frame.
enum RenderBench {
    @MainActor
    static func measure(into report: Report, harness: Harness, quick: Bool) async {
        let size = TerminalSize(columns: 200, rows: 60)
        let opened = HeadlessDashboard.open(catalog: .builtin(), configPath: harness.config("render-12.json"), size: size, now: Date())
        guard case .success(let dashboard) = opened else {
            if case .failure(let output) = opened { report.notes.append("2: \(output.standardError)") }
            return
        }
        defer { dashboard.close() }
        guard await dashboard.settle(within: 5) else {
            report.notes.append("2: the widgets did not have their data after 5 s")
            return
        }
        var previous = dashboard.render()
        var frames = 0, runs = 0, cells = 0
        let duration = quick ? 0.5 : 3.0
        var busy: UInt64 = 0
        let start = monotonicNanos()
        while seconds(since: start) < duration && frames < 3_000 {
            dashboard.advance(by: 1)
            let t0 = monotonicNanos()
            let frame = dashboard.render()
            let changes = frame.changes(since: previous)
            busy += monotonicNanos() - t0
            runs += changes.count
            cells += changes.reduce(0) { $0 + $1.cells.count }
            previous = frame
            frames += 1
            await Task.yield()  // let provider answers (clock reloads) arrive as they would
        }
        let fps = Double(frames) / (Double(busy) / 1e9)
        report.add(Figure(section: "2", name: "render+diff 200x60, 12 panels", value: fps, unit: "frames/s",
                          workload: "Benchmarks/render-12.json (\(dashboard.panelCount) panels), Dashboard.render() + CellBuffer.changes(since:), clock +1 s per frame; \(frames) frames, avg \(runs / max(frames, 1)) runs / \(cells / max(frames, 1)) cells changed",
                          target: nil, met: nil))
    }
}
