import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// The widget kinds of discovered extensions as catalogue definitions (`NAME/KIND`), each
/// bound to the extension's one `ExtensionHost`.
public enum ExtensionWidgets {
    /// One definition per kind of every extension the runtime holds, in manifest order.
    public static func definitions(_ runtime: ExtensionRuntime) -> [WidgetDefinition] {
        runtime.hosts.flatMap { host in
            host.manifest.widgets.map { widget in
                WidgetDefinition(manifest: widget.manifest) { binding in
                    host.bind(spawner: binding.services.io.processes, environment: binding.services.io.environment,
                              stateDirectory: binding.services.stateDirectory, sessions: binding.services.sessions)
                    return configuration(widget, host: host)
                }
            }
        }
    }

    /// The widget of `widget` served by `host`.
    public static func configuration(_ widget: ExtensionWidgetManifest, host: ExtensionHost) -> TerminalWidget {
        var configuration = TerminalWidget(
            manifest: widget.manifest,
            makeProvider: { options, environment in
                AnyTimelineProvider(ExtensionProvider(host: host, widget: widget, options: options, now: environment.now))
            },
            view: PanelView.typed { (entry: ExtensionEntry, _) in entry.view })
        // Its downloads' events go back to it (`sessionEvents`), launching it if need be.
        .onBackgroundSessionEvents(matching: { host.ownsSession($0) }) { identifier, completion in
            host.receiveEvents(identifier: identifier, completion: completion)
        }
        // Each declared key is an `action` request (`r` stays the host's reload).
        for action in widget.manifest.actions where action.key != WidgetAction.reloadKey {
            configuration = configuration.action(action.key) { context in
                let params = RPCMessage.object([
                    ("kind", .string(widget.kind)),
                    ("instance", .string(host.instanceName(kind: widget.kind, options: context.options))),
                    ("action", .string(action.key)),
                    ("options", RPCMessage.json(context.options)),
                ])
                do {
                    _ = try await host.request("action", params: params, userInitiated: true)
                } catch {
                    throw WidgetActionError("\(error)")
                }
            }
        }
        return configuration
    }

    /// Drawn while the first timeline loads when the manifest gives no placeholder.
    public static let defaultPlaceholder = ViewNode.vstack([
        .spacer, .text("…", role: .placeholder, alignment: .center), .spacer])
}
