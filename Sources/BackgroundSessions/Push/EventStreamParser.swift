/// One dispatched server-sent event.
public struct ServerSentEvent: Equatable, Sendable {
    /// The `event:` field, `message` when none was given.
    public var type: String
    /// The `data:` lines joined with LF (no trailing LF).
    public var data: String
    /// The stream's last event ID when this event was dispatched (`id:` of this or an earlier event).
    public var lastEventID: String

    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// An incremental `text/event-stream` parser following the WHATWG HTML standard's "event stream
/// interpretation" (§9.2.6), with sizes bounded because the stream is untrusted.
///
/// Feed it bytes as they arrive, cut anywhere (inside a UTF-8 sequence, between CR and LF);
/// it gives the events complete so far. The rules:
/// - a UTF-8 BOM at the very start is dropped; lines end with CRLF, LF or CR;
/// - a blank line dispatches: no event if the data buffer is empty, else one whose data is the
///   `data:` values joined with LF; the event type is reset each time;
/// - `field: value` (one space after the colon dropped), `field` alone (empty value), `:` a
///   comment; unknown fields ignored;
/// - `id:` sets the last event ID unless the value contains U+0000 (then it is ignored); it
///   stays for later events and is kept even when no event is dispatched;
/// - `retry:` of ASCII digits only sets `retryMilliseconds` (saturating), anything else is ignored;
/// - at end of stream an event without its blank line is dropped (`reset()`).
///
/// Bounds: a line longer than `maxLineBytes`, or an event whose data and type pass
/// `maxEventBytes`, is not kept: the rest of that line is skipped and the event it belongs to
/// is dropped at its blank line (counted in `droppedEvents`); `id:` and `retry:` lines of it
/// still count. Memory stays under about `maxLineBytes + maxEventBytes` whatever arrives.
public struct EventStreamParser: Sendable {
    public let maxLineBytes: Int
    public let maxEventBytes: Int

    /// The last event ID (what a reconnection sends as `Last-Event-ID`).
    public private(set) var lastEventID = ""
    /// The reconnection time the server asked for, in milliseconds, if it did.
    public private(set) var retryMilliseconds: UInt64?
    /// Events dropped for a line or event over the bounds.
    public private(set) var droppedEvents = 0

    private var line: [UInt8] = []
    private var skippingLine = false
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: [UInt8] = []
    private var droppingEvent = false
    private var afterCR = false
    /// Bytes of the stream seen so far, up to 3 (for the BOM).
    private var startBytes: [UInt8] = []
    private var started = false

    public init(maxLineBytes: Int = 16 * 1024, maxEventBytes: Int = 64 * 1024, lastEventID: String = "") {
        self.maxLineBytes = max(1, maxLineBytes)
        self.maxEventBytes = max(1, maxEventBytes)
        self.lastEventID = lastEventID
    }

    /// Takes the next bytes of the stream; returns the events they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        feed(bytes) { events.append($0) }
        return events
    }

    /// Takes the next bytes of the stream and calls `emit` for each event they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>, emit: (ServerSentEvent) -> Void) {
        for byte in bytes {
            if !started {
                // The BOM: EF BB BF, only as the first three bytes of the stream.
                startBytes.append(byte)
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if startBytes.count <= 3 && startBytes[...] == bom[..<startBytes.count] {
                    if startBytes.count == 3 { started = true; startBytes = [] }
                    continue
                }
                started = true
                let pending = startBytes
                startBytes = []
                for b in pending { take(b, emit) }
                continue
            }
            take(byte, emit)
        }
    }

    /// The stream ended (or is being replaced by a new connection): an event without its blank
    /// line is dropped. `lastEventID` and `retryMilliseconds` stay, as a reconnection needs them.
    public mutating func reset() {
        line = []
        skippingLine = false
        data = []
        hasData = false
        eventType = []
        droppingEvent = false
        afterCR = false
        startBytes = []
        started = false
    }

    private mutating func take(_ byte: UInt8, _ emit: (ServerSentEvent) -> Void) {
        switch byte {
        case 10:   // LF
            if afterCR { afterCR = false; return }
            endLine(emit)
        case 13:   // CR
            afterCR = true
            endLine(emit)
        default:
            afterCR = false
            if skippingLine { return }
            if line.count >= maxLineBytes {
                skippingLine = true
                droppingEvent = true
                line = []
                return
            }
            line.append(byte)
        }
    }

    private mutating func endLine(_ emit: (ServerSentEvent) -> Void) {
        if skippingLine {
            skippingLine = false
            return
        }
        defer { line.removeAll(keepingCapacity: line.count <= 4096) }
        if line.isEmpty {
            dispatch(emit)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = colon.map { line[..<$0] } ?? line[...]
        var value = colon.map { line[($0 + 1)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = Array(value)
            if eventType.count + data.count > maxEventBytes { droppingEvent = true }
        case "data":
            if droppingEvent { return }
            if data.count + value.count + 1 + eventType.count > maxEventBytes {
                droppingEvent = true
                data = []
                return
            }
            data.append(contentsOf: value)
            data.append(10)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            guard !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return }
            var ms: UInt64 = 0
            for digit in value {
                let (times10, o1) = ms.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit - 48))
                if o1 || o2 { ms = .max; break }
                ms = sum
            }
            retryMilliseconds = ms
        default:
            break
        }
    }

    private mutating func dispatch(_ emit: (ServerSentEvent) -> Void) {
        defer {
            data.removeAll(keepingCapacity: data.count <= 4096)
            hasData = false
            eventType = []
        }
        if droppingEvent {
            droppingEvent = false
            droppedEvents += 1
            return
        }
        guard hasData else { return }
        if data.last == 10 { data.removeLast() }
        emit(ServerSentEvent(type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                             data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID))
    }
}
