@testable import BackgroundSessions
import Dispatch
import Glibc
import LeaderboardServer
import Synchronization
import Testing

private let boardBody = Array(#"{"heroes":[{"name":"Spouty"}]}"#.utf8)

@Suite("Curl transport", .serialized)
struct CurlTransportTests {
    @Test("a 200 is written to the destination file, with no temporary file left")
    func downloadsToFile() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(boardBody) } }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json"))
        let file = try #require(outcome.result.file)
        #expect(file.status == 200 && file.byteCount == boardBody.count && file.attempts == 1)
        #expect(file.path == dir.path + "/board.json")
        #expect(file.validators.etag == HTTPResponse.entityTag(for: boardBody))
        #expect(dir.fileNames == ["board.json"])
        #expect(dir.contents(of: "board.json") == boardBody)
    }

    @Test("the ETag of the last 200 is sent back and a 304 is reported as not modified")
    func conditionalETag() async throws {
        let seen = Mutex<[String?]>([])
        let (server, base) = try loopbackServer {
            $0.route("/board") { request in
                seen.withLock { $0.append(request.headers["If-None-Match"]) }
                return .json(boardBody)
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let request = TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json")
        _ = await run(transport, request)
        let second = await run(transport, request)
        let etag = HTTPResponse.entityTag(for: boardBody)
        #expect(second.result == .notModified(Validators(etag: etag)))
        #expect(seen.withLock { $0 } == [nil, etag])
        #expect(dir.fileNames == ["board.json"])
        #expect(dir.contents(of: "board.json") == boardBody)
    }

    @Test("another session fetching the same URL sends no validators it never received: a 200, not a 304 without a body")
    func validatorsPerSession() async throws {
        let seen = Mutex<[String?]>([])
        let (server, base) = try loopbackServer {
            $0.route("/board") { request in
                seen.withLock { $0.append(request.headers["If-None-Match"]) }
                return .json(boardBody)
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let one = ScratchDirectory(), other = ScratchDirectory()
        _ = await run(transport, TransferRequest(url: base + "/board", directory: one.path, fileName: "a"))
        let second = await run(transport, TransferRequest(url: base + "/board", directory: other.path, fileName: "b"))
        #expect(second.result.file?.status == 200)
        #expect(other.contents(of: "b") == boardBody)
        let again = await run(transport, TransferRequest(url: base + "/board", directory: one.path, fileName: "a"))
        let etag = HTTPResponse.entityTag(for: boardBody)
        #expect(again.result == .notModified(Validators(etag: etag)), "the first session still validates its copy")
        #expect(seen.withLock { $0 } == [nil, nil, etag])
    }

    @Test("Last-Modified is sent back as If-Modified-Since")
    func conditionalLastModified() async throws {
        let stamp = "Sun, 06 Nov 1994 08:49:37 GMT"
        let (server, base) = try loopbackServer {
            $0.route("/data") { request in
                if request.headers["If-Modified-Since"] == stamp { return HTTPResponse(status: 304) }
                return HTTPResponse(headers: HTTPHeaders([("Last-Modified", stamp)]), body: [1, 2, 3])
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let request = TransferRequest(url: base + "/data", directory: dir.path, fileName: "data")
        #expect(await run(transport, request).result.file?.validators == Validators(lastModified: stamp))
        #expect(await run(transport, request).result == .notModified(Validators(lastModified: stamp)))
    }

    @Test("a 500 is retried and the following 200 succeeds")
    func retriesServerError() async throws {
        let calls = Counter()
        let (server, base) = try loopbackServer {
            $0.route("/flaky") { _ in calls.next() == 1 ? .text("boom", status: 500) : .text("fine") }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/flaky", directory: dir.path, fileName: "f"))
        #expect(outcome.result.file?.attempts == 2)
        #expect(outcome.retries == [.retrying(attempt: 1, delay: .milliseconds(7.5), reason: "server answered 500 Internal Server Error")])
        #expect(dir.contents(of: "f") == Array("fine".utf8))
        #expect(dir.fileNames == ["f"])
    }

    @Test("persistent 500s end with a reason naming the status and the tries")
    func givesUpOnServerError() async throws {
        let (server, base) = try loopbackServer { $0.route("/down") { _ in .text("boom", status: 500) } }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/down", directory: dir.path, fileName: "f"))
        let failure = try #require(outcome.result.failure)
        #expect(failure.kind == .httpStatus(500) && failure.attempts == 3)
        #expect(failure.reason == "server answered 500 Internal Server Error after 3 tries")
        #expect(outcome.retries.count == 2)
        #expect(dir.fileNames.isEmpty)
    }

    @Test("a POST sends its body, takes a 202, and is never retried once the server was reached")
    func postIsNotRetried() async throws {
        let calls = Counter()
        let bodies = Mutex<[String]>([])
        let (server, base) = try loopbackServer {
            $0.route("/act", methods: ["POST"], maxBodyBytes: 64) { request in
                bodies.withLock { $0.append(request.method + " " + String(decoding: request.body, as: UTF8.self)) }
                return calls.next() == 1 ? .text("busy", status: 503) : .text("Accepted", status: 202)
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let failed = await run(transport, TransferRequest(url: base + "/act", directory: dir.path, fileName: "a", postBody: Array("heal".utf8)))
        #expect(failed.result.failure?.reason == "server answered 503 Service Unavailable")
        #expect(failed.result.failure?.attempts == 1 && failed.retries.isEmpty, "a 503 to a POST is not tried again")
        let accepted = await run(transport, TransferRequest(url: base + "/act", directory: dir.path, fileName: "a", postBody: []))
        #expect(accepted.result.file?.status == 202)
        #expect(bodies.withLock { $0 } == ["POST heal", "POST "])
    }

    @Test("a POST to a closed port is retried: the server never saw it")
    func postRetriedBeforeConnecting() async throws {
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let port = closedLoopbackPort()
        let outcome = await run(transport, TransferRequest(url: "http://127.0.0.1:\(port)/act", directory: dir.path, fileName: "a",
                                                           postBody: Array("x".utf8)))
        #expect(outcome.result.failure?.attempts == 3)
    }

    @Test("a 404 is not retried")
    func notFoundIsFinal() async throws {
        let (server, base) = try loopbackServer { _ in }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(base + "/x", with: transport, into: dir.path))
        #expect(failure.reason == "server answered 404 Not Found" && failure.attempts == 1)
    }

    @Test("keepsErrorBody: a 400's body is delivered as the download with its status; a 500 still fails after its retries; without it a 400 fails")
    func errorBodyKept() async throws {
        let explanation = #"{"status":"error","errorType":"bad_data","error":"parse error"}"#
        let (server, base) = try loopbackServer { server in
            server.route("/bad") { _ in .json(Array(explanation.utf8), status: 400) }
            server.route("/broken") { _ in .text("oops", status: 500) }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let kept = await run(transport, TransferRequest(url: base + "/bad", directory: dir.path, fileName: "b", keepsErrorBody: true))
        guard case .downloaded(let file) = kept.result else {
            Issue.record("\(kept.result)")
            return
        }
        #expect(file.status == 400 && file.attempts == 1)
        #expect(dir.contents(of: "b") == Array(explanation.utf8))
        let retried = await run(transport, TransferRequest(url: base + "/broken", directory: dir.path, fileName: "c", keepsErrorBody: true))
        #expect(retried.result.failure?.attempts == 3 && dir.contents(of: "c") == nil, "\(retried.result)")
        let dropped = await run(transport, TransferRequest(url: base + "/bad", directory: dir.path, fileName: "d"))
        #expect(dropped.result.failure?.reason == "server answered 400 Bad Request" && dir.contents(of: "d") == nil)
    }

    @Test("429 with Retry-After in seconds is honoured")
    func retryAfterSeconds() async throws {
        let calls = Counter()
        let (server, base) = try loopbackServer {
            $0.route("/busy") { _ in
                guard calls.next() == 1 else { return .text("ok") }
                var r = HTTPResponse.text("slow down", status: 429)
                r.headers.set("Retry-After", "1")
                return r
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/busy", directory: dir.path, fileName: "f"))
        #expect(outcome.result.file?.attempts == 2)
        #expect(outcome.retries == [.retrying(attempt: 1, delay: .seconds(1), reason: "server answered 429 Too Many Requests")])
        #expect(outcome.elapsed >= .milliseconds(950))
    }

    @Test("429 with Retry-After as an HTTP date is honoured")
    func retryAfterDate() async throws {
        let calls = Counter()
        let (server, base) = try loopbackServer {
            $0.route("/busy") { _ in
                guard calls.next() == 1 else { return .text("ok") }
                var r = HTTPResponse.text("slow down", status: 429)
                r.headers.set("Retry-After", HTTPDate.format(secondsSince1970: HTTPDate.nowSecondsSince1970() + 2))
                return r
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/busy", directory: dir.path, fileName: "f"))
        #expect(outcome.result.file?.attempts == 2)
        // The date has whole seconds: "2 s ahead" is between 1 and 2 s from now.
        #expect(outcome.elapsed >= .milliseconds(900))
        guard case .retrying(_, let delay, _)? = outcome.retries.first else {
            Issue.record("no retry reported")
            return
        }
        #expect(delay > .milliseconds(900) && delay <= .seconds(2))
    }

    @Test("an answer slower than the request timeout fails as timed out")
    func timeout() async throws {
        let (server, base) = try loopbackServer(faults: { $0.delay = .seconds(5) }) {
            $0.route("/slow") { _ in .text("late") }
        }
        defer { server.stop() }
        let transport = try loopbackTransport {
            $0.requestTimeout = .milliseconds(300)
            $0.retry.maxAttempts = 1
        }
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/slow", directory: dir.path, fileName: "f"))
        let failure = try #require(outcome.result.failure)
        #expect(failure.kind == .timedOut)
        #expect(failure.reason == "timed out after 300 ms")
        #expect(outcome.elapsed < .seconds(3))
        #expect(dir.fileNames.isEmpty)
    }

    @Test("a truncated body fails cleanly after the retries and leaves no file")
    func truncated() async throws {
        let (server, base) = try loopbackServer(faults: { $0.truncateRate = 1 }) {
            $0.route("/data") { _ in .text(String(repeating: "x", count: 1000)) }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(base + "/data", with: transport, into: dir.path))
        #expect(failure.kind == .truncated && failure.attempts == 3)
        #expect(failure.reason == "connection closed after 500 of 1000 bytes after 3 tries")
        #expect(dir.fileNames.isEmpty)
    }

    @Test("an oversized body is refused without retrying and leaves no file")
    func oversized() async throws {
        let (server, base) = try loopbackServer { $0.route("/big") { _ in HTTPResponse(body: [UInt8](repeating: 7, count: 4096)) } }
        defer { server.stop() }
        let transport = try loopbackTransport { $0.maxBodyBytes = 1024 }
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(base + "/big", with: transport, into: dir.path))
        #expect(failure.kind == .bodyTooLarge && failure.attempts == 1)
        #expect(failure.reason == "body larger than 1 KiB")
        #expect(dir.fileNames.isEmpty)
    }

    @Test("custom headers go only to the configured origin: a redirect to another port loses them, one on the same origin keeps them (issue 22, item 8)")
    func customHeadersStayWithTheirOrigin() async throws {
        let seenElsewhere = Mutex<[String?]>([])
        let (other, otherBase) = try loopbackServer {
            $0.route("/land") { request in
                seenElsewhere.withLock { $0.append(request.headers["X-Api-Key"]) }
                return .json(boardBody)
            }
        }
        defer { other.stop() }
        let seenHere = Mutex<[String?]>([])
        let (server, base) = try loopbackServer {
            $0.route("/away") { _ in HTTPResponse(status: 302, headers: HTTPHeaders([("Location", otherBase + "/land")])) }
            $0.route("/near") { _ in HTTPResponse(status: 301, headers: HTTPHeaders([("Location", "/here")])) }
            $0.route("/back") { _ in HTTPResponse(status: 307, headers: HTTPHeaders([("Location", otherBase + "/land")])) }
            $0.route("/here") { request in
                seenHere.withLock { $0.append(request.headers["X-Api-Key"]) }
                return .json(boardBody)
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let headers = ["X-Api-Key": "s3cret", "Accept": "application/json"]
        let away = await run(transport, TransferRequest(url: base + "/away", directory: dir.path, fileName: "a", headers: headers))
        #expect(away.result.file?.status == 200 && away.result.file?.attempts == 1)
        #expect(dir.contents(of: "a") == boardBody)
        let near = await run(transport, TransferRequest(url: base + "/near", directory: dir.path, fileName: "b", headers: headers))
        #expect(near.result.file?.status == 200)
        #expect(seenElsewhere.withLock { $0 } == [nil])
        #expect(seenHere.withLock { $0 } == ["s3cret"])
        // Without custom headers curl follows by itself, as before.
        let plain = await run(transport, TransferRequest(url: base + "/back", directory: dir.path, fileName: "c"))
        #expect(plain.result.file?.status == 200)
        #expect(seenElsewhere.withLock { $0 } == [nil, nil])
    }

    @Test("with custom headers, the redirect limit and the protocol rules hold as when curl follows")
    func customHeadersRedirectRules() async throws {
        let (server, base) = try loopbackServer {
            $0.route("/loop") { _ in HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "/loop")])) }
            $0.route("/file") { _ in HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "file:///etc/passwd")])) }
        }
        defer { server.stop() }
        let transport = try loopbackTransport { $0.maxRedirects = 3 }
        let dir = ScratchDirectory()
        let headers = ["X-Api-Key": "s3cret"]
        let loop = await run(transport, TransferRequest(url: base + "/loop", directory: dir.path, fileName: "f", headers: headers))
        #expect(loop.result.failure?.kind == .tooManyRedirects)
        #expect(loop.result.failure?.reason == "stopped after 3 redirects")
        let file = await run(transport, TransferRequest(url: base + "/file", directory: dir.path, fileName: "f", headers: headers))
        #expect(file.result.failure?.kind == .badURL)
        #expect(file.result.failure?.reason == "refused a redirect to another protocol: file:///etc/passwd")
        #expect(dir.fileNames.isEmpty)
    }

    @Test("a redirect loop is stopped at the redirect limit")
    func redirectLoop() async throws {
        let (server, base) = try loopbackServer {
            $0.route("/loop") { _ in HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "/loop")])) }
        }
        defer { server.stop() }
        let transport = try loopbackTransport { $0.maxRedirects = 3 }
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(base + "/loop", with: transport, into: dir.path))
        #expect(failure.kind == .tooManyRedirects)
        #expect(failure.reason == "stopped after 3 redirects")
    }

    @Test("a closed port is reported as connection refused after the retries")
    func connectionRefused() async throws {
        let port = closedLoopbackPort()

        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: "http://127.0.0.1:\(port)/", directory: dir.path, fileName: "f"))
        let failure = try #require(outcome.result.failure)
        #expect(failure.kind == .connection && failure.attempts == 3)
        #expect(failure.reason == "connection refused after 3 tries")
        #expect(outcome.retries.count == 2)
    }

    @Test("only http and https URLs are accepted")
    func protocols() async throws {
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        for url in ["ftp://127.0.0.1/x", "file:///etc/passwd", "not a url"] {
            let failure = try #require(await downloadFailure(url, with: transport, into: dir.path))
            #expect(failure.kind == .badURL)
        }
        #expect(dir.fileNames.isEmpty)
    }

    @Test("a redirect to another protocol is refused")
    func redirectProtocol() async throws {
        let (server, base) = try loopbackServer {
            $0.route("/away") { _ in HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "file:///etc/passwd")])) }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(base + "/away", with: transport, into: dir.path))
        #expect(failure.kind == .badURL && failure.attempts == 1)
        #expect(dir.fileNames.isEmpty)
    }

    @Test("a huge Retry-After in seconds ends the transfer with a readable reason, not a trap (issue 10, item 1)")
    func hugeRetryAfterSeconds() async throws {
        for value in ["9223372036854775807", "10000000000000000", "99999999999999999999999"] {
            let (server, base) = try loopbackServer {
                $0.route("/busy") { _ in
                    var r = HTTPResponse.text("slow down", status: 429)
                    r.headers.set("Retry-After", value)
                    return r
                }
            }
            defer { server.stop() }
            let transport = try loopbackTransport()
            let dir = ScratchDirectory()
            let outcome = await run(transport, TransferRequest(url: base + "/busy", directory: dir.path, fileName: "f"))
            let failure = try #require(outcome.result.failure, "Retry-After: \(value)")
            #expect(failure.kind == .httpStatus(429) && failure.attempts == 1)
            #expect(failure.reason == "server answered 429 Too Many Requests (asked to retry in 3153600000 s)")
            #expect(failure.retryAfter == RetryAfter.longest)
            #expect(outcome.retries.isEmpty)
        }
    }

    @Test("a Retry-After date in year 99999999999 or 2000000000 is ignored and the usual backoff applies")
    func hugeRetryAfterDate() async throws {
        for date in ["Sun, 06 Nov 99999999999 08:49:37 GMT", "Sun, 06 Nov 2000000000 08:49:37 GMT"] {
            let (server, base) = try loopbackServer {
                $0.route("/busy") { _ in
                    var r = HTTPResponse.text("down", status: 503)
                    r.headers.set("Retry-After", date)
                    return r
                }
            }
            defer { server.stop() }
            let transport = try loopbackTransport()
            let dir = ScratchDirectory()
            let outcome = await run(transport, TransferRequest(url: base + "/busy", directory: dir.path, fileName: "f"))
            let failure = try #require(outcome.result.failure, "Retry-After: \(date)")
            #expect(failure.reason == "server answered 503 Service Unavailable after 3 tries")
            #expect(failure.retryAfter == nil)
            #expect(outcome.retries.count == 2)
        }
    }

    @Test("a reason phrase with escape sequences or a huge length reaches the error text cleaned and cut")
    func hostileReasonPhrase() async throws {
        let reason = "Gone\u{1B}[2J\u{1B}]0;pwned\u{07}\u{202E}" + String(repeating: "x", count: 500)
        let server = try CannedHTTPServer(response: Array("HTTP/1.1 404 \(reason)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure(server.url + "/evil", with: transport, into: dir.path))
        #expect(!failure.reason.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(failure.reason.hasPrefix("server answered 404 Gone[2J]0;pwnedxxx"))
        #expect(failure.reason.count < 160)
    }

    @Test("loopback never goes through a proxy; other hosts still do (issue 10, item 8)")
    func loopbackBypassesProxy() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(boardBody) } }
        defer { server.stop() }
        // A "proxy" that answers every proxied request with 400 (it wants origin-form
        // targets): reaching it shows which requests went through the proxy.
        let (proxy, proxyURL) = try loopbackServer { _ in }
        defer { proxy.stop() }
        let port = base.split(separator: ":").last!
        for bogus in ["http://127.0.0.1:9", proxyURL] {
            let transport = try loopbackTransport {
                $0.noProxy = nil
                $0.proxy = bogus
                $0.retry.maxAttempts = 1
            }
            let dir = ScratchDirectory()
            for url in ["http://127.0.0.1:\(port)/board", "http://localhost:\(port)/board", "http://LOCALHOST:\(port)/board"] {
                let outcome = await run(transport, TransferRequest(url: url, directory: dir.path, fileName: "board.json",
                                                                   validators: Validators()))
                #expect(outcome.result.file?.status == 200, "\(url) via proxy \(bogus): \(outcome.result)")
            }
        }
        let transport = try loopbackTransport {
            $0.noProxy = "example.org"
            $0.proxy = proxyURL
            $0.retry.maxAttempts = 1
        }
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure("http://proxied.invalid/board", with: transport, into: dir.path))
        #expect(failure.reason == "server answered 400 Bad Request", "the proxy was not used: \(failure.reason)")
    }

    @Test("the no-proxy list keeps the configured or environment's hosts and adds loopback")
    func noProxyList() {
        let loopback = "localhost,127.0.0.0/8,::1,::ffff:127.0.0.0/104"
        #expect(NetworkLoop.noProxyList(configured: nil, environment: [:]) == loopback)
        #expect(NetworkLoop.noProxyList(configured: nil, environment: ["NO_PROXY": "corp.example, .internal"])
                == "corp.example,.internal," + loopback)
        #expect(NetworkLoop.noProxyList(configured: nil, environment: ["no_proxy": "a.example", "NO_PROXY": "b.example"])
                == "a.example," + loopback)
        #expect(NetworkLoop.noProxyList(configured: "x.example,localhost", environment: ["no_proxy": "a.example"])
                == "x.example,localhost,127.0.0.0/8,::1,::ffff:127.0.0.0/104")
        #expect(NetworkLoop.noProxyList(configured: nil, environment: ["no_proxy": "*"]) == "*")
    }

    @Test("a transfer that starts on https may only be redirected to https")
    func httpsStaysHTTPS() {
        #expect(NetworkLoop.redirectProtocols(for: "https://example.org:443", allowingDowngrade: false) == "https")
        #expect(NetworkLoop.redirectProtocols(for: "https://example.org:443", allowingDowngrade: true) == "http,https")
        #expect(NetworkLoop.redirectProtocols(for: "http://example.org:80", allowingDowngrade: false) == "http,https")
    }

    @Test("credentials in a URL never appear in an error text")
    func credentialsRedacted() async throws {
        let (server, base) = try loopbackServer {
            $0.route("/away") { _ in
                HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "ftp://mallory:hunter2@127.0.0.1/x")]))
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let withUser = "http://alice:s3cret@" + base.dropFirst("http://".count)
        let expected = [
            "ftp://alice:s3cret@127.0.0.1/x": "not an http or https URL: ftp://***@127.0.0.1/x",
            withUser + "/away": "refused a redirect to another protocol: ftp://***@127.0.0.1/x",
            "http://alice:s3cret@[::1/x": "not an http or https URL: http://***@[::1/x",
        ]
        for (url, reason) in expected {
            let failure = try #require(await downloadFailure(url, with: transport, into: dir.path))
            #expect(failure.kind == .badURL, "\(url): \(failure.reason)")
            #expect(failure.reason == reason)
        }
    }

    @Test("a transfer cancelled while the server is answering ends as cancelled at once")
    func cancel() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let (server, base) = try loopbackServer {
            $0.route("/hold") { _ in
                arrived.yield()
                // Hold the answer until the test is done (bounded), like a slow server.
                _ = release.wait(timeout: .now() + 5)
                return .text("late")
            }
        }
        defer {
            release.signal()
            server.stop()
        }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let outcome = await run(transport, TransferRequest(url: base + "/hold", directory: dir.path, fileName: "f")) { id in
            Task {
                var iterator = arrivals.makeAsyncIterator()
                _ = await iterator.next()
                transport.cancel(id)
            }
        }
        #expect(outcome.result == .cancelled)
        #expect(outcome.elapsed < .seconds(4))
        #expect(dir.fileNames.isEmpty)
    }

    @Test("50 concurrent transfers to one host respect the per-host limit and all succeed")
    func perHostLimit() async throws {
        let load = Mutex((current: 0, peak: 0))
        let (server, base) = try loopbackServer {
            $0.route("/item") { request in
                load.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) }
                usleep(20_000)  // server-side work, so that requests overlap
                load.withLock { $0.current -= 1 }
                return .text(request.query ?? "")
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport { $0.maxConcurrentPerHost = 4 }
        let dir = ScratchDirectory()
        let path = dir.path
        let results = await withTaskGroup(of: TransferResult.self) { group in
            for i in 0..<50 {
                group.addTask {
                    await run(transport, TransferRequest(url: base + "/item?\(i)", directory: path, fileName: "item\(i)")).result
                }
            }
            return await group.reduce(into: [TransferResult]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.file != nil })
        #expect(dir.fileNames.count == 50)
        #expect(dir.contents(of: "item17") == Array("17".utf8))
        let peak = load.withLock { $0.peak }
        #expect(peak <= 4)
        #expect(peak >= 2)
    }

    @Test("the network thread does not wake while nothing is in flight")
    func idleThreadSleeps() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(boardBody) } }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        for _ in 0..<3 {
            _ = await run(transport, TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json"))
        }
        let tid = try #require(transport.networkThreadID)
        #expect(waitUntilBlockedInPoll(thread: tid))
        let before = try #require(contextSwitches(thread: tid))
        // Measurement window: nothing is awaited here, the point is that nothing happens.
        try await Task.sleep(for: .seconds(1))
        let after = try #require(contextSwitches(thread: tid))
        #expect(after == before)
        // And it still wakes for new work.
        #expect(await run(transport, TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json")).result
                == .notModified(Validators(etag: HTTPResponse.entityTag(for: boardBody))))
        #expect(contextSwitches(thread: tid)! > after)
    }

    @Test("after shutdown, new transfers fail at once")
    func shutdown() async throws {
        let transport = try loopbackTransport()
        transport.shutdown()
        let dir = ScratchDirectory()
        let failure = try #require(await downloadFailure("http://127.0.0.1:1/", with: transport, into: dir.path))
        #expect(failure.reason == "the transport was shut down")
    }
}

/// A loopback port nothing listens on (bound, read, closed).
private func closedLoopbackPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    close(fd)
    return UInt16(bigEndian: addr.sin_port)
}
