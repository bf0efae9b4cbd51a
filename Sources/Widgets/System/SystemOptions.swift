import WidgetCore

/// The system widget's options, declared once: the manifest's entries and what its provider reads.
public struct SystemOptions: OptionSchema, Equatable {
    public var intervalSeconds = 2
    public var alertCpuPercent: Int?
    public var alertMemoryPercent: Int?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.intervalSeconds, "intervalSeconds", .seconds(1...3600, refreshInterval: false),
                    doc: "seconds between readings of /proc", example: "5"),
        OptionField(\.alertCpuPercent, "alertCpuPercent", .integer(1...100), doc: "alert when CPU use reaches this (percent)", example: "90"),
        OptionField(\.alertMemoryPercent, "alertMemoryPercent", .integer(1...100),
                    doc: "alert when memory in use reaches this (percent)", example: "90"),
    ]
}
