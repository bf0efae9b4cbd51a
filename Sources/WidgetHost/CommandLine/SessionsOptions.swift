/// Options of `widgethost reload`: which kinds (or all) the running dashboard on the state
/// directory reloads.
public struct ReloadOptions: Sendable, Equatable {
    public var kinds: [String]
    public var all: Bool
    public var stateDirectory: String?

    public init(kinds: [String] = [], all: Bool = false, stateDirectory: String? = nil) {
        self.kinds = kinds
        self.all = all
        self.stateDirectory = stateDirectory
    }
}

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
