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
        .alerting { entry, options in (entry as? SystemEntry).flatMap { alert($0, options: (try? SystemOptions(options)) ?? SystemOptions()) } }
    }

    /// A warning while CPU or memory use is at or over its `alert…Percent`.
    static func alert(_ entry: SystemEntry, options: SystemOptions) -> EntryAlert? {
        var over: [String] = []
        // Clamped: a replayed entry's numbers are a file's (`Int` of NaN or 1e300 would trap).
        if let limit = options.alertCpuPercent, let cpu = entry.cpu, cpu.isFinite, cpu * 100 >= Double(limit) {
            over.append("CPU \(Int((min(cpu, 1) * 100).rounded()))% (alert at \(limit)%)")
        }
        if let limit = options.alertMemoryPercent, let memory = entry.memory, memory.total > 0 {
            let used = memory.usedFraction * 100
            if used >= Double(limit) { over.append("memory \(Int(used.rounded()))% (alert at \(limit)%)") }
        }
        return over.isEmpty ? nil : EntryAlert(level: .warning, text: over.joined(separator: ", "))
    }

    /// Most rows the sparkline takes.
    static let maximumSparklineRows = 8
    /// The least columns one core's bar takes (`cpu1 ███▌···  40%`).
    static let coreColumns = 18

    /// The entry, top to bottom: the meters (CPU, memory, swap), the files that could not be
    /// read with load and uptime, a bar per core in as many columns as the width holds, and
    /// the CPU sparkline along the bottom under a divider — a quarter of the height (at most
    /// 8 rows; a quiet machine's line is low, and the blank above it must stay small), scaled
    /// to 100 % so a quiet machine looks quiet, newest reading at the right edge. The rows
    /// left over are shared between the groups, so a tall panel has no blank band
    /// (DESIGN.md §9).
    static func view(_ entry: SystemEntry, context: WidgetViewContext) -> ViewNode {
        let (width, height) = (context.size.columns, context.size.rows)
        let (meters, facts) = Self.rows(entry, context: context)
        let top = meters.count + facts.count
        guard height > top else { return .vstack(meters + facts) }
        var left = height - top
        // Each group's nodes with the rows each takes.
        var groups: [[(node: ViewNode, rows: Int)]] = [meters.map { ($0, 1) }, facts.map { ($0, 1) }]
        // The sparkline first (it is what a glance looks for), then the cores in what is left.
        var sparkline: (node: ViewNode, rows: Int)?
        if !entry.history.isEmpty, !context.isPlaceholder {
            let rows = min(left, maximumSparklineRows, max(1, height / 4))
            // As the line fills up from the right: a spacer before it while readings are fewer
            // than the columns. Weights summing to the size give each part its exact length.
            let sparkWidth = min(width, entry.history.count)
            let line = ViewNode.sparkline(entry.history, maximum: 1)
            sparkline = (sparkWidth < width ? .hstack([.spacer, line], weights: [width - sparkWidth, sparkWidth]) : line, rows)
            left -= rows
        }
        let divider = sparkline != nil && left > 0
        if divider { left -= 1 }
        if !entry.cores.isEmpty, !context.isPlaceholder, left > 0 {
            let perRow = max(1, min(entry.cores.count, (width + 2) / (coreColumns + 2)))
            let cores = coreRows(entry.cores, perRow: perRow, room: left)
            groups.append(cores.map { ($0, 1) })
            left -= cores.count
        }
        if let sparkline { groups.append((divider ? [(.divider(role: .muted), 1)] : []) + [sparkline]) }
        groups.removeAll { $0.isEmpty }
        // The rows left over go between the groups (below a lone group), the first gaps taking one more.
        let gaps = max(1, groups.count - 1)
        var children: [ViewNode] = []
        var weights: [Int] = []
        for (index, group) in groups.enumerated() {
            if index > 0 {
                let share = left / gaps + (index - 1 < left % gaps ? 1 : 0)
                if share > 0 { children.append(.spacer); weights.append(share) }
            }
            for (node, rows) in group {
                children.append(node)
                weights.append(rows)
            }
        }
        if groups.count == 1, left > 0 {
            children.append(.spacer)
            weights.append(left)
        }
        return .vstack(children, weights: weights)
    }

    /// The rows above the cores: the meters (CPU, memory and swap bars; "Swap none" when the
    /// machine has none, outside the small family), and the files that could not be read with
    /// the load and uptime line.
    static func rows(_ entry: SystemEntry, context: WidgetViewContext) -> (meters: [ViewNode], facts: [ViewNode]) {
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
        if let memory = entry.memory, memory.swapTotal == 0, !small, !placeholder {
            rows.append(.text(pad("Swap", nameWidth) + " none", role: .muted))
        }
        var facts: [ViewNode] = entry.problems.prefix(4).map { .text($0, role: .negative) }
        var parts: [String] = []
        if let load = entry.load {
            parts.append(small ? "load \(decimal(load.one))"
                               : "load \(decimal(load.one)) \(decimal(load.five)) \(decimal(load.fifteen))")
        }
        if let uptime = entry.uptime { parts.append("up \(DurationText.duration(uptime))") }
        if !parts.isEmpty {
            let line = placeholder ? parts.map { String($0.prefix { $0 != " " }) + " --" } : parts
            if small {
                facts += line.map { .text($0, role: placeholder ? .placeholder : .muted) }
            } else {
                let pieces = line.dropFirst().flatMap { [ViewNode.Piece.glyph(.separator), .text($0)] }
                facts.append(.text([ViewNode.Span(line[0], pieces: pieces, role: placeholder ? .placeholder : .muted)]))
            }
        }
        return (rows, facts)
    }

    /// Per-core bars, `perRow` to a row, in at most `room` rows; when they do not all fit, the
    /// last row says how many more there are.
    static func coreRows(_ cores: [SystemEntry.CoreUsage], perRow: Int, room: Int) -> [ViewNode] {
        guard room >= 1 else { return [] }
        var shown = cores
        var more = 0
        if (cores.count + perRow - 1) / perRow > room {
            // The last row says how many are left out, when there are two rows or more.
            shown = Array(cores.prefix((room >= 2 ? room - 1 : room) * perRow))
            more = room >= 2 ? cores.count - shown.count : 0
        }
        let nameWidth = shown.map { "\($0.index)".count }.max() ?? 1
        var rows: [ViewNode] = []
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

    /// A meter at a warning or alarming level is accentable: the accented mode tints it.
    static func meterRow(name: String, fraction: Double, value: String, role: StyleRole) -> ViewNode {
        let alarming = role == .warning || role == .negative
        return .hstack([.text(name + " ", role: .muted), .bar(fraction, role: role, showsTrack: true).accentable(alarming),
                        .text(" " + value, role: role).accentable(alarming)])
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
