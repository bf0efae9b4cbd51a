@testable import BackgroundSessions
import CCurl
import Glibc
import Testing

private final class Item {
    let name: String
    var deadline: Int
    init(_ name: String, deadline: Int = 0) {
        self.name = name
        self.deadline = deadline
    }
}

@Suite("Per-host queue (the transport's admission)")
struct HostQueueTests {
    @Test("up to the limit per host start at once; the others wait in arrival order and take freed slots")
    func admission() {
        var queue = HostQueue<Item>(limit: 2)
        let items = (0..<5).map { Item("a\($0)") }
        let admitted = items.map { queue.admit($0, host: "http://a:80") }
        #expect(admitted == [true, true, false, false, false])
        let otherAdmitted = queue.admit(Item("b"), host: "http://b:80")
        #expect(otherAdmitted, "another host has its own slots")
        #expect(queue.active == ["http://a:80": 2, "http://b:80": 1])
        let second = queue.release(host: "http://a:80")
        #expect(second === items[2])
        #expect(queue.active["http://a:80"] == 2, "the freed slot went to the next one")
        queue.remove(items[3], host: "http://a:80")
        let fourth = queue.release(host: "http://a:80")
        #expect(fourth === items[4])
        let none = [queue.release(host: "http://a:80"), queue.release(host: "http://a:80")]
        #expect(none.allSatisfy { $0 == nil })
        #expect(queue.active["http://a:80"] == 0 && queue.allQueued.isEmpty)
        let again = queue.admit(Item("again"), host: "http://a:80")
        #expect(again)
    }

    @Test("waiting items past their time leave the queue; the others keep their order")
    func expiry() {
        var queue = HostQueue<Item>(limit: 1)
        let running = Item("run", deadline: 0)
        let old = Item("old", deadline: 5), young = Item("young", deadline: 50), older = Item("older", deadline: 1)
        for item in [running, old, young, older] { _ = queue.admit(item, host: "h") }
        let expired = queue.removeExpired { $0.deadline <= 10 }
        #expect(Set(expired.map(\.name)) == ["old", "older"], "the running one is not in the queue")
        #expect(queue.allQueued.map(\.name) == ["young"])
        let next = queue.release(host: "h")
        #expect(next === young)
    }
}

private func report(_ code: CURLcode, status: Int = 0, _ change: (inout AttemptReport) -> Void = { _ in }) -> AttemptReport {
    var r = AttemptReport(code: code, status: status, requestURL: "http://127.0.0.1:9/board", hostKey: "http://127.0.0.1:9",
                          attemptTimeout: .seconds(30))
    change(&r)
    return r
}

private func classify(_ r: AttemptReport, wallNow: Double = 1_800_000_000) -> AttemptClassifier.Verdict {
    AttemptClassifier.classify(r, configuration: CurlTransportConfiguration(), wallNow: wallNow)
}

