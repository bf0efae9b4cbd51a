import WidgetCore

/// The clock's options, declared once: the manifest's entries and what its provider reads.
public struct ClockOptions: OptionSchema, Equatable {
    /// A tz name, or `local`: the system's zone (`$TZ`, `/etc/localtime`).
    public var timeZone = "local"
    public var seconds = false
    public var hour24 = true
    public var showDate = true

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.timeZone, "timeZone", .timeZone, doc: "IANA zone such as Europe/Paris, UTC, or local", example: "Europe/Paris",
                    dynamic: true),
        OptionField(\.seconds, "seconds", .bool, doc: "show seconds (wakes every second)", example: "true"),
        OptionField(\.hour24, "hour24", .bool, doc: "24-hour time; false for AM/PM", example: "false"),
        OptionField(\.showDate, "showDate", .bool, doc: "show the date under the time", example: "false"),
    ]
}
