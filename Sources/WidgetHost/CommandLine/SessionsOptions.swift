/// Options of `widgethost sessions`, which lists the background sessions in the journal.
public struct SessionsOptions: Sendable, Equatable {
    public var stateDirectory: String?
    /// `--purge`: remove the journal's session records.
    public var purge: Bool

    public init(stateDirectory: String? = nil, purge: Bool = false) {
        self.stateDirectory = stateDirectory
        self.purge = purge
    }
}
