/// The problems `OptionDecoder` finds in option values: errors (the value is refused) and
/// warnings (it was adjusted, a refresh interval raised), each with its key path. The
/// config validator adds them to its report; a manifest reader words them its own way.
public struct OptionReport: Sendable, Equatable {
    public var errors: [ConfigDiagnostic] = []
    public var warnings: [ConfigDiagnostic] = []

    public init() {}
}
