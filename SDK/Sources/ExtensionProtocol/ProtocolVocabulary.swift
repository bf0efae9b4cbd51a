/// The wire vocabulary of extension protocol 1 (docs/extensions.md): one definition of the
/// version, the methods, the members of each message and the error codes, compiled into the
/// host (the root package builds this folder as its `ExtensionProtocol` target) and into the
/// Swift SDK alike, so the two cannot drift apart.
public enum ExtensionProtocol {
    /// The protocol version `initialize` carries both ways.
    public static let version = 1
    /// The longest line either side accepts (bytes, without the newline).
    public static let maximumLineBytes = 1 << 20
    /// The most entries one timeline may hold.
    public static let maximumEntries = 1000
    /// Every message's `jsonrpc` member.
    public static let jsonrpc = "2.0"
}

/// Requests the host sends to an extension.
public enum HostMethod: String, CaseIterable, Sendable {
    case initialize, timeline, snapshot, sessionEvents, action, shutdown, options
}

/// Messages an extension sends to the host: `download` is a request, the others notifications.
public enum ExtensionMethod: String, CaseIterable, Sendable {
    case download, reloadTimelines, log
}

/// JSON-RPC error codes the protocol names.
public enum RPCErrorCode {
    /// "Method not found": a method the receiver does not know (an extension's answer to a
    /// `snapshot` it does not implement makes the host ask for a timeline instead).
    public static let methodNotFound = -32601
    /// Bad parameters (the host's answer to a bad `download`).
    public static let invalidParams = -32602
    /// A server error (background sessions are off; an extension's failure to do a request).
    public static let serverError = -32000
}

/// The families a kind may support, by the names the manifest and `timeline` use.
public enum Family: String, CaseIterable, Sendable, Codable {
    case small, medium, large, extraLarge
}

/// The members of `timeline` and `snapshot` params, in the order the host writes them (a
/// promise of protocol 1); `size` holds `columns` then `rows`. `renderingMode` (`fullColor`,
/// `accented` or `mono`) came later: last, and an extension must not require it.
public enum TimelineParameter: String, CaseIterable, Sendable {
    case kind, instance, family, size, options, isPreview, userInitiated, renderingMode
}

public enum SizeParameter: String, CaseIterable, Sendable {
    case columns, rows
}

/// The members of `action` params, in the host's order.
public enum ActionParameter: String, CaseIterable, Sendable {
    case kind, instance, action, options
}

/// The members of `options` params (the Edit Widget form's picker of a `dynamic` option), in
/// the host's order.
public enum OptionsParameter: String, CaseIterable, Sendable {
    case kind, option, query, options
}

/// The members of an `options` result (`{items}`) and of each item.
public enum OptionsResultMember: String, CaseIterable, Sendable {
    case items
}

public enum OptionItemMember: String, CaseIterable, Sendable {
    case value, title, subtitle
}

/// The members of a `timeline` result, of a `snapshot` result, and of an entry.
public enum TimelineResultMember: String, CaseIterable, Sendable {
    case entries, policy
}

public enum SnapshotResultMember: String, CaseIterable, Sendable {
    case entry
}

public enum EntryMember: String, CaseIterable, Sendable {
    case date, relevance, view, url, alert
}

/// A policy is `"atEnd"`, `"never"` or `{"after": date}`.
public enum PolicyWord: String, CaseIterable, Sendable {
    case atEnd, never, after
}

/// The members of `sessionEvents` params and of each event, in the host's order.
public enum SessionEventsParameter: String, CaseIterable, Sendable {
    case identifier, events
}

public enum SessionEventMember: String, CaseIterable, Sendable {
    case task, description, url, status, file, error, notModified
}

/// An event's `status`.
public enum SessionEventStatus: String, CaseIterable, Sendable, Codable {
    case downloaded, notModified, failed, cancelled, unavailable
}

/// The members of `download` params.
public enum DownloadParameter: String, CaseIterable, Sendable {
    case identifier, url, headers, description, conditional
}
