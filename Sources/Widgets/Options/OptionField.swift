import WidgetCore

/// One option of an `OptionSchema`: where its value is stored, and what the manifest says
/// of it. The default is the stored property's initial value in `Root()`.
public struct OptionField<Root: OptionSchema>: Sendable {
    /// The manifest's entry: name, type, required, default, doc, example.
    public let spec: OptionSpec
    let keyPath: PartialKeyPath<Root> & Sendable
    /// Stores a validated value; throws naming `path` when it is not of the field's type.
    let read: @Sendable (inout Root, WidgetOptions.Value, ConfigPath) throws -> Void

    /// An option of `type`, read as `Value`.
    ///
    /// - Parameter required: a panel must give it; it then has no default.
    public init<Value: OptionValue>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ name: String, _ type: OptionType,
                                    required: Bool = false, doc: String, example: String? = nil, dynamic: Bool = false) {
        spec = OptionSpec(name: name, type: type, required: required,
                          defaultValue: required ? nil : Root()[keyPath: keyPath].optionValue, doc: doc, example: example, dynamic: dynamic)
        self.keyPath = keyPath
        read = { root, value, path in
            guard let typed = Value(optionValue: value) else { throw OptionError("\(path): expected \(type.expectation)") }
            root[keyPath: keyPath] = typed
        }
    }

    /// An enumeration option: one of `Value`'s raw values.
    public init<Value: OptionChoice>(_ keyPath: WritableKeyPath<Root, Value> & Sendable, _ name: String,
                                     doc: String, example: String? = nil) {
        self.init(keyPath, name, .oneOf(Value.allCases.map(\.rawValue)), doc: doc, example: example)
    }

    /// A list of objects, each with the options of `Element` (`.objectList`); no default.
    public init<Element: OptionSchema>(_ keyPath: WritableKeyPath<Root, [Element]> & Sendable, _ name: String,
                                       objects: Element.Type, required: Bool = false, doc: String, example: String? = nil) {
        let type = OptionType.objectList(Element.specs)
        spec = OptionSpec(name: name, type: type, required: required, doc: doc, example: example)
        self.keyPath = keyPath
        read = { root, value, path in
            guard case .list(let items) = value else { throw OptionError("\(path): expected \(type.expectation)") }
            root[keyPath: keyPath] = try items.enumerated().map { index, item in
                guard case .object(let members) = item else {
                    throw OptionError("\(path.appending(index: index)): expected \(type.expectation)")
                }
                return try Element(WidgetOptions(members), at: path.appending(index: index))
            }
        }
    }
}
