import BackgroundSessions
import Glibc
import LeaderboardServer
import Synchronization
import WidgetTestSupport

/// A fresh empty directory under /tmp, removed (with its files) by `remove()`.
struct ScratchDirectory: ~Copyable {
    let path: String

    init() {
        path = makeTemporaryDirectory(prefix: "bgs-test")
    }

    /// Names of the files in the directory, hidden temp files included, sorted.
    var fileNames: [String] { FilePaths.list(path) }

    func contents(of name: String) -> [UInt8]? {
        try? FileContents.bytes(at: path + "/" + name)
    }

    deinit {
        for name in fileNames { unlink(path + "/" + name) }
        rmdir(path)
    }
}

/// A transport for loopback tests: no proxy, fast retries (base 10 ms, fixed jitter).
func loopbackTransport(_ configure: (inout CurlTransportConfiguration) -> Void = { _ in }) throws -> CurlTransport {
    var config = CurlTransportConfiguration()
    config.noProxy = "127.0.0.1,localhost"
    config.retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100), jitter: { 0.5 })
    configure(&config)
    return try CurlTransport(configuration: config)
}

/// Everything a transfer reported.
struct Outcome: Sendable {
    var result: TransferResult
    var retries: [TransferEvent]
    var elapsed: Duration
}

/// Downloads `url` into `directory` (as "f") and returns why it failed, or nil when it did not.
func downloadFailure(_ url: String, with transport: some HTTPTransport, into directory: String) async -> TransferFailure? {
    await run(transport, TransferRequest(url: url, directory: directory, fileName: "f")).result.failure
}

/// Starts `request` and waits for its `.finished` event.
func run(_ transport: some HTTPTransport, _ request: TransferRequest,
         started: @Sendable (TransferID) -> Void = { _ in }) async -> Outcome {
    let retries = Mutex<[TransferEvent]>([])
    let start = ContinuousClock.now
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<TransferResult, Never>) in
        let id = transport.start(request) { event in
            switch event {
            case .finished(let result): continuation.resume(returning: result)
            case .retrying: retries.withLock { $0.append(event) }
            }
        }
        started(id)
    }
    return Outcome(result: result, retries: retries.withLock { $0 }, elapsed: start.duration(to: .now))
}

/// A loopback server with the given routes, started on a free port.
func loopbackServer(faults configure: (inout FaultInjection) -> Void = { _ in },
                    routes: (HTTPServer) -> Void) throws -> (HTTPServer, String) {
    var config = HTTPServerConfiguration()
    configure(&config.faults)
    let server = HTTPServer(configuration: config)
    routes(server)
    let port = try server.start()
    return (server, "http://127.0.0.1:\(port)")
}

/// Counts calls, thread-safely.
final class Counter: Sendable {
    private let value = Mutex(0)
    /// Adds one and returns the new count.
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

extension TransferResult {
    var failure: TransferFailure? {
        if case .failed(let f) = self { return f }
        return nil
    }
    var file: DownloadedFile? {
        if case .downloaded(let f) = self { return f }
        return nil
    }
}

/// voluntary + nonvoluntary context switches of thread `tid` of this process.
func contextSwitches(thread tid: Int32) -> Int? {
    guard let file = fopen("/proc/self/task/\(tid)/status", "r") else { return nil }
    defer { fclose(file) }
    var total = 0
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if text.hasPrefix("voluntary_ctxt_switches:") || text.hasPrefix("nonvoluntary_ctxt_switches:") {
            total += Int(text.split(separator: ":")[1].filter { $0.isNumber }) ?? 0
        }
    }
    return total
}

/// Waits (up to 2 s) until thread `tid` is blocked in poll(2)/ppoll(2), read from
/// /proc/self/task/TID/syscall; returns whether it got there.
///
/// After a transfer's last event the network thread still has to return into
/// `curl_multi_poll`; going to sleep there is itself a context switch, so an idle measurement
/// must start only once it is asleep.
func waitUntilBlockedInPoll(thread tid: Int32) -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while ContinuousClock.now < deadline {
        if let file = fopen("/proc/self/task/\(tid)/syscall", "r") {
            var line = [CChar](repeating: 0, count: 256)
            let read = fgets(&line, Int32(line.count), file) != nil
            fclose(file)
            if read {
                let first = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.split(separator: " ").first
                if first == "7" || first == "271" { return true }  // x86_64 poll, ppoll
            }
        }
        usleep(1000)
    }
    return false
}
