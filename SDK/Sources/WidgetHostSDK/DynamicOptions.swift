import ExtensionProtocol

/// What the Edit Widget form's picker asks for one option marked `"dynamic": true` in the
/// manifest (the `options` request, docs/extensions.md; AppIntents' `DynamicOptionsProvider`).
public struct OptionsQuery: Sendable {
    /// The option's name.
    public var option: String
    /// What the user typed (empty: offer what you have).
    public var query: String
    /// The panel's options as the form has them (no defaults filled).
    public var options: Options
}

/// One value the picker offers: `value` goes in the config, `title` (and `subtitle`) is listed.
public struct OptionItem: Sendable, Equatable {
    public var value: String
    public var title: String
    public var subtitle: String?

    public init(value: String, title: String? = nil, subtitle: String? = nil) {
        self.value = value
        self.title = title ?? value
        self.subtitle = subtitle
    }
}

extension StaticConfiguration {
    /// Answers the picker of `option` (mark it `"dynamic": true` in the manifest): the items
    /// matching `query.query`. Throwing answers with an error, shown in the picker.
    public func onOptions(_ option: String, _ provide: @escaping @Sendable (OptionsQuery) async throws -> [OptionItem]) -> Self {
        var copy = self
        copy.handler.options[option] = provide
        return copy
    }
}

extension WidgetHandler {
    /// The `options` result for `params` (`{items}`), or the error to answer.
    func optionsResult(_ params: JSON) async -> Result<JSON, RemoteError> {
        let option = params[OptionsParameter.option.rawValue]?.string ?? ""
        guard let provide = options[option] else {
            return .failure(RemoteError(code: RPCErrorCode.methodNotFound, "no dynamic option '\(option)'"))
        }
        let query = OptionsQuery(option: option, query: params[OptionsParameter.query.rawValue]?.string ?? "",
                                 options: Options(params[OptionsParameter.options.rawValue] ?? [:]))
        do {
            let items = try await provide(query).prefix(200).map { item -> JSON in
                var members: [(String, JSON)] = [(OptionItemMember.value.rawValue, .string(item.value)),
                                                 (OptionItemMember.title.rawValue, .string(item.title))]
                if let subtitle = item.subtitle { members.append((OptionItemMember.subtitle.rawValue, .string(subtitle))) }
                return .object(members)
            }
            return .success(.object([(OptionsResultMember.items.rawValue, .array(Array(items)))]))
        } catch let error as RemoteError {
            return .failure(error)
        } catch {
            return .failure(RemoteError("\(error)"))
        }
    }
}
