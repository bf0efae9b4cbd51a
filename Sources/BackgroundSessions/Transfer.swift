import CCurl
import Glibc

/// One transfer's state on the network thread: its request, attempts, the running attempt's
/// easy handle and response, and its temporary file.
///
/// Touched only by the network thread (curl calls the callbacks below from inside
/// `curl_multi_perform` on that thread).
final class Transfer {
    let id: TransferID
    let request: TransferRequest
    let events: @Sendable (TransferEvent) -> Void
    let hostKey: String
    let deadline: ContinuousClock.Instant
    let maxBodyBytes: Int
    var attempts = 0
    var sentValidators = Validators()
    /// When a retry wait ends (nil: not waiting).
    var notBefore: ContinuousClock.Instant?
    /// How many retry waits this transfer has begun (tags `retryNow` commands).
    var waitNumber: UInt64 = 0
    var lastRetryAfter: Duration?
    /// The URL the last attempt ended on (`CURLINFO_EFFECTIVE_URL`): a redirect's target.
    var effectiveURL: String?
    /// The URL the next attempt asks for: the request's, or a redirect's target when the
    /// transport follows redirects itself (see `followsRedirectsItself`).
    var url: String
    /// Redirects followed by the transport itself so far.
    var redirects = 0
    /// Whether the transport, not curl, follows this transfer's redirects: a GET with custom
    /// headers. curl sends `CURLOPT_HTTPHEADER` to every host of a redirect chain (it strips
    /// only `Authorization` and `Cookie`), so an API key would reach whatever host a 302 names;
    /// followed here, the headers go only to the origin the request names.
    var followsRedirectsItself: Bool { request.postBody == nil && !request.headers.isEmpty }

    // The running attempt.
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var attemptTimeout: Duration = .zero
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    // The response of the running attempt (the last one in a redirect chain).
    var status = 0
    var reasonPhrase = ""
    var responseValidators = Validators()
    var retryAfterValue: String?
    var contentLength: Int?
    var bodyTooLarge = false
    var fileError: String?

    // The temporary body file.
    var tempPath: String?
    var tempFD: Int32 = -1
    var bytesWritten = 0

    init(id: TransferID, request: TransferRequest, hostKey: String, deadline: ContinuousClock.Instant,
         maxBodyBytes: Int, events: @escaping @Sendable (TransferEvent) -> Void) {
        self.id = id
        self.request = request
        url = request.url
        self.hostKey = hostKey
        self.deadline = deadline
        self.maxBodyBytes = maxBodyBytes
        self.events = events
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        discardTempFile()
        errorBuffer.deallocate()
    }

    var errorText: String { String(cString: errorBuffer) }

    func resetResponse() {
        status = 0
        reasonPhrase = ""
        responseValidators = Validators()
        retryAfterValue = nil
        contentLength = nil
    }

    /// Longest reason phrase kept (it ends up in error texts, the journal and the screen).
    static let maximumReasonLength = 120
    static let maximumValidatorLength = 512

    /// `text` without control or bidi-override characters, cut to `limit` characters (with
    /// `…`): what a server sends is shown to people, so it must not steer their terminal.
    static func printable(_ text: Substring, limit: Int) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || (0x200E...0x200F).contains(v)
                || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C { continue }
            if count == limit {
                out.append("…")
                break
            }
            out.append(scalar)
            count += 1
        }
        return String(out)
    }

    // MARK: - Called from curl's callbacks

    /// A header line (or a status line starting a new response). Returns false to abort.
    func header(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: "\r\n")
        if trimmed.hasPrefix("HTTP/") {
            resetResponse()
            let parts = trimmed.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            reasonPhrase = parts.count > 2 ? Self.printable(parts[2], limit: Self.maximumReasonLength) : ""
            return true
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return true }
        let name = trimmed[..<colon].lowercased()
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: " \t")
        switch name {
        // Validators are sent back in our next request: no control characters (a CR would
        // split that header), and bounded like any header we echo.
        case "etag": responseValidators.etag = Self.printable(Substring(value), limit: Self.maximumValidatorLength)
        case "last-modified": responseValidators.lastModified = Self.printable(Substring(value), limit: Self.maximumValidatorLength)
        case "retry-after": retryAfterValue = value
        case "content-length":
            contentLength = Int(value).flatMap { $0 >= 0 ? $0 : nil }
            if (200..<300).contains(status), let length = contentLength, length > maxBodyBytes {
                bodyTooLarge = true
                return false
            }
        default: break
        }
        return true
    }

    /// Body bytes. Returns false to abort (too large, or the file cannot be written).
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Bodies of error answers and redirects are not kept, but for a request that keeps a
        // 4xx's explanation (`TransferRequest.keepsErrorBody`).
        guard (200..<300).contains(status) || (request.keepsErrorBody && (400..<500).contains(status)) else { return true }
        if bytesWritten + bytes.count > maxBodyBytes {
            bodyTooLarge = true
            return false
        }
        if tempFD < 0 && !openTempFile() { return false }
        var offset = 0
        while offset < bytes.count {
            let n = write(tempFD, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                fileError = "cannot write \(request.directory): \(String(cString: strerror(errno)))"
                return false
            }
            offset += n
        }
        bytesWritten += bytes.count
        return true
    }

    // MARK: - The temporary file

    func openTempFile() -> Bool {
        var template = Array((request.directory.hasSuffix("/") ? request.directory : request.directory + "/")
            .utf8CString.dropLast()) + Array(".\(request.fileName).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            fileError = "cannot create a file in \(request.directory): \(String(cString: strerror(errno)))"
            return false
        }
        tempFD = fd
        tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return true
    }

    /// Renames the body into place; returns an error text or nil.
    ///
    /// No fsync: the body lives until its event is acknowledged, milliseconds later, and a
    /// host that is killed keeps it (the page cache survives the process). Unsynced, a body
    /// deleted before writeback never reaches the disk. After a power loss the journal has
    /// rolled back to its last checkpoint, so the task runs again; in the rare case its result
    /// did reach the disk and the body did not, the widget gets a missing or empty file, says
    /// so, and the next fetch repairs it (docs/decisions.md "Journal durability").
    func commitTempFile() -> String? {
        if tempFD < 0 && !openTempFile() { return fileError }
        let destination = request.destinationPath
        let fd = tempFD
        tempFD = -1
        guard let tempPath else {
            close(fd)
            return "cannot write \(destination): no temporary file"
        }
        self.tempPath = nil
        guard let failure = FilePaths.commit(fd: fd, temporary: tempPath, to: destination, syncData: false) else {
            return nil
        }
        bytesWritten = 0
        let verb = failure.operation == "fsync" ? "write" : "rename into"
        return "cannot \(verb) \(destination): \(String(cString: strerror(failure.errno)))"
    }

    func discardTempFile() {
        if tempFD >= 0 { close(tempFD) }
        tempFD = -1
        if let tempPath { unlink(tempPath) }
        tempPath = nil
        bytesWritten = 0
    }
}

// MARK: - curl callbacks (C function pointers; the context is the unretained Transfer)

let curlWriteCallback: wh_curl_data_callback = { pointer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    return transfer.body(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

let curlHeaderCallback: wh_curl_header_callback = { pointer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    return transfer.header(line) ? length : 0
}
