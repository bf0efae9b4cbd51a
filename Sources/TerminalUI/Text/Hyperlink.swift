/// What a link may be (an entry's `url`, a text span's `link`): http, https or mailto, at
/// most 4096 bytes, no controls or spaces (a link is opened as one argument, exactly as given).
public enum Hyperlink {
    public static let maximumBytes = 4096

    public static func isAllowed(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard url.utf8.count <= maximumBytes, ["http://", "https://", "mailto:"].contains(where: { lower.hasPrefix($0) }),
              lower.count > (lower.hasPrefix("mailto:") ? 7 : 8) else { return false }
        return url.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
    }
}
