/// Everything a host needs to know about a widget kind before it runs it, declared once next
/// to the widget's provider (DESIGN §6): the catalogue, `widgethost widgets`, `check-config`,
/// `preview` and `--help` are all derived from it.
///
/// ```swift
/// static let manifest = WidgetManifest(
///     kind: "clock", displayName: "Clock", description: "The time in a time zone.",
///     supportedFamilies: WidgetFamily.allCases, defaultFamily: .small,
///     options: [OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false),
///                          doc: "show seconds", example: "true")],
///     pausesWithAutomaticReloads: false, usesNetwork: false)
/// ```
public struct WidgetManifest: Sendable, Equatable {
    /// Stable identifier used in configs and by `WidgetCenter.reloadTimelines(ofKind:)`.
    public var kind: String
    public var displayName: String
    /// One sentence for `widgethost widgets`.
    public var description: String
    public var supportedFamilies: [WidgetFamily]
    /// The family of a panel that names none.
    public var defaultFamily: WidgetFamily
    public var options: [OptionSpec]
    /// The option whose value names a panel that has no `title` (a hero's `name`, a clock's
    /// `timeZone`); nil: the display name.
    public var titleOption: String?
    /// False for a widget whose timelines are computed locally (a clock): its reloads go on
    /// while the user pauses automatic reloads with `p`.
    public var pausesWithAutomaticReloads: Bool
    /// Whether the widget's reloads do network work. Only those count against the daily
    /// reload budget; the scheduler treats a widget that neither uses the network nor pauses
    /// as computed locally (`pausable: false`).
    public var usesNetwork: Bool
    /// Keys the widget answers to on its focused panel; the status bar and `?` list them.
    public var actions: [WidgetAction]
    /// The name of the option holding the URL the widget's updates are pushed from
    /// (the leaderboard's `push`); nil: no push.
    public var pushSourceOption: String?
    /// Groups of options of which a panel must give exactly one (`command` or `argv`); the
    /// config's errors name the group. Their options have no default and are not `required`.
    public var exactlyOneOf: [[String]]
    /// The provider is cheap and never blocks (it reads a few `/proc` files): the host computes
    /// its timelines on its loop thread, which is awake anyway when the reload is due, instead
    /// of waking a provider thread — one wake-up per reload instead of two. Built-ins only.
    public var runsOnLoop: Bool = false

    public init(kind: String, displayName: String, description: String,
                supportedFamilies: [WidgetFamily] = WidgetFamily.allCases, defaultFamily: WidgetFamily,
                options: [OptionSpec] = [], titleOption: String? = nil,
                pausesWithAutomaticReloads: Bool = true, usesNetwork: Bool = true,
                actions: [WidgetAction] = [], pushSourceOption: String? = nil, exactlyOneOf: [[String]] = [],
                runsOnLoop: Bool = false) {
        self.kind = kind
        self.displayName = displayName
        self.description = description
        self.supportedFamilies = supportedFamilies
        self.defaultFamily = defaultFamily
        self.options = options
        self.titleOption = titleOption
        self.pausesWithAutomaticReloads = pausesWithAutomaticReloads
        self.usesNetwork = usesNetwork
        self.actions = actions
        self.pushSourceOption = pushSourceOption
        self.exactlyOneOf = exactlyOneOf
        self.runsOnLoop = runsOnLoop
    }

    /// The option named `name`, if the kind has one.
    public func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The scheduler's `pausable`: a widget is paused by `p` and counted by the daily budget
    /// unless it is computed locally (it neither pauses nor uses the network).
    public var isPausable: Bool { pausesWithAutomaticReloads || usesNetwork }
}