@Suite("Attempt classification (retry or fail, with the reason shown)")
struct AttemptClassifierTests {
    @Test("statuses: 2xx keeps the body, 304 is not modified, 429 and 5xx retry (with the server's wait), others fail")
    func statuses() {
        #expect(classify(report(CURLE_OK, status: 200)) == .downloaded)
        #expect(classify(report(CURLE_OK, status: 204)) == .downloaded)
        #expect(classify(report(CURLE_OK, status: 304)) == .notModified)
        #expect(classify(report(CURLE_OK, status: 503) { $0.retryAfterValue = "7" })
                == .retry(.httpStatus(503), "server answered 503 Service Unavailable", retryAfter: .seconds(7)))
        #expect(classify(report(CURLE_OK, status: 429) { $0.reasonPhrase = "Slow Down"; $0.retryAfterValue = "soon" })
                == .retry(.httpStatus(429), "server answered 429 Slow Down", retryAfter: nil), "an unreadable wait is ignored")
        #expect(classify(report(CURLE_OK, status: 500)) == .retry(.httpStatus(500), "server answered 500 Internal Server Error", retryAfter: nil))
        #expect(classify(report(CURLE_OK, status: 404)) == .fail(.httpStatus(404), "server answered 404 Not Found"))
        #expect(classify(report(CURLE_OK, status: 418)) == .fail(.httpStatus(418), "server answered 418 "))
    }

    @Test("curl's codes: connection trouble and timeouts retry; size, redirects and bad URLs fail")
    func curlCodes() {
        #expect(classify(report(CURLE_COULDNT_CONNECT) { $0.osErrno = Int(ECONNREFUSED) }) == .retry(.connection, "connection refused", retryAfter: nil))
        #expect(classify(report(CURLE_COULDNT_CONNECT) { $0.errorText = "no route" }) == .retry(.connection, "could not connect: no route", retryAfter: nil))
        #expect(classify(report(CURLE_COULDNT_RESOLVE_HOST) { $0.errorText = "x" }) == .retry(.connection, "could not resolve host: x", retryAfter: nil))
        #expect(classify(report(CURLE_OPERATION_TIMEDOUT)) == .retry(.timedOut, "timed out after 10 s connecting", retryAfter: nil))
        #expect(classify(report(CURLE_OPERATION_TIMEDOUT) { $0.connected = true; $0.errorText = "Operation too slow" })
                == .retry(.timedOut, "stalled: under 1 bytes/s for 15 s", retryAfter: nil))
        #expect(classify(report(CURLE_OPERATION_TIMEDOUT) { $0.connected = true }) == .retry(.timedOut, "timed out after 30 s", retryAfter: nil))
        #expect(classify(report(CURLE_PARTIAL_FILE) { $0.bytesWritten = 10; $0.contentLength = 31 })
                == .retry(.truncated, "connection closed after 10 of 31 bytes", retryAfter: nil))
        #expect(classify(report(CURLE_RECV_ERROR) { $0.osErrno = Int(ECONNRESET) }) == .retry(.connection, "connection reset by the server", retryAfter: nil))
        #expect(classify(report(CURLE_GOT_NOTHING)) == .retry(.connection, "server closed the connection without answering", retryAfter: nil))
        #expect(classify(report(CURLE_FILESIZE_EXCEEDED)) == .fail(.bodyTooLarge, "body larger than 1 MiB"))
        #expect(classify(report(CURLE_OK, status: 200) { $0.bodyTooLarge = true }) == .fail(.bodyTooLarge, "body larger than 1 MiB"))
        #expect(classify(report(CURLE_OK, status: 200) { $0.fileError = "disk full" }) == .fail(.fileSystem, "disk full"))
        #expect(classify(report(CURLE_TOO_MANY_REDIRECTS)) == .fail(.tooManyRedirects, "stopped after 5 redirects"))
        #expect(classify(report(CURLE_URL_MALFORMAT)) == .fail(.badURL, "malformed URL: http://127.0.0.1:9/board"))
        #expect(classify(report(CURLE_UNSUPPORTED_PROTOCOL, status: 302) {
            $0.hostKey = "https://h:443"; $0.requestURL = "https://h/a"; $0.effectiveURL = "http://u:p@h/b"
        }) == .fail(.badURL, "refused a redirect from https to http: http://***@h/b"))
        #expect(classify(report(CURLE_SSL_CERTPROBLEM) { $0.errorText = "bad cert" }) == .fail(.other, "bad cert"))
    }

    @Test("a POST that reached the server is never retried; one that never connected is")
    func post() {
        #expect(classify(report(CURLE_OK, status: 503) { $0.isPost = true; $0.connected = true })
                == .fail(.httpStatus(503), "server answered 503 Service Unavailable"))
        #expect(classify(report(CURLE_COULDNT_CONNECT) { $0.isPost = true; $0.osErrno = Int(ECONNREFUSED) })
                == .retry(.connection, "connection refused", retryAfter: nil))
    }

    @Test("after a retryable failure: wait, or give up with the tries, a too-long wait or the deadline in the reason")
    func decide() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(60), jitter: { 0.5 })
        let now = ContinuousClock.now
        let drawn = Counter()
        func decide(_ retryAfter: Duration?, attempts: Int, deadline: Duration = .seconds(120)) -> AttemptClassifier.RetryDecision {
            AttemptClassifier.decide(reason: "connection refused", retryAfter: retryAfter, attempts: attempts, policy: policy,
                                     jitter: { _ = drawn.next(); return 0.5 }, now: now, deadline: now + deadline,
                                     transferDeadline: .seconds(120))
        }
        #expect(decide(nil, attempts: 1) == .wait(policy.delay(afterAttempt: 1, jitter: 0.5)))
        #expect(drawn.count == 1)
        #expect(decide(.seconds(7), attempts: 1) == .wait(.seconds(7)))
        #expect(drawn.count == 1, "no jitter drawn when the server gave the wait")
        #expect(decide(nil, attempts: 3) == .giveUp("connection refused after 3 tries"))
        #expect(decide(.seconds(400), attempts: 1) == .giveUp("connection refused (asked to retry in 400 s)"))
        #expect(decide(.seconds(30), attempts: 2, deadline: .seconds(10))
                == .giveUp("connection refused after 2 tries (no time left to retry within 120 s)"))
    }
}
