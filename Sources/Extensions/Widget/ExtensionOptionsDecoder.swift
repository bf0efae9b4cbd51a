import ExtensionProtocol
import JSONTree
import WidgetCore
import Widgets

/// Reads an extension's answer to `options` (`{items: [{value, title, subtitle?}]}`,
/// docs/extensions.md): its first `DynamicOptions.maximumItems` items, each checked, then
/// bounded as every provider's (`DynamicOptionsBounds`). A wrong shape is a `.badAnswer`
/// naming the first problem's path.
enum ExtensionOptionsDecoder {
    static func decode(_ result: JSONValue) throws(ExtensionError) -> [DynamicOptionItem] {
        let itemsKey = OptionsResultMember.items.rawValue
        guard case .object(let object) = result, case .array(let elements)? = object[itemsKey] else {
            throw .badAnswer("\(itemsKey): expected an array of {value, title, subtitle?}, found \(Self.found(result, itemsKey))")
        }
        var items: [DynamicOptionItem] = []
        for (index, element) in elements.prefix(DynamicOptions.maximumItems).enumerated() {
            let at = "\(itemsKey)[\(index)]"
            guard case .object(let item) = element else { throw .badAnswer("\(at): expected an object, found \(element.shortDescription)") }
            guard case .string(let value)? = item[OptionItemMember.value.rawValue], DynamicOptionsBounds.isValue(value) else {
                throw .badAnswer("\(at).value: expected a non-empty printable string")
            }
            guard case .string(let title)? = item[OptionItemMember.title.rawValue] else {
                throw .badAnswer("\(at).title: expected a string")
            }
            var subtitle: String?
            switch item[OptionItemMember.subtitle.rawValue] {
            case nil, .null?: break
            case .string(let text)?: subtitle = text
            case let other?: throw .badAnswer("\(at).subtitle: expected a string, found \(other.shortDescription)")
            }
            items.append(DynamicOptionItem(value: value, title: title, subtitle: subtitle))
        }
        return DynamicOptionsBounds.bounded(items)
    }

    private static func found(_ result: JSONValue, _ key: String) -> String {
        guard case .object(let object) = result else { return result.shortDescription }
        return object[key]?.shortDescription ?? "no '\(key)'"
    }

    /// The `options` params: `{kind, option, query, options}`.
    static func parameters(kind: String, _ query: DynamicOptionsQuery) -> JSONValue {
        RPCMessage.object([
            (OptionsParameter.kind.rawValue, .string(kind)),
            (OptionsParameter.option.rawValue, .string(query.option)),
            (OptionsParameter.query.rawValue, .string(query.query)),
            (OptionsParameter.options.rawValue, RPCMessage.json(query.options)),
        ])
    }
}
