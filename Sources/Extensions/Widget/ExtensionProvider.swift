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

    func placeholder(in context: TimelineProviderContext) -> ExtensionEntry {
        ExtensionEntry(date: now(), view: widget.placeholder ?? ExtensionWidgets.defaultPlaceholder)
    }

    func snapshot(in context: TimelineProviderContext) async -> ExtensionEntry {
        let timeline = try? await timeline(in: context)
        let current = timeline?.entries.last { $0.date <= now() } ?? timeline?.entries.first
        return current ?? placeholder(in: context)
    }

    func timeline(in context: TimelineProviderContext) async throws -> Timeline<ExtensionEntry> {
        let result = try await host.request("timeline", params: parameters(context), userInitiated: context.isUserInitiated)
        return try ExtensionTimelineDecoder.decode(result)
    }

    /// `{kind, instance, family, size: {columns, rows}, options, isPreview, userInitiated}`.
    func parameters(_ context: TimelineProviderContext) -> JSONValue {
        RPCMessage.object([
            ("kind", .string(widget.kind)),
            ("instance", .string(instance)),
            ("family", .string(context.family.rawValue)),
            ("size", RPCMessage.object([("columns", .integer(context.size.columns)), ("rows", .integer(context.size.rows))])),
            ("options", RPCMessage.json(options)),
            ("isPreview", .bool(context.isPreview)),
            ("userInitiated", .bool(context.isUserInitiated)),
        ])
    }
}
