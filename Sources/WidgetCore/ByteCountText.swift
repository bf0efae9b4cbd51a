/// The one place a count of bytes becomes text. Always binary units (1 K = 1024), in three
/// styles for three purposes; every function is total (a feed or a server may send any size).
///
/// - `compact`: a narrow column of a panel (the `system` widget's memory): `980K`, `6.2G`.
/// - `readable`: a value shown to a reader (`http-json`'s `bytes` format): `1.5 KiB`.
/// - `exact`: a limit in a sentence (a failure reason, a notice): `1 MiB`, `1500 bytes` —
///   never rounded, so the number said is the limit applied.
public enum ByteCountText {
    static let compactUnits = ["B", "K", "M", "G", "T", "P", "E"]
    static let readableUnits = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// At most four characters for any count: "512B", "980K", "6.0G", "16G", "16E". A unit
    /// is taken from 1000 up (not 1024), so "1000K" never needs a fifth character.
    public static func compact(_ count: UInt64) -> String {
        let (value, unit) = scaled(Double(count), from: 1000, units: compactUnits.count)
        if unit == 0 { return "\(count)B" }
        return (value < 10 ? oneDecimal(value) : "\(Int(value.rounded()))") + compactUnits[unit]
    }

    /// "512 B", "1,000 B", "1.5 KiB", "-2 KiB", "4.3 EiB": one decimal below 10 of a unit,
    /// thousands grouped; any finite Double, negative ones included.
    public static func readable(_ value: Double) -> String {
        let (amount, unit) = scaled(abs(value), from: 1024, units: readableUnits.count)
        let sign = value < 0 ? "-" : ""
        if unit == 0 { return sign + DecimalText.grouped(amount, decimals: 0) + " B" }
        return sign + DecimalText.grouped(amount, decimals: amount < 10 ? 1 : 0) + " " + readableUnits[unit]
    }

    /// `value` divided by 1024 as long as it is at least `threshold` (and a larger unit of the
    /// `units` is left), and the index of the unit it is then in.
    static func scaled(_ value: Double, from threshold: Double, units: Int) -> (value: Double, unit: Int) {
        var value = value
        var unit = 0
        while value >= threshold, unit < units - 1 {
            value /= 1024
            unit += 1
        }
        return (value, unit)
    }

    /// "1 MiB", "64 KiB", "1500 bytes": the largest unit that divides the count exactly.
    public static func exact(_ count: Int) -> String {
        if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }

    /// `value` (below 10) with one decimal: "6.0", "9.9".
    static func oneDecimal(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }
}
