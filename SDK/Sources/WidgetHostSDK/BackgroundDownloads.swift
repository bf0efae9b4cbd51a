import ExtensionProtocol

/// Downloads run by the host's background session on the extension's behalf: they outlive
/// the process, and their events come back to `onBackgroundSessionEvents` (the host launches
/// the extension for them if it is not running).
public enum BackgroundDownloads {
    /// Starts (or joins) a download of `url` in session `identifier`; returns the host's task
    /// number. Throws the host's refusal (a bad URL or header, sessions off).
    public static func download(_ url: String, session identifier: String, headers: [String: String] = [:],
                                description: String? = nil, conditional: Bool? = nil) async throws(RemoteError) -> Int {
        try await download(url, session: identifier, headers: headers, description: description, conditional: conditional, on: .shared)
    }

    static func download(_ url: String, session identifier: String, headers: [String: String], description: String?,
                         conditional: Bool?, on channel: Channel) async throws(RemoteError) -> Int {
        var params: [(String, JSON)] = [(DownloadParameter.identifier.rawValue, .string(identifier)),
                                        (DownloadParameter.url.rawValue, .string(url))]
        if !headers.isEmpty {
            params.append((DownloadParameter.headers.rawValue, .object(headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        if let description { params.append((DownloadParameter.description.rawValue, .string(description))) }
        if let conditional { params.append((DownloadParameter.conditional.rawValue, .bool(conditional))) }
        switch await channel.request(.download, .object(params)) {
        case .success(let result):
            guard let task = result["task"]?.int else { throw RemoteError(code: 0, "the host answered download without a task") }
            return task
        case .failure(let error):
            throw error
        }
    }
}

/// A finished download, as `sessionEvents` delivers it.
public struct SessionEvent: Sendable {
    public var task: Int
    public var description: String?
    public var url: String
    public var status: SessionEventStatus
    /// The body's path (`downloaded`), readable until the handler returns.
    public var file: String?
    /// Why it failed (`failed`, `unavailable`).
    public var error: String?

    init?(_ json: JSON) {
        guard let task = json[SessionEventMember.task.rawValue]?.int, let url = json[SessionEventMember.url.rawValue]?.string,
              let status = json[SessionEventMember.status.rawValue]?.string.flatMap(SessionEventStatus.init(rawValue:)) else { return nil }
        self.task = task
        self.url = url
        self.status = status
        description = json[SessionEventMember.description.rawValue]?.string
        file = json[SessionEventMember.file.rawValue]?.string
        error = json[SessionEventMember.error.rawValue]?.string
    }
}
