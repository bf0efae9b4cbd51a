#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// A time zone read from the system's TZif files (`/usr/share/zoneinfo`), giving the UTC offset
/// and abbreviation in force at any moment, DST included.
///
/// FoundationEssentials alone cannot resolve zone names on Linux (that needs ICU), so the
/// clock reads the tz database directly: the transitions in the file, then the POSIX rule in
/// its footer for moments after the last transition.
public struct ZoneInfo: Sendable, Equatable {
    public struct Offset: Sendable, Equatable {
        /// Seconds east of UTC.
        public var seconds: Int
        public var abbreviation: String
        public var isDST: Bool
    }

    public enum LoadError: Error, Equatable, CustomStringConvertible {
        case invalidName(String)
        case notFound(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .invalidName(let n): "'\(n)' is not a time zone name (e.g. Europe/Berlin, UTC)"
            case .notFound(let n): "unknown time zone '\(n)' (not in the tz database)"
            case .malformed(let n): "time zone file for '\(n)' is not a TZif file"
            }
        }
    }

    public let identifier: String
    private var transitions: [Int64] = []
    private var transitionOffsets: [Offset] = []
    private var initial: Offset
    private var rule: PosixRule?

    public static let utc = ZoneInfo(identifier: "UTC", initial: Offset(seconds: 0, abbreviation: "UTC", isDST: false))

    private static func gmt(_ name: String) -> ZoneInfo {
        ZoneInfo(identifier: name, initial: Offset(seconds: 0, abbreviation: "GMT", isDST: false))
    }

    private init(identifier: String, initial: Offset) {
        self.identifier = identifier
        self.initial = initial
    }

    /// The system's tz database.
    public static let defaultDirectory = "/usr/share/zoneinfo"

    /// Names every host understands without a tz database; all of them are UTC.
    public static let builtInNames: Set<String> = ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z"]

    /// Letters, digits and `_+-` in `/`-separated parts, none empty or starting with `-`, at
    /// most 64 bytes: a name that cannot leave the zoneinfo directory. The one rule for zone
    /// names: the config validator and `load` both use it.
    public static func isWellFormedName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64 else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.first != "-" && part.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_+-".unicodeScalars.contains($0)
            }
        }
    }

    /// Whether `load` can find `name`: a built-in name, or a well-formed one with a regular file
    /// under `directory`. When the machine has no tz database at all, every well-formed name is
    /// taken (the clock then says which zone it cannot load).
    public static func exists(_ name: String, directory: String = defaultDirectory) -> Bool {
        guard isWellFormedName(name) else { return false }
        if builtInNames.contains(name) { return true }
        guard access(directory, F_OK) == 0 else { return true }
        var info = stat()
        return stat(directory + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Loads a zone by tz name (`Europe/Berlin`), from `directory`.
    ///
    /// - Throws: `LoadError` naming the zone when the name is unsafe, unknown or unreadable.
    public static func load(_ name: String, directory: String = defaultDirectory) throws -> ZoneInfo {
        guard isWellFormedName(name) else { throw LoadError.invalidName(name) }
        if builtInNames.contains(name) { return name.hasSuffix("GMT") ? gmt(name) : .utc }
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            throw LoadError.notFound(name)
        }
        guard data.count <= 1 << 20, let zone = parse([UInt8](data), identifier: name) else {
            throw LoadError.malformed(name)
        }
        return zone
    }

    /// The zone the system uses: `$TZ` (a tz name, optionally after ':'), else `/etc/localtime`,
    /// else UTC.
    public static func local(environment: [String: String], directory: String = defaultDirectory) -> ZoneInfo {
        if let tz = environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = try? load(name, directory: directory) { return zone }
        }
        if let data = FileManager.default.contents(atPath: "/etc/localtime"), data.count <= 1 << 20,
           let zone = parse([UInt8](data), identifier: "localtime") {
            return zone
        }
        return .utc
    }

    /// The offset in force at `date`.
    public func offset(at date: Date) -> Offset {
        let t = Int64(date.timeIntervalSince1970.rounded(.down))
        if let last = transitions.last, t >= last, let rule {
            return rule.offset(at: t)
        }
        if transitions.isEmpty { return rule?.offset(at: t) ?? initial }
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? initial : transitionOffsets[low - 1]
    }

    // MARK: TZif

    private static func parse(_ bytes: [UInt8], identifier: String) -> ZoneInfo? {
        var reader = Reader(bytes: bytes)
        guard let v1 = reader.header() else { return nil }
        var counts = v1
        var timeSize = 4
        if v1.version >= 2 {
            // Skip the 32-bit block; the 64-bit block follows with its own header.
            let skip = v1.timecnt * 4 + v1.timecnt + v1.typecnt * 6 + v1.charcnt + v1.leapcnt * 8 + v1.isstdcnt + v1.isutcnt
            guard reader.skip(skip), let v2 = reader.header() else { return nil }
            counts = v2
            timeSize = 8
        }
        var times: [Int64] = []
        for _ in 0..<counts.timecnt {
            guard let t = timeSize == 8 ? reader.int64() : reader.int32().map(Int64.init) else { return nil }
            times.append(t)
        }
        var indices: [Int] = []
        for _ in 0..<counts.timecnt {
            guard let i = reader.byte() else { return nil }
            indices.append(Int(i))
        }
        var types: [(Int, Bool, Int)] = []
        for _ in 0..<counts.typecnt {
            guard let off = reader.int32(), let dst = reader.byte(), let abbr = reader.byte() else { return nil }
            types.append((Int(off), dst != 0, Int(abbr)))
        }
        guard let chars = reader.take(counts.charcnt).map(Array.init) else { return nil }
        func abbreviation(_ index: Int) -> String {
            guard index < chars.count else { return "" }
            let end = chars[index...].firstIndex(of: 0) ?? chars.count
            return String(decoding: chars[index..<end], as: UTF8.self)
        }
        let offsets = types.map { Offset(seconds: $0.0, abbreviation: abbreviation($0.2), isDST: $0.1) }
        guard !offsets.isEmpty, indices.allSatisfy({ $0 < offsets.count }) else { return nil }
        var zone = ZoneInfo(identifier: identifier, initial: offsets.first { !$0.isDST } ?? offsets[0])
        zone.transitions = times
        zone.transitionOffsets = indices.map { offsets[$0] }
        if counts.version >= 2 {
            _ = reader.skip(counts.leapcnt * (timeSize + 4) + counts.isstdcnt + counts.isutcnt)
            if let footer = reader.footer() { zone.rule = PosixRule(footer) }
        }
        return zone
    }

    private struct Counts {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, at + n <= bytes.count else { return nil }
            defer { at += n }
            return bytes[at..<at + n]
        }

        mutating func skip(_ n: Int) -> Bool { take(n) != nil }
        mutating func byte() -> UInt8? { take(1)?.first }

        mutating func int32() -> Int32? {
            guard let b = take(4) else { return nil }
            return Int32(bitPattern: b.reduce(0) { $0 << 8 | UInt32($1) })
        }

        mutating func int64() -> Int64? {
            guard let b = take(8) else { return nil }
            return Int64(bitPattern: b.reduce(0) { $0 << 8 | UInt64($1) })
        }

        mutating func header() -> Counts? {
            guard let magic = take(4), Array(magic) == Array("TZif".utf8), let v = byte(), skip(15) else { return nil }
            var c: [Int] = []
            for _ in 0..<6 {
                guard let n = int32(), n >= 0, n < 100_000 else { return nil }
                c.append(Int(n))
            }
            let version = v == 0 ? 1 : Int(v) - 0x30
            return Counts(version: version, isutcnt: c[0], isstdcnt: c[1], leapcnt: c[2], timecnt: c[3], typecnt: c[4], charcnt: c[5])
        }

        mutating func footer() -> String? {
            guard byte() == 0x0A else { return nil }
            let rest = bytes[at...]
            guard let end = rest.firstIndex(of: 0x0A) else { return nil }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }
    }
}
