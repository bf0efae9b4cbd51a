/// The one place a number gets thousands separators: `12,345.68`. Shared by the byte sizes
/// (`ByteCountText.readable`) and the `http-json` number formats, so `1,536 B` and `1,536`
/// are grouped alike. Total: any Double, non-finite and huge ones included.
public enum DecimalText {
    /// `value` with `,` between thousands and at most `decimals` decimals (trailing zeros
    /// dropped); beyond ±10^15 (where doubles stop holding cents) its plain text, "—" when
    /// it is not finite.
    public static func grouped(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        guard value.isFinite, abs(value) < 1e15, let scaled = Int64(exactly: (abs(value) * scale).rounded()) else {
            return value.isFinite ? String(value) : "—"
        }
        let unit = Int64(scale)
        let whole = scaled / unit
        var fraction = String(scaled % unit)
        fraction = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        var digits = Array(String(whole))
        var groupedDigits = ""
        while digits.count > 3 {
            groupedDigits = "," + String(digits.suffix(3)) + groupedDigits
            digits.removeLast(3)
        }
        groupedDigits = String(digits) + groupedDigits
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + groupedDigits + (fraction.isEmpty ? "" : "." + fraction)
    }
}
