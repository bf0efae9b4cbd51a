import FoundationEssentials
import Synchronization

/// What one `system` provider remembers between timelines: the previous reading (CPU use
/// is the difference of two) and the recent CPU fractions for the sparkline.
///
/// Timelines of one provider may overlap (a request that timed out, then its retry), and they
/// run on the provider pool's threads, so the state sits behind a lock; the proc files are
/// read before taking it.
final class SystemHistory: Sendable {
    /// Most CPU fractions kept: wider than any panel's sparkline.
    static let capacity = 240

    private struct State {
        var previous: SystemSample?
        var fractions: [Double] = []
    }

    private let state = Mutex(State())

    /// Whether a reading has been recorded (the next one measures CPU use).
    var hasPrevious: Bool { state.withLock { $0.previous != nil } }

    /// Compares `sample` with the reading before it, remembers it, and makes the entry for `date`.
    func record(_ sample: SystemSample, at date: Date) -> SystemEntry {
        state.withLock { state in
            var cpu: Double?
            var cores: [SystemEntry.CoreUsage] = []
            if let previous = state.previous {
                if let now = sample.cpu, let then = previous.cpu { cpu = now.usage(since: then) }
                let earlier = Dictionary(previous.cores.map { ($0.index, $0.times) }, uniquingKeysWith: { first, _ in first })
                cores = sample.cores.compactMap { core in
                    guard let then = earlier[core.index], let usage = core.times.usage(since: then) else { return nil }
                    return SystemEntry.CoreUsage(index: core.index, usage: usage)
                }
            }
            state.previous = sample
            if let cpu {
                state.fractions.append(cpu)
                if state.fractions.count > Self.capacity { state.fractions.removeFirst(state.fractions.count - Self.capacity) }
            }
            return SystemEntry(date: date, cpu: cpu, cores: cores, memory: sample.memory, load: sample.load,
                               uptime: sample.uptime, history: state.fractions, problems: sample.problems)
        }
    }
}
