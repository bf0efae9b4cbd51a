import FoundationEssentials
import Glibc
import Testing
@testable import Widgets
import WidgetTestSupport

/// A TZif version 2 file: one transition at `transition` to a type with `offset` seconds, and
/// `footer` as its POSIX rule.
private func tzif(offset: Int32 = 3600, transition: Int64 = 0, footer: String) -> [UInt8] {
    func be32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    func be64(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    let header = Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15) + [0, 0, 0, 1, 1, 4].flatMap { be32(Int32($0)) }
    let types = be32(offset) + [0, 0] + Array("ABC\0".utf8)
    let v1 = header + be32(Int32(truncatingIfNeeded: transition)) + [0] + types
    let v2 = header + be64(transition) + [0] + types
    return v1 + v2 + [0x0A] + Array(footer.utf8) + [0x0A]
}

/// Loads `bytes` as zone "Test/Zone" from a scratch directory.
private func load(_ bytes: [UInt8]) throws -> ZoneInfo {
    let root = makeTemporaryDirectory(prefix: "zoneinfo-test")
    defer { removeTree(root) }
    mkdir(root + "/Test", 0o700)
    let fd = open(root + "/Test/Zone", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return try ZoneInfo.load("Test/Zone", directory: root)
}

/// Most an offset may be: RFC 8536's 167:59:59, either way.
private let offsetBound = 167 * 3600 + 59 * 60 + 59

private let moments: [Date] = [
    Date(timeIntervalSince1970: 1_796_000_000), Date(timeIntervalSince1970: 4_102_444_800),  // 2026, 2100
    Date(timeIntervalSince1970: 253_402_300_799), Date(timeIntervalSince1970: -1e10),          // 9999, 1653
]

@Suite("Zone files from disk are untrusted")
struct ZoneInfoHostileTests {
    @Test("hostile POSIX footers load and answer offsets without trapping (issue 10, audit)",
          arguments: ["CET-1CEST,M,M10.5.0/3", "XXX99999999999999999", "XXX-99999999999999999:99",
                      "CET-1CEST,M3.5.0/99999999999999999,M10.5.0", "CET-1CEST99999999999999999,M3.5.0,M10.5.0",
                      "CET-1CEST,M99999999999999999999.5.0,M10.5.0", "CET-1CEST,M3.5.0,M", "CET-1CEST,M3..0,M10.5.0",
                      "<>", "<", "CET-1CEST,,", "CET-1CEST,M3.5.0/-167:59:59,M10.5.0/167"])
    func hostileFooter(footer: String) throws {
        let zone = try load(tzif(footer: footer))
        for moment in moments {
            let offset = zone.offset(at: moment)
            #expect(abs(offset.seconds) <= offsetBound, "\(footer) at \(moment): \(offset)")
            _ = ClockEntry(date: moment, zone: zone, style: ClockStyle(seconds: true, hour24: false))
        }
    }

    @Test("a zone type at the ends of Int32 still formats a clock entry")
    func extremeTypeOffsets() throws {
        for offset in [Int32.min, Int32.max] {
            let zone = try load(tzif(offset: offset, transition: Int64.min, footer: ""))
            for moment in moments {
                let entry = ClockEntry(date: moment, zone: zone, style: ClockStyle(seconds: true))
                #expect(!entry.time.isEmpty)
            }
        }
    }

    @Test("a clock timeline asked to cover a NaN, negative or endless interval stays bounded")
    func clockIntervalBounds() {
        // A day, or at most 400 days: one entry (UTC has no change), or one an hour in 12-hour style.
        let provider = ClockProvider(zone: .utc, style: ClockStyle(seconds: false), now: { moments[0] })
        #expect(provider.entries(from: moments[0], covering: .nan).count == 1)
        #expect(provider.entries(from: moments[0], covering: -.infinity).count == 1)
        #expect(provider.entries(from: moments[0], covering: 1e300).count == 1)
        let twelve = ClockProvider(zone: .utc, style: ClockStyle(hour24: false), now: { moments[0] })
        #expect(twelve.entries(from: moments[0], covering: 1e300).count <= 400 * 24 + 1)
    }

    /// Seed of the footer fuzz test; printed with any failure so it can be replayed.
    static let fuzzSeed: UInt64 = 0x2017_F00E_0010

    @Test("fuzz: any footer gives no rule or offsets within ±167:59:59")
    func fuzzFooters() {
        var random = SeededRandom(seed: Self.fuzzSeed)
        let pieces = ["CET", "-1", "CEST", ",M3.5.0", ",M10.5.0/3", "/", ":", ",", ".", "M", "<+05>", "-",
                      "9999999999999999999", "167", "168", "0", "J60", "<", ">", "+"]
        var failures: [String] = []
        for iteration in 0..<20_000 {
            let footer = (0..<random.below(9)).map { _ in random.pick(pieces) }.joined()
            guard let rule = PosixRule(footer) else { continue }
            let t = Int64(random.below(600_000_000_000)) - 300_000_000_000
            let offset = rule.offset(at: t)
            if abs(offset.seconds) > offsetBound { failures.append("#\(iteration) \(footer.debugDescription) at \(t): \(offset)") }
        }
        #expect(failures.isEmpty, "fuzz seed \(Self.fuzzSeed): \(failures.prefix(5))")
    }
}

private typealias SeededRandom = FuzzRandom
