import WidgetCore

/// A widget's options, declared once as a struct: each stored property's initial value is the
/// option's default, and `fields` gives each one its name, type, doc and example. From it come
/// both the manifest's options (`specs`) and the typed value the widget's factory reads
/// (`init(_:)`), so no option name or default is written twice.
///
/// ```swift
/// struct ClockOptions: OptionSchema {
///     var timeZone = "local"
///     var seconds = false
///     static let fields: [OptionField<Self>] = [
///         OptionField(\.timeZone, "timeZone", .timeZone, doc: "IANA zone, UTC or local", example: "Europe/Paris"),
///         OptionField(\.seconds, "seconds", .bool, doc: "show seconds", example: "true"),
///     ]
/// }
/// ```
///
/// A required option's initial value is never read (decoding fails without it); an optional
/// property with no initial value is an option without a default.
public protocol OptionSchema: Sendable {
    /// Every option at its default.
    init()
    /// The options in the order the manifest lists them.
    static var fields: [OptionField<Self>] { get }
}

extension OptionSchema {
    /// The manifest's options.
    public static var specs: [OptionSpec] { fields.map(\.spec) }

    /// The name of the option stored at `keyPath`, for a manifest's `titleOption`,
    /// `exactlyOneOf` and `pushSourceOption`; empty (which `WidgetManifest.problems` reports)
    /// when no field stores there.
    public static func name(of keyPath: PartialKeyPath<Self>) -> String {
        fields.first { $0.keyPath == keyPath }?.spec.name ?? ""
    }

    /// The typed options of a panel: each option given in `options`, the rest at their default.
    ///
    /// `options` come checked by `OptionDecoder`; a value of the wrong type (options made by
    /// hand, in tests) or a missing required one is an error naming its key path under `path`
    /// (`fields[1].format: expected one of …`).
    public init(_ options: WidgetOptions, at path: ConfigPath = ConfigPath()) throws {
        self.init()
        for field in Self.fields {
            let fieldPath = path.appending(key: field.spec.name)
            if let value = options[field.spec.name] {
                try field.read(&self, value, fieldPath)
            } else if field.spec.required {
                throw OptionError("\(fieldPath): missing required option: \(field.spec.doc) (\(field.spec.type.expectation))")
            }
        }
    }
}
