import ExtensionProtocol
import JSONTree
import Synchronization
import WidgetCore

/// The extensions of one host run: an `ExtensionHost` per discovered extension, the log they
/// write to, and the `WidgetCenter` their `reloadTimelines` notifications go through.
///
/// Made once from discovery (nothing is launched then); the dashboard sets `log` and `center`
/// before panels are built, resets failures on `R` and config reloads, and stops every
/// process when it quits.
public final class ExtensionRuntime: Sendable {
    /// What hosts share with the runtime.
    final class Shared: Sendable {
        let sink = Mutex<ExtensionLogSink>(.nowhere)
        let centerHolder = Mutex<WidgetCenter?>(nil)
        let debug: Bool
        let hostVersion: String
        /// Times every host's requests, idle exits, backoffs and shutdowns.
        let clock: any ExtensionClock

        init(debug: Bool, hostVersion: String, clock: any ExtensionClock) {
            self.debug = debug
            self.hostVersion = hostVersion
            self.clock = clock
        }

        var log: @Sendable (ExtensionLogLevel, String) -> Void {
            { [self] level, message in sink.withLock { $0 }.write(level, message) }
        }

        /// A request or notification from extension `name`.
        ///
        /// - Parameter cause: why the extension is at work now (its events answer a user's
        ///   reload): what its `reloadTimelines` carries to the scheduler.
        func incoming(extension name: String, kinds: [String], method: String, params: JSONValue?,
                      id: JSONValue?, cause: WidgetCenter.Cause? = nil) throws(ExtensionConnection.ProtocolViolation) -> String? {
            switch method {
            case ExtensionMethod.log.rawValue:
                guard case .object(let object)? = params, case .string(let message)? = object["message"] else {
                    throw .init("sent log without params.message")
                }
                var level = ExtensionLogLevel.info
                if case .string(let given)? = object["level"] {
                    level = given == "debug" ? .debug : given == "error" ? .error : .info
                }
                log(level, "\(name): \(RPCMessage.printable(message, limit: 1000))")
            case ExtensionMethod.reloadTimelines.rawValue:
                var kind: String?
                if case .object(let object)? = params, case .string(let given)? = object["kind"] {
                    kind = "\(name)/\(given)"
                    guard kinds.contains(kind!) else { throw .init("asked to reload kind '\(RPCMessage.printable(given, limit: 40))', which it does not declare") }
                }
                let center = centerHolder.withLock { $0 }
                for each in kind.map({ [$0] }) ?? kinds { center?.reloadTimelines(ofKind: each, cause: cause) }
            default:
                throw .init("called unknown method '\(RPCMessage.printable(method, limit: 40))'")
            }
            // A notification sent with an id gets an empty answer rather than none.
            if let id { return RPCMessage.result(id: id, RPCMessage.object([])) }
            return nil
        }
    }

    /// One host per extension found so far, in discovery order; a config reload adds the new
    /// ones and keeps removed ones (failing their requests) so their panels can say why.
    public var hosts: [ExtensionHost] { hostList.withLock { $0 } }
    private let hostList: Mutex<[ExtensionHost]>
    private let shared: Shared

    /// - Parameters:
    ///   - debug: log every message in both directions (`--debug`).
    ///   - hostVersion: sent in `initialize`.
    ///   - clock: what times the requests, idle exits and backoffs (tests pass a simulated one).
    public init(manifests: [ExtensionManifest], debug: Bool = false, hostVersion: String = "0",
                clock: any ExtensionClock = SystemExtensionClock()) {
        let shared = Shared(debug: debug, hostVersion: hostVersion, clock: clock)
        self.shared = shared
        hostList = Mutex(manifests.map { ExtensionHost(manifest: $0, runtime: shared) })
    }

    /// What `update` changed, by extension name.
    public struct Changes: Sendable, Equatable {
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
    }

    /// Takes the extensions a new discovery found (a config reload): a new one gets a host, a
    /// changed manifest replaces its host's (the process, if running, is stopped and the next
    /// request launches the new one), and one no longer found is marked removed with
    /// `removedReason(name)` — its panels show that. Their kinds get a reload through the
    /// `WidgetCenter`. Nothing is launched. Added and changed ones are logged; removed ones
    /// are the caller's to log (it knows whether a manifest is gone or was refused).
    @discardableResult
    public func update(_ manifests: [ExtensionManifest], removedReason: (String) -> String) -> Changes {
        var changes = Changes()
        let (kept, added) = hostList.withLock { hosts -> ([ExtensionHost], [ExtensionHost]) in
            var added: [ExtensionHost] = []
            for manifest in manifests where !hosts.contains(where: { $0.name == manifest.name }) {
                let host = ExtensionHost(manifest: manifest, runtime: shared)
                hosts.append(host)
                added.append(host)
            }
            return (hosts.filter { host in !added.contains { $0 === host } }, added)
        }
        changes.added = added.map(\.name)
        for host in kept {
            if let manifest = manifests.first(where: { $0.name == host.name }) {
                guard manifest != host.manifest || host.isRemoved else { continue }
                host.update(manifest: manifest)
                changes.changed.append(host.name)
            } else {
                let reason = removedReason(host.name)
                if !host.isRemoved { changes.removed.append(host.name) }
                host.markRemoved(reason)  // again when the reason changed (removed, then refused)
            }
        }
        let center = shared.centerHolder.withLock { $0 }
        for host in kept where changes.changed.contains(host.name) || changes.removed.contains(host.name) {
            for kind in host.manifest.widgets.map(\.manifest.kind) { center?.reloadTimelines(ofKind: kind) }
        }
        for name in changes.added + changes.changed {
            let what = changes.added.contains(name) ? "found" : "changed; restarted on next need"
            shared.log(.info, "\(name): \(what) at the config reload")
        }
        // Removed ones are logged by the caller, which knows a refused manifest from a gone one.
        return changes
    }

    /// No extensions.
    public static let empty = ExtensionRuntime(manifests: [])

    /// Where the hosts log (the host log; nowhere by default).
    public func setLog(_ log: @escaping @Sendable (ExtensionLogLevel, String) -> Void) {
        shared.sink.withLock { $0 = ExtensionLogSink(write: log) }
    }

    /// Where `reloadTimelines` notifications go.
    public func setCenter(_ center: WidgetCenter) {
        shared.centerHolder.withLock { $0 = center }
    }

    /// A line in the host log, as the extensions' own lines.
    public func log(_ level: ExtensionLogLevel, _ message: String) { shared.log(level, message) }

    public func host(named name: String) -> ExtensionHost? { hosts.first { $0.manifest.name == name } }

    /// Clears every failed state and backoff (`R`, a config reload).
    public func resetFailures() { hosts.forEach { $0.resetFailures() } }

    /// Stops every running extension (the host is quitting) and waits at most `graceSeconds`
    /// for them to end; what still runs then (it ignores SIGTERM) gets SIGKILL to its group, so
    /// no extension outlives the host.
    public func stopAll(graceSeconds: Double = 0.5) {
        let stopping = hosts.flatMap { $0.stopConnections(quitting: true) }
        let deadline = shared.clock.now + graceSeconds
        for connection in stopping {
            connection.killUnlessEnded(by: deadline, after: "\(graceSeconds) s")
        }
    }
}
