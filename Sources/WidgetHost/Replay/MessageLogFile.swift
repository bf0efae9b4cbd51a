import FoundationEssentials
import WidgetCore

/// The replayable form of a message log (`--record-messages FILE`, `snapshot --replay FILE`):
/// JSON lines, the first a `MessageLogHeader`, then one `MessageLogLine` per message in the
/// order it was applied, and — when the recorder hit its size limit — a last
/// `{"type":"stopped"}` line.
///
/// Reading is bounded: the file at most `maximumFileBytes`, a line at most `maximumLineBytes`,
/// nesting as `JSONDecoder` allows; anything wrong is a `MessageLogError` naming the line,
/// never a crash. Dates are written as `JSONEncoder` writes them (a `Double`, exact), so a
/// replay sets its clock to the very instants of the run.
enum MessageLogFile {
    /// The most a file read holds: the recorder's own limit, and room for its last line.
    static let maximumFileBytes = MessageRecorder.defaultMaximumBytes + maximumLineBytes
    /// The longest line read: a provider's answer of 120 leaderboard entries is ~0.3 MB.
    static let maximumLineBytes = 16 << 20

    /// What a read gives: the header, the records in order, and whether the recording was
    /// cut at its size limit (the records end there).
    struct Contents {
        var header: MessageLogHeader
        var records: [MessageLog.Record]
        var wasStopped: Bool
    }

    // MARK: Writing

    static func encoder(_ coding: MessageLogCoding) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Prometheus answers NaN and ±Inf; JSON has no such numbers.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        encoder.userInfo[MessageLogCoding.key] = coding
        return encoder
    }

    static func decoder(_ coding: MessageLogCoding) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
        decoder.userInfo[MessageLogCoding.key] = coding
        return decoder
    }

    /// The header's line, with its line feed.
    static func line(_ header: MessageLogHeader, encoder: JSONEncoder) throws -> [UInt8] {
        Array(try encoder.encode(header)) + [0x0A]
    }

    /// A record's line, with its line feed.
    static func line(_ record: MessageLog.Record, encoder: JSONEncoder) throws -> [UInt8] {
        Array(try encoder.encode(MessageLogLine(record))) + [0x0A]
    }

    /// The last line of a recording cut at its limit.
    static func stoppedLine(limit: Int) -> [UInt8] {
        Array("{\"type\":\"stopped\",\"reason\":\"the file reached its limit of \(limit) bytes\"}\n".utf8)
    }

    /// The line for a message that could not be written (`reason`): a replay stops there.
    static func unrecordedLine(date: Date, reason: String, encoder: JSONEncoder) -> [UInt8] {
        struct Unrecorded: Encodable {
            var date: Date
            var type = "unrecorded"
            var reason: String
        }
        return Array((try? encoder.encode(Unrecorded(date: date, reason: reason))) ?? Data("{\"type\":\"unrecorded\"}".utf8)) + [0x0A]
    }

    // MARK: Reading

    /// Reads the log at `path`, its entries and panels read with `coding`.
    static func read(path: String, coding: MessageLogCoding) throws(MessageLogError) -> Contents {
        let bytes: [UInt8]
        do throws(ConfigLoadError) {
            bytes = try ConfigFileReader.read(path, limit: maximumFileBytes)
        } catch {
            // ConfigLoadError says the path itself.
            throw MessageLogError(path: path, line: nil, reason: Self.withoutPath("\(error)", path))
        }
        return try parse(bytes, path: path, coding: coding)
    }

    /// Reads a log's bytes (`path` names it in errors).
    static func parse(_ bytes: [UInt8], path: String, coding: MessageLogCoding) throws(MessageLogError) -> Contents {
        let decoder = decoder(coding)
        var header: MessageLogHeader?
        var records: [MessageLog.Record] = []
        var number = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            number += 1
            defer { start = end + 1 }
            let line = bytes[start..<end]
            guard line.count <= maximumLineBytes else {
                throw MessageLogError(path: path, line: number, reason: "longer than the limit of \(maximumLineBytes) bytes")
            }
            guard let header else {
                let first = try decode(MessageLogHeader.self, line, decoder, path: path, number: number)
                if let problem = first.problem { throw MessageLogError(path: path, line: number, reason: problem) }
                header = first
                continue
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }  // a blank line
            if isStopped(line) { return Contents(header: header, records: records, wasStopped: true) }
            let record = try decode(MessageLogLine.self, line, decoder, path: path, number: number).record
            if let last = records.last, record.date < last.date.addingTimeInterval(-366 * 86_400) {
                throw MessageLogError(path: path, line: number, reason: "a date more than a year before the line above")
            }
            records.append(record)
        }
        guard let header else { throw MessageLogError(path: path, line: nil, reason: "empty: no header line") }
        return Contents(header: header, records: records, wasStopped: false)
    }

    private static func isStopped(_ line: ArraySlice<UInt8>) -> Bool {
        line.starts(with: Array("{\"type\":\"stopped\"".utf8))
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ line: ArraySlice<UInt8>, _ decoder: JSONDecoder,
                                             path: String, number: Int) throws(MessageLogError) -> T {
        do {
            return try decoder.decode(type, from: Data(line))
        } catch let error as DecodingError {
            throw MessageLogError(path: path, line: number, reason: describe(error))
        } catch {
            throw MessageLogError(path: path, line: number, reason: "\(error)")
        }
    }

    /// A decoding error in one line: where in the line's object, and what.
    static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            let names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "" : " at \(names.joined(separator: "."))"
        }
        switch error {
        case .keyNotFound(let key, let context): return "'\(key.stringValue)' is missing\(at(context.codingPath))"
        case .typeMismatch(let type, let context): return "expected \(type)\(at(context.codingPath))"
        case .valueNotFound(let type, let context): return "expected \(type), found null\(at(context.codingPath))"
        case .dataCorrupted(let context):
            let reason = context.debugDescription.isEmpty ? "invalid" : String(context.debugDescription.prefix(200))
            return reason + at(context.codingPath)
        @unknown default: return "\(error)"
        }
    }

    private static func withoutPath(_ text: String, _ path: String) -> String {
        text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }
}
