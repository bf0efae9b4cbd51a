#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ExtensionProtocol

/// The one entry point that speaks the protocol (`WidgetBundle.main()`): reads the host's
/// lines on stdin (blocking, on the main thread: an idle extension wakes for nothing), answers
/// `initialize` and `shutdown` in order, and handles `timeline`, `snapshot`, `action` and
/// `sessionEvents` in tasks of their own, each answered by its id when done. Exits at EOF.
struct ExtensionRunner: Sendable {
    let widgets: [WidgetHandler]

    func run(arguments: [String]) -> Never {
        if arguments.count == 3, arguments[1] == "--placeholder" { printPlaceholder(kind: arguments[2]) }
        while let line = readLine(strippingNewline: true) {
            guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { continue }
            guard let message = JSON.parse(line), let id = message["id"] else { continue }  // not for us, or a notification
            guard let method = message["method"]?.string else {
                receiveAnswer(message, id: id)
                continue
            }
            let params = message["params"] ?? .object([])
            switch HostMethod(rawValue: method) {
            case .initialize?:
                Channel.shared.answer(id, result: ["protocol": .int(ExtensionProtocol.version)])
            case .shutdown?:
                Channel.shared.answer(id, result: [:])
                exit(0)
            case let known?:
                Task(executorPreference: JobThread.shared) { [self] in await handle(known, params: params, id: id) }
            case nil:
                Channel.shared.answer(id, code: RPCErrorCode.methodNotFound, message: "unknown method")
            }
        }
        exit(0)  // EOF: the host has gone, or closed our stdin after shutdown
    }

    private func receiveAnswer(_ message: JSON, id: JSON) {
        guard let number = id.int else { return }
        if let result = message["result"] {
            _ = Channel.shared.deliver(id: number, .success(result))
        } else {
            let code = message["error"]?["code"]?.int ?? 0
            _ = Channel.shared.deliver(id: number, .failure(RemoteError(code: code, message["error"]?["message"]?.string ?? "")))
        }
    }

    private func handle(_ method: HostMethod, params: JSON, id: JSON) async {
        switch method {
        case .timeline, .snapshot:
            guard let (widget, context) = request(params) else {
                return Channel.shared.answer(id, code: RPCErrorCode.invalidParams, message: "no such kind, or params without kind and family")
            }
            Channel.shared.answer(id, result: method == .timeline ? await widget.timeline(context) : await widget.snapshot(context))
        case .action:
            let kind = params[ActionParameter.kind.rawValue]?.string
            let key = params[ActionParameter.action.rawValue]?.string ?? ""
            guard let widget = widgets.first(where: { $0.kind == kind }),
                  let action = widget.actions.first(where: { $0.key == key }) ?? widget.actions.first(where: { $0.key == nil }) else {
                return Channel.shared.answer(id, code: 1, message: "no action '\(key)'")
            }
            let context = ActionContext(key: key, instance: params[ActionParameter.instance.rawValue]?.string ?? "",
                                        options: Options(params[ActionParameter.options.rawValue] ?? [:]))
            do {
                try await action.perform(context)
                Channel.shared.answer(id, result: [:])
            } catch let error as RemoteError {
                Channel.shared.answer(id, code: error.code, message: error.message)
            } catch {
                Channel.shared.answer(id, code: 1, message: "\(error)")
            }
        case .sessionEvents:
            let identifier = params[SessionEventsParameter.identifier.rawValue]?.string ?? ""
            var events: [SessionEvent] = []
            if case .array(let items)? = params[SessionEventsParameter.events.rawValue] { events = items.compactMap(SessionEvent.init) }
            for widget in widgets {
                for session in widget.sessions where session.matching(identifier) { await session.handle(identifier, events) }
            }
            Channel.shared.answer(id, result: [:])
        case .options:
            let kind = params[OptionsParameter.kind.rawValue]?.string
            guard let widget = widgets.first(where: { $0.kind == kind }) else {
                return Channel.shared.answer(id, code: RPCErrorCode.invalidParams, message: "no such kind")
            }
            switch await widget.optionsResult(params) {
            case .success(let result): Channel.shared.answer(id, result: result)
            case .failure(let error): Channel.shared.answer(id, code: error.code, message: error.message)
            }
        case .initialize, .shutdown:
            break  // answered in order by `run`
        }
    }

    /// The kind and the context of a `timeline` or `snapshot` request.
    private func request(_ params: JSON) -> (WidgetHandler, TimelineProviderContext)? {
        guard let kind = params[TimelineParameter.kind.rawValue]?.string, let widget = widgets.first(where: { $0.kind == kind }),
              let family = params[TimelineParameter.family.rawValue]?.string.flatMap(WidgetFamily.init(rawValue:)) else { return nil }
        let size = params[TimelineParameter.size.rawValue]
        let context = TimelineProviderContext(
            family: family,
            displaySize: (size?[SizeParameter.columns.rawValue]?.int ?? 0, size?[SizeParameter.rows.rawValue]?.int ?? 0),
            isPreview: params[TimelineParameter.isPreview.rawValue]?.bool ?? false,
            isUserInitiated: params[TimelineParameter.userInitiated.rawValue]?.bool ?? false,
            options: Options(params[TimelineParameter.options.rawValue] ?? [:]),
            instance: params[TimelineParameter.instance.rawValue]?.string ?? "",
            renderingMode: params[TimelineParameter.renderingMode.rawValue]?.string.flatMap(WidgetRenderingMode.init(rawValue:)) ?? .fullColor)
        return (widget, context)
    }

    /// `--placeholder KIND`: the kind's placeholder view, for the manifest's `placeholder`.
    private func printPlaceholder(kind: String) -> Never {
        guard let widget = widgets.first(where: { $0.kind == kind }) else {
            let text = Array("no kind '\(kind)'; kinds: \(widgets.map(\.kind).joined(separator: ", "))\n".utf8)
            _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            exit(2)
        }
        print(widget.placeholder(TimelineProviderContext(family: .small, displaySize: (22, 7), isPreview: true)).text)
        exit(0)
    }
}
