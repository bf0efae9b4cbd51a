import BackgroundSessions
import Testing

@Suite("URL redaction")
struct URLRedactionTests {
    @Test("a URL's userinfo is replaced by *** and the rest is kept")
    func redactsUserinfo() {
        #expect(URLRedaction.redacted("https://me:secret@example.com/x?q=1#f") == "https://***@example.com/x?q=1#f")
        #expect(URLRedaction.redacted("http://token@example.com") == "http://***@example.com")
        #expect(URLRedaction.redacted("http://a:b@c@example.com:8080/") == "http://***@example.com:8080/")
        #expect(URLRedaction.redacted("HTTP://u:p@[::1]:80/") == "HTTP://***@[::1]:80/")
    }

    @Test("URLs without credentials, and @ in paths or queries, are left alone")
    func leavesOthers() {
        for text in ["https://example.com/users/@me", "http://h/?mail=a@b.c", "http://h#x@y", "not a url", "",
                     "mailto:someone@example.com", "://@", "http://", "é://x@y"] {
            #expect(URLRedaction.redacted(text) == text, "\(text.debugDescription)")
        }
        #expect(!URLRedaction.hasCredentials("https://example.com/users/@me"))
        #expect(URLRedaction.hasCredentials("https://u:p@example.com/"))
    }

    @Test("every URL inside a log line or message is redacted")
    func redactsInText() {
        #expect(URLRedaction.redactingURLs(in: "GET http://a:b@h/x failed; retry https://c:d@k/ later")
                == "GET http://***@h/x failed; retry https://***@k/ later")
        #expect(URLRedaction.redactingURLs(in: "url=\"http://u:p@h\" next") == "url=\"http://***@h\" next")
        #expect(URLRedaction.redactingURLs(in: "(http://u:p@h)") == "(http://***@h)")
    }
}
