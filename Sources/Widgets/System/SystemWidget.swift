import FoundationEssentials
import TerminalUI
import WidgetCore

/// The `system` widget: CPU use (total, and per core in large and extraLarge), memory and
/// swap, load averages, uptime and a sparkline of recent CPU use, read from the host's proc
/// file system.
///
/// Options: `intervalSeconds` (default 2).
public enum SystemWidget {
    public static let kind = "system"

    /// The widget reading the proc file system at `context.proc` (the host's `FileRoots.proc`).
    public static func configuration(context: WidgetContext = .none) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try SystemOptions(options)
                return AnyTimelineProvider(SystemProvider(root: context.proc, interval: TimeInterval(options.intervalSeconds), now: context.now))
            },
            view: PanelView.typed(view)
        )
    }

    /// Most rows the sparkline takes.
    static let maximumSparklineRows = 4

    /// The entry: rows of text and bars (`rows`), then the CPU sparkline at the bottom of the
    /// rows left below them (at most 4), the newest reading at the right edge, scaled to 100 %
    /// so a quiet machine looks quiet.
    static func view(_ entry: SystemEntry, context: WidgetViewContext) -> ViewNode {
        let (node, rows) = Self.rows(entry, context: context)
        let (width, height) = (context.size.columns, context.size.rows)
        guard height > rows else { return node }
        let left = height - rows
        guard !entry.history.isEmpty, !context.isPlaceholder else {
            // The rows keep exactly their own height.
            return .vstack([node, .spacer], weights: [rows, left])
        }
        let sparkRows = min(left, maximumSparklineRows)
        // As the line fills up from the right: a spacer before it while readings are fewer
        // than the columns. Weights summing to the size give each part its exact length.
        let sparkWidth = min(width, entry.history.count)
        let sparkline = ViewNode.sparkline(entry.history, maximum: 1)
        let line: ViewNode = sparkWidth < width ? .hstack([.spacer, sparkline], weights: [width - sparkWidth, sparkWidth]) : sparkline
        return left > sparkRows ? .vstack([node, .spacer, line], weights: [rows, left - sparkRows, sparkRows])
                                : .vstack([node, line], weights: [rows, sparkRows])
    }

    /// The rows above the sparkline and how many there are: CPU, memory and swap bars, the
    /// files that could not be read, load and uptime, then the cores (large and extraLarge).
    static func rows(_ entry: SystemEntry, context: WidgetViewContext) -> (ViewNode, Int) {
        let placeholder = context.isPlaceholder
        let small = context.family == .small
        var meters: [(name: String, fraction: Double, value: String)] = []
        meters.append(("CPU", entry.cpu ?? 0, entry.cpu.map(percent) ?? "…"))
        if let memory = entry.memory {
            meters.append(("Mem", memory.usedFraction,
                           small ? percent(memory.usedFraction) : "\(ByteCountText.compact(memory.used))/\(ByteCountText.compact(memory.total))"))
            if memory.swapTotal > 0 {
                meters.append(("Swap", memory.swapUsedFraction,
                               small ? percent(memory.swapUsedFraction) : "\(ByteCountText.compact(memory.swapUsed))/\(ByteCountText.compact(memory.swapTotal))"))
            }
        }
        let nameWidth = 4
        let valueWidth = meters.map { $0.value.count }.max() ?? 0
        var rows: [ViewNode] = meters.map { meter in
            let value = placeholder ? String(repeating: "-", count: valueWidth) : meter.value
            return meterRow(name: pad(meter.name, nameWidth), fraction: placeholder ? 0 : meter.fraction,
                            value: String(repeating: " ", count: max(0, valueWidth - value.count)) + value,
                            role: placeholder ? .placeholder : role(for: meter.fraction))
        }
        if !entry.problems.isEmpty {
            rows += entry.problems.prefix(4).map { .text($0, role: .negative) }
        }
        var facts: [String] = []
        if let load = entry.load {
            facts.append(small ? "load \(decimal(load.one))"
                               : "load \(decimal(load.one)) \(decimal(load.five)) \(decimal(load.fifteen))")
        }
        if let uptime = entry.uptime { facts.append("up \(DurationText.duration(uptime))") }
        if !facts.isEmpty {
            let line = placeholder ? facts.map { String($0.prefix { $0 != " " }) + " --" } : facts
            if small {
                rows += line.map { .text($0, role: placeholder ? .placeholder : .muted) }
            } else {
                let pieces = line.dropFirst().flatMap { [ViewNode.Piece.glyph(.separator), .text($0)] }
                rows.append(.text([ViewNode.Span(line[0], pieces: pieces, role: placeholder ? .placeholder : .muted)]))
            }
        }
        if context.family == .large || context.family == .extraLarge, !entry.cores.isEmpty, !placeholder {
            rows += coreRows(entry.cores, perRow: context.family == .large ? 2 : 4,
                             room: context.size.rows - rows.count - 2)
        }
        return (.vstack(rows), rows.count)
    }

    /// Per-core bars, `perRow` to a row, in at most `room` rows (a blank row first); when
    /// they do not all fit, the last row says how many more there are.
    static func coreRows(_ cores: [SystemEntry.CoreUsage], perRow: Int, room: Int) -> [ViewNode] {
        guard room >= 2 else { return [] }
        var shown = cores
        var more = 0
        if (cores.count + perRow - 1) / perRow > room - 1 {
            shown = Array(cores.prefix((room - 2) * perRow))
            more = cores.count - shown.count
        }
        let nameWidth = shown.map { "\($0.index)".count }.max() ?? 1
        var rows: [ViewNode] = [.text("")]
        var index = 0
        while index < shown.count {
            let cells = shown[index..<min(index + perRow, shown.count)].map { core in
                meterRow(name: "cpu" + pad("\(core.index)", nameWidth), fraction: core.usage,
                         value: String(repeating: " ", count: 4 - percent(core.usage).count) + percent(core.usage),
                         role: role(for: core.usage))
            }
            let padding = Array(repeating: ViewNode.spacer, count: perRow - cells.count)
            rows.append(.hstack(cells + padding, gap: 2, weights: Array(repeating: 1, count: perRow)))
            index += perRow
        }
        if more > 0 { rows.append(.text("+\(more) more cores", role: .muted)) }
        return rows
    }

    static func meterRow(name: String, fraction: Double, value: String, role: StyleRole) -> ViewNode {
        .hstack([.text(name + " ", role: .muted), .bar(fraction, role: role), .text(" " + value, role: role)])
    }

    /// Calm up to 70 %, a warning to 90 %, alarming above.
    static func role(for fraction: Double) -> StyleRole {
        fraction >= 0.9 ? .negative : fraction >= 0.7 ? .warning : .positive
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// "0%" … "100%", rounded; any input (NaN counts as 0).
    static func percent(_ fraction: Double) -> String {
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        return "\(Int((clamped * 100).rounded()))%"
    }

    /// "0.52", "12.3", "140": two or three significant figures; input already bounded.
    static func decimal(_ value: Double) -> String {
        let clamped = value.isFinite ? min(max(0, value), 1_000_000) : 0
        if clamped < 10 { return fixed(clamped, digits: 2) }
        if clamped < 100 { return fixed(clamped, digits: 1) }
        return "\(Int(clamped.rounded()))"
    }

    /// `value` (0…1e6) with `digits` decimals.
    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        let fraction = "\(scaled % scale)"
        return "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
