/// How much a log line matters.
public enum ExtensionLogLevel: String, Sendable {
    case debug, info, error
}
