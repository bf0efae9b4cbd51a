import Testing
import WidgetCore

/// The one byte formatter, in the three styles its callers show: the `system` panel's columns
/// (compact), `http-json`'s `bytes` format (readable), limits in failure reasons and notices
/// (exact). The figures are those each caller showed before the three were one.
@Suite("Byte counts as text")
struct ByteCountTextTests {
    @Test("compact (the system panel): at most four characters, binary units from 1000 up")
    func compact() {
        #expect(ByteCountText.compact(0) == "0B")
        #expect(ByteCountText.compact(512) == "512B")
        #expect(ByteCountText.compact(999) == "999B")
        #expect(ByteCountText.compact(1000) == "1.0K")
        #expect(ByteCountText.compact(980 << 10) == "980K")
        #expect(ByteCountText.compact(6 << 30) == "6.0G")
        #expect(ByteCountText.compact(10 << 30) == "10G")
        #expect(ByteCountText.compact(16 << 30) == "16G")
        #expect(ByteCountText.compact(3 << 39) == "1.5T")
        #expect(ByteCountText.compact(.max) == "16E")
    }

    @Test("readable (http-json's bytes): a spaced IEC unit, one decimal below 10, grouped, signed")
    func readable() {
        #expect(ByteCountText.readable(512) == "512 B")
        #expect(ByteCountText.readable(1000) == "1,000 B")
        #expect(ByteCountText.readable(1536) == "1.5 KiB")
        #expect(ByteCountText.readable(1_536_000) == "1.5 MiB")
        #expect(ByteCountText.readable(20_971_520) == "20 MiB")
        #expect(ByteCountText.readable(-2048) == "-2 KiB")
        #expect(ByteCountText.readable(5e18) == "4.3 EiB")
        #expect(ByteCountText.readable(1e30) == "867,361,737,988 EiB")
    }

    @Test("exact (a limit in a sentence): the largest IEC unit that divides it, else bytes")
    func exact() {
        #expect(ByteCountText.exact(1 << 20) == "1 MiB")
        #expect(ByteCountText.exact(3 << 20) == "3 MiB")
        #expect(ByteCountText.exact(1024) == "1 KiB")
        #expect(ByteCountText.exact(256 << 10) == "256 KiB")
        #expect(ByteCountText.exact((1 << 20) + 1024) == "1025 KiB")
        #expect(ByteCountText.exact(1500) == "1500 bytes")
        #expect(ByteCountText.exact(0) == "0 bytes")
        #expect(ByteCountText.exact(-1024) == "-1024 bytes")
    }

    @Test("grouped decimals: thousands separated, trailing zeros dropped, extremes as plain text")
    func grouped() {
        #expect(DecimalText.grouped(12_345.678, decimals: 2) == "12,345.68")
        #expect(DecimalText.grouped(-0.001, decimals: 2) == "0")
        #expect(DecimalText.grouped(1e16, decimals: 0) == "1e+16")
        #expect(DecimalText.grouped(.nan, decimals: 1) == "—")
    }
}
