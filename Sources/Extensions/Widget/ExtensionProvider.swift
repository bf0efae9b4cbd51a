import ExtensionProtocol
import FoundationEssentials
import JSONTree
import TerminalUI
import WidgetCore

/// The provider of one panel of an extension kind: asks the extension's process for a
/// timeline (`timeline` request) and reads the answer into entries whose views are data.
///
/// The placeholder comes from the manifest, so drawing it launches nothing.
struct ExtensionProvider: TimelineProvider {
    let host: ExtensionHost
    let widget: ExtensionWidgetManifest
    let options: WidgetOptions
    let instance: String
    let now: @Sendable () -> Date

    init(host: ExtensionHost, widget: ExtensionWidgetManifest, options: WidgetOptions, now: @escaping @Sendable () -> Date) {
        self.host = host
        self.widget = widget
        self.options = options
        self.now = now
        instance = host.instanceName(kind: widget.kind, options: options)
    }

    /// The extension's own `requestSeconds` and a little more: its timeout (logged, and what
    /// makes `r` relaunch a hung process) comes before the host's gives up on the call — with
    /// the host's 30 s first, a `requestSeconds` of 30 or more was never reached.
    var requestTimeout: TimeInterval? { Double(host.manifest.limits.requestSeconds) + 2 }

    func placeholder(in context: TimelineProviderContext) -> ExtensionEntry {
        ExtensionEntry(date: now(), view: widget.placeholder ?? ExtensionWidgets.defaultPlaceholder)
    }

    /// A `snapshot` request (same params as `timeline`, result `{entry}`); an extension that
    /// answers -32601 (method not found) gets a `timeline` request instead, whose first entry is
    /// the snapshot. A failure shows the placeholder, with the reason in `failure`.
    func snapshot(in context: TimelineProviderContext) async -> ExtensionEntry {
        do {
            return try await snapshotEntry(in: context)
        } catch {
            var entry = placeholder(in: context)
            entry.failure = error
            return entry
        }
    }

    func snapshotEntry(in context: TimelineProviderContext) async throws(ExtensionError) -> ExtensionEntry {
        let params = parameters(context)
        do {
            let result = try await host.request(HostMethod.snapshot.rawValue, params: params, userInitiated: context.isUserInitiated)
            return try logged("snapshot") { () throws(ExtensionError) in try ExtensionTimelineDecoder.decodeSnapshot(result) }
        } catch .remote(code: RPCMessage.methodNotFound, _) {
            let result = try await host.request(HostMethod.timeline.rawValue, params: params, userInitiated: context.isUserInitiated)
            guard let first = try logged("timeline", { () throws(ExtensionError) in try ExtensionTimelineDecoder.decode(result) }).entries.first else {
                throw .badAnswer("entries: a timeline with no entry cannot stand in for a snapshot")
            }
            return first
        }
    }

    func timeline(in context: TimelineProviderContext) async throws -> Timeline<ExtensionEntry> {
        let result = try await host.request(HostMethod.timeline.rawValue, params: parameters(context), userInitiated: context.isUserInitiated)
        return try logged("timeline") { () throws(ExtensionError) in try ExtensionTimelineDecoder.decode(result) }
    }

    /// `decode()`, with a bad answer's problems logged in full before it is thrown.
    private func logged<T>(_ method: String, _ decode: () throws(ExtensionError) -> T) throws(ExtensionError) -> T {
        do {
            return try decode()
        } catch {
            host.logBadAnswer(to: method, instance: instance, error)
            throw error
        }
    }

    /// `{kind, instance, family, size: {columns, rows}, options, isPreview, userInitiated, renderingMode}`.
    func parameters(_ context: TimelineProviderContext) -> JSONValue {
        RPCMessage.object([
            (TimelineParameter.kind.rawValue, .string(widget.kind)),
            (TimelineParameter.instance.rawValue, .string(instance)),
            (TimelineParameter.family.rawValue, .string(context.family.rawValue)),
            (TimelineParameter.size.rawValue, RPCMessage.object([(SizeParameter.columns.rawValue, .integer(context.size.columns)),
                                                                 (SizeParameter.rows.rawValue, .integer(context.size.rows))])),
            (TimelineParameter.options.rawValue, RPCMessage.json(options)),
            (TimelineParameter.isPreview.rawValue, .bool(context.isPreview)),
            (TimelineParameter.userInitiated.rawValue, .bool(context.isUserInitiated)),
            (TimelineParameter.renderingMode.rawValue, .string(context.renderingMode.rawValue)),
        ])
    }
}