/// A key a widget answers to on its focused panel (WidgetKit's interactive widgets' intents).
///
/// The manifest declares it; the widget's `WidgetConfiguration.actionPerformers` say how it is
/// performed. Key `r` is special: it is the host's own "reload the focused panel", and a widget
/// may only give it a title (the command widget's "run now").
public struct WidgetAction: Sendable, Equatable {
    /// One printable character (`+`, `e`), not one of the host's own keys (`r` excepted, above).
    public var key: String
    /// What it does, for the status bar and the key help (`heal the hero`).
    public var title: String
    /// How long a perform may take before it fails as "timed out".
    public var timeoutSeconds: Double

    public init(key: String, title: String, timeoutSeconds: Double = 10) {
        self.key = key
        self.title = title
        self.timeoutSeconds = timeoutSeconds
    }

    /// The host's own keys, which no action may take (`r` may be titled, see above).
    public static let reservedKeys: Set<String> = ["q", "?", "h", "j", "k", "l", "r", "R", "t", "p", "P", "[", "]", "o", "E",
                                                   "1", "2", "3", "4", "5", "6", "7", "8", "9"]
    /// The one reserved key an action may name: the panel's reload.
    public static let reloadKey = "r"
}

/// One option a widget kind accepts under a panel's `options`.
///
/// A required option must be given; an optional one without a default is simply absent from
/// the panel's `WidgetOptions`. A default must itself be valid for `type` (the host lists what
/// is wrong with a manifest and its tests assert that nothing is).
public struct OptionSpec: Sendable, Equatable {
    public var name: String
    public var type: OptionType
    public var required: Bool
    public var defaultValue: WidgetOptions.Value?
    /// One line for `widgethost widgets` and for missing-option messages.
    public var doc: String
    /// A value as it would be written on the command line (`--option NAME=EXAMPLE`); nil for
    /// an option that has no one-line form (lists, maps, objects).
    public var example: String?
    /// The Edit Widget form offers a picker for it, filled by the widget's
    /// `DynamicOptionsProvider` (an extension's `options` request): manifest `"dynamic": true`.
    public var dynamic: Bool

    public init(name: String, type: OptionType, required: Bool = false,
                defaultValue: WidgetOptions.Value? = nil, doc: String, example: String? = nil, dynamic: Bool = false) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.doc = doc
        self.example = example
        self.dynamic = dynamic
    }
}

/// The type of a widget option: what values a config may give it, and what the provider gets.
///
/// Integer, number and seconds ranges are inclusive; use `Int.min`/`Int.max` (or infinities)
/// for an open end. Values are checked by `Widgets/Options/OptionType+Checking` (config and
/// extension manifests alike); built-in widgets declare theirs as an `OptionSchema`.
public enum OptionType: Sendable, Equatable {
    /// Any string up to 4096 characters, without NUL.
    case string
    /// An integer written without fraction or exponent, within the range.
    case integer(ClosedRange<Int>)
    /// Any number (integer or fractional) within the range.
    case number(ClosedRange<Double>)
    /// `true` or `false`.
    case bool
    /// An enumeration: one of the given strings (case-sensitive).
    case oneOf([String])
    /// An absolute URL `scheme://host…` whose scheme is one of the given ones.
    case url(schemes: [String])
    /// An IANA time zone name (`Europe/Paris`), `UTC`/`GMT`, or `local`.
    case timeZone
    /// A date and time: ISO 8601 with an offset (`2026-12-31T23:59:00+01:00`, `…Z`), or a
    /// local `2026-12-31T23:59` (or `2026-12-31`) read in the host's zone.
    case dateTime
    /// A JSON Pointer (RFC 6901): empty, or `/` and reference tokens with `~0`/`~1` escapes.
    case jsonPointer
    /// A duration in whole seconds within the range. A refresh interval is raised to the
    /// config's `minimumReloadSeconds` (with a warning when the config gave a lower value).
    case seconds(ClosedRange<Int>, refreshInterval: Bool)
    /// A list of strings (each as `.string`).
    case stringList
    /// An object whose values are strings (each as `.string`); keys are free.
    case stringMap
    /// A list of objects, each checked against its own options.
    case objectList([OptionSpec])
}
