import ExtensionProtocol
import JSONTree
import WidgetCore

/// The `options` check of `widgethost extension test`: a kind with a `dynamic` option is asked
/// for its items, as the Edit Widget form's picker asks (an empty query, the default options).
extension ExtensionConformance {
    func optionsCheck(_ kind: Kind, option: String) async -> ConformanceCheck {
        let name = "options \(kind.widget.kind) '\(option)'"
        let rule = ConformanceRule.options
        let params = ExtensionOptionsDecoder.parameters(kind: kind.widget.kind,
                                                        DynamicOptionsQuery(option: option, query: "", options: kind.options))
        let before = host.status
        do {
            let result = try await host.request(HostMethod.options.rawValue, params: params, userInitiated: true)
            let items = try ExtensionOptionsDecoder.decode(result)
            var given = items.count
            if case .object(let object) = result, case .array(let all)? = object[OptionsResultMember.items.rawValue] { given = all.count }
            let first = items.first.map { ", the first \(JSONValue.string($0.title).shortDescription)" } ?? ""
            let kept = given > items.count ? " (the picker shows the first \(items.count))" : ""
            return ConformanceCheck(name: name, passed: true, detail: "\(given) items\(first)\(kept)", rule: rule)
        } catch .remote(let code, let message) where code != RPCMessage.methodNotFound {
            // An error answer is shown in the picker (no board yet, say): allowed.
            return ConformanceCheck(name: name, passed: true,
                                    detail: "answered error \(code): \(RPCMessage.printable(message, limit: 120)) (the picker shows it)",
                                    rule: rule)
        } catch .remote(_, _) {
            return ConformanceCheck(name: name, passed: false,
                                    detail: "answered -32601 (method not found), but '\(option)' is marked \"dynamic\"", rule: rule)
        } catch {
            return failed(name, error, rule: rule, since: before)
        }
    }
}
