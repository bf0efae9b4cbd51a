/// An end-to-end harness step failed: a tmux command, a file, or the harness used out of order.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
