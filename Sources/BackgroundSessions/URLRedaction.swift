/// Hides the credentials of URLs before they are shown: in error texts, log lines and
/// command output.
///
/// A URL's userinfo (`user:password@` in `https://user:password@host/path`) is replaced by
/// `***`, so a reader still sees that credentials were given but never what they are. The rest
/// of the URL is kept as written. Works on text that is not a valid URL too: it only looks for
/// `scheme://…@` before the first `/`, `?` or `#` of the authority.
///
/// ```swift
/// URLRedaction.redacted("https://me:secret@example.com/x")   // "https://***@example.com/x"
/// URLRedaction.redactingURLs(in: "GET http://a:b@h/ failed") // "GET http://***@h/ failed"
/// ```
public enum URLRedaction {
    /// What replaces a URL's userinfo.
    public static let placeholder = "***"

    /// `url` with its userinfo, if any, replaced by `***`.
    public static func redacted(_ url: String) -> String {
        redactingURLs(in: url)
    }

    /// `text` with the userinfo of every `scheme://userinfo@host` in it replaced by `***`.
    ///
    /// For log lines and messages that embed URLs among other words. Linear in the text's length.
    public static func redactingURLs(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            // An authority starts after "://" preceded by a scheme (letter, then letters,
            // digits, + - .).
            guard index + 3 <= scalars.count, scalars[index] == ":", scalars[index + 1] == "/",
                  scalars[index + 2] == "/", hasScheme(before: index, in: scalars) else {
                out.append(scalars[index])
                index += 1
                continue
            }
            out.append(contentsOf: "://".unicodeScalars)
            index += 3
            // The authority ends at / ? # or at whitespace (the URL ends there in running text).
            var end = index
            var lastAt: Int?
            while end < scalars.count, !isAuthorityEnd(scalars[end]) {
                if scalars[end] == "@" { lastAt = end }
                end += 1
            }
            if let lastAt {
                out.append(contentsOf: placeholder.unicodeScalars)
                index = lastAt
            }
            while index < end {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    /// Whether `url` carries a userinfo part that `redacted` would hide.
    public static func hasCredentials(_ url: String) -> Bool {
        redacted(url) != url
    }

    private static func isAuthorityEnd(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", "?", "#", " ", "\t", "\n", "\r", "\"", "'", "<", ">": return true
        default: return scalar.value < 0x20 || scalar.value == 0x7F
        }
    }

    private static func hasScheme(before colon: Int, in scalars: [Unicode.Scalar]) -> Bool {
        var start = colon
        while start > 0 {
            let previous = scalars[start - 1]
            guard previous.isASCII, previous.properties.isAlphabetic || ("0"..."9").contains(previous)
                    || previous == "+" || previous == "-" || previous == "." else { break }
            start -= 1
        }
        guard start < colon else { return false }
        // Skip leading characters that cannot start a scheme ("1http" reads as "http").
        while start < colon, !(scalars[start].isASCII && scalars[start].properties.isAlphabetic) { start += 1 }
        return start < colon
    }
}
