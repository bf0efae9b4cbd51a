import ExtensionProtocol
import FoundationEssentials
import HostProcesses
import TerminalUI
import WidgetCore
import Widgets

/// The widget kinds of discovered extensions as catalogue definitions (`NAME/KIND`), each
/// bound to the extension's one `ExtensionHost`.
public enum ExtensionWidgets {
    /// One definition per kind of every extension the runtime holds, in manifest order. Each
    /// runs as the extension's process and may download in background sessions (DESIGN §7).
    public static func definitions(_ runtime: ExtensionRuntime) -> [WidgetDefinition] {
        runtime.hosts.flatMap { host in
            host.manifest.widgets.map { widget in
                WidgetDefinition(manifest: widget.manifest, uses: [.processes, .backgroundSessions]) { context in
                    // `.processes` is declared, so the context holds the host's spawner (its loop reaps).
                    host.bind(spawner: context.processes ?? ProcessSpawner(), environment: context.environment,
                              stateDirectory: context.stateDirectory, sessions: context.sessions)
                    return configuration(widget, host: host, now: context.now)
                }
                // Every extension's entries are views as data: one codec for them all.
                .entryType(ExtensionEntry.self, name: "extension")
            }
        }
    }

    /// The widget of `widget` served by `host`; its entries' times are read from `now` (the
    /// host's clock).
    public static func configuration(_ widget: ExtensionWidgetManifest, host: ExtensionHost,
                                     now: @escaping @Sendable () -> Date = { Date() }) -> TerminalWidget {
        var configuration = TerminalWidget(
            manifest: widget.manifest,
            makeProvider: { options in
                AnyTimelineProvider(ExtensionProvider(host: host, widget: widget, options: options, now: now))
            },
            view: PanelView.typed { (entry: ExtensionEntry, _) in entry.view })
        .alerting { entry, _ in (entry as? ExtensionEntry)?.alert }
        // Its downloads' events go back to it (`sessionEvents`), launching it if need be.
        .onBackgroundSessionEvents(matching: { host.ownsSession($0) }) { identifier, completion in
            host.receiveEvents(identifier: identifier, completion: completion)
        }
        // Each declared key is an `action` request (`r` stays the host's reload).
        for action in widget.manifest.actions where action.key != WidgetAction.reloadKey {
            configuration = configuration.action(action.key) { context in
                let params = RPCMessage.object([
                    (ActionParameter.kind.rawValue, .string(widget.kind)),
                    (ActionParameter.instance.rawValue, .string(host.instanceName(kind: widget.kind, options: context.options))),
                    (ActionParameter.action.rawValue, .string(action.key)),
                    (ActionParameter.options.rawValue, RPCMessage.json(context.options)),
                ])
                do {
                    _ = try await host.request(HostMethod.action.rawValue, params: params, userInitiated: true)
                } catch {
                    throw WidgetActionError("\(error)")
                }
            }
        }
        // Its `dynamic` options' picker asks it (`options`), with its usual request timeout.
        if widget.manifest.options.contains(where: \.dynamic) {
            configuration = configuration.dynamicOptions { query in
                let result = try await host.request(HostMethod.options.rawValue,
                                                    params: ExtensionOptionsDecoder.parameters(kind: widget.kind, query), userInitiated: true)
                do throws(ExtensionError) {
                    return try ExtensionOptionsDecoder.decode(result)
                } catch {
                    host.logBadAnswer(to: HostMethod.options.rawValue, instance: widget.kind, error)
                    throw error
                }
            }
        }
        return configuration
    }

    /// Drawn while the first timeline loads when the manifest gives no placeholder.
    public static let defaultPlaceholder = ViewNode.vstack([
        .spacer, .text("…", role: .placeholder, alignment: .center), .spacer])
}
