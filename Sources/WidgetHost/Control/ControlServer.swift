#if canImport(Glibc)
import Glibc
#endif
import CLinux
import JSONTree

/// The running dashboard's control socket (DESIGN.md §11): a Unix socket that scripts of the
/// same user reach with `widgethost reload` (JSON-RPC, one request per line, one answer
/// line each), served on the loop — the listener, each client and one deadline timer are
/// descriptors of `MainLoop`, so an idle socket costs no wake-up and nothing polls.
///
/// Untrusted at every step: a peer of another user is refused (`SO_PEERCRED`); a request line
/// is at most `maximumLine` bytes; a client has `clientSeconds` to finish each line, and at
/// most `maximumClients` are served at once — one that sends nothing, or megabytes, is cut
/// off without holding the loop (every read and write is non-blocking).
@MainActor
final class ControlServer {
    nonisolated static let maximumLine = 64 << 10
    static let maximumClients = 16
    static let clientSeconds: Int64 = 2

    private struct Client {
        var buffer: [UInt8] = []
        /// When it must have sent its line (monotonic milliseconds).
        var deadline: Int64
    }

    let path: String
    private let loop: MainLoop
    private let listener: Int32
    private let timer: Int32
    private let identity: (device: UInt64, inode: UInt64)
    private var clients: [Int32: Client] = [:]
    private let answer: (JSONValue) -> JSONValue
    private var closed = false

    /// Listens at `path` (see `ControlPath`): a socket left by a host that died is replaced; a
    /// live one (another dashboard on this state directory) is left alone and named in the
    /// failure. `answer` turns a request into its `result` (or an `error` object).
    static func open(path: String, loop: MainLoop, answer: @escaping (JSONValue) -> JSONValue) -> Result<ControlServer, ControlPath.Problem> {
        let probe = wh_unix_connect(path)
        if probe >= 0 {
            Glibc.close(probe)
            return .failure(ControlPath.Problem(description: "another dashboard on this state directory answers at \(path)"))
        }
        if probe == -ECONNREFUSED {
            // A socket nobody listens on: its host died. Only a socket is removed.
            var info = stat()
            if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK, info.st_uid == getuid() { unlink(path) }
        }
        let fd = wh_unix_listen(path, 16)
        guard fd >= 0 else {
            return .failure(ControlPath.Problem(description: "cannot listen at \(path): \(String(cString: strerror(-fd)))"))
        }
        var info = stat()
        let timer = wh_timerfd_create_monotonic()
        guard timer >= 0, fstat(fd, &info) == 0 || lstat(path, &info) == 0 else {
            Glibc.close(fd)
            if timer >= 0 { Glibc.close(timer) }
            return .failure(ControlPath.Problem(description: "cannot set up the control socket: \(String(cString: strerror(errno)))"))
        }
        var onDisk = stat()
        let identity = lstat(path, &onDisk) == 0 ? (UInt64(onDisk.st_dev), UInt64(onDisk.st_ino)) : (0, 0)
        return .success(ControlServer(path: path, loop: loop, listener: fd, timer: timer, identity: identity, answer: answer))
    }

    private init(path: String, loop: MainLoop, listener: Int32, timer: Int32, identity: (device: UInt64, inode: UInt64),
                 answer: @escaping (JSONValue) -> JSONValue) {
        self.path = path
        self.loop = loop
        self.listener = listener
        self.timer = timer
        self.identity = identity
        self.answer = answer
        loop.watch(listener) { [weak self] in self?.acceptAll() }
        loop.watch(timer) { [weak self] in self?.expire() }
    }

    /// Stops listening, cuts every client off and removes the socket (if it is still ours).
    func close() {
        guard !closed else { return }
        closed = true
        for fd in Array(clients.keys) { drop(fd) }
        loop.unwatch(listener)
        loop.unwatch(timer)
        Glibc.close(listener)
        Glibc.close(timer)
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode { unlink(path) }
    }

    private func acceptAll() {
        while true {
            let fd = wh_unix_accept(listener)
            guard fd >= 0 else { return }  // -EAGAIN: no more waiting
            guard wh_peer_uid(fd) == Int(getuid()), clients.count < Self.maximumClients else {
                Glibc.close(fd)
                continue
            }
            clients[fd] = Client(deadline: Self.now() + Self.clientSeconds * 1000)
            loop.watch(fd) { [weak self] in self?.readable(fd) }
            rearm()
        }
    }

    private func readable(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while clients[fd] != nil {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return drop(fd) }  // the client is done
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { drop(fd) }
                return
            }
            clients[fd]?.buffer += chunk[..<count]
            while let buffer = clients[fd]?.buffer, let newline = buffer.firstIndex(of: 10) {
                clients[fd]?.buffer = Array(buffer[(newline + 1)...])
                clients[fd]?.deadline = Self.now() + Self.clientSeconds * 1000
                guard reply(to: Array(buffer[..<newline]), on: fd) else { return drop(fd) }
            }
            if let buffer = clients[fd]?.buffer, buffer.count > Self.maximumLine {
                _ = send(Self.error(id: .null, code: -32600, "a request line is at most \(Self.maximumLine) bytes"), to: fd)
                return drop(fd)
            }
        }
    }

    /// Answers one request line; false when the answer could not be written.
    private func reply(to line: [UInt8], on fd: Int32) -> Bool {
        guard !line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) else { return true }
        guard case .object(let request)? = try? JSONParser(maximumBytes: Self.maximumLine, maximumDepth: 8).parse(line) else {
            return send(Self.error(id: .null, code: -32700, "not a JSON object"), to: fd)
        }
        let id = request["id"] ?? .null
        guard request["jsonrpc"] == .string("2.0"), case .string? = request["method"] else {
            return send(Self.error(id: id, code: -32600, "expected {\"jsonrpc\": \"2.0\", \"id\", \"method\", \"params\"}"), to: fd)
        }
        let result = answer(.object(request))
        if case .object(let object) = result, case .string(let message)? = object["error"] {
            let code = if case .integer(let code)? = object["code"] { code } else { -32602 }
            return send(Self.error(id: id, code: code, message), to: fd)
        }
        return send(JSONValue.object(JSONObject(members: [("jsonrpc", .string("2.0")), ("id", id), ("result", result)])).jsonText + "\n",
                    to: fd)
    }

    static func error(id: JSONValue, code: Int, _ message: String) -> String {
        JSONValue.object(JSONObject(members: [("jsonrpc", .string("2.0")), ("id", id), ("error", .object(JSONObject(members: [
            ("code", .integer(code)), ("message", .string(message)),
        ])))])).jsonText + "\n"
    }

    /// Writes an answer without waiting: one that does not fit the socket's buffer now (a
    /// client that does not read) ends the client.
    private func send(_ text: String, to fd: Int32) -> Bool {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return written == bytes.count
    }

    private func drop(_ fd: Int32) {
        guard clients.removeValue(forKey: fd) != nil else { return }
        loop.unwatch(fd)
        Glibc.close(fd)
        rearm()
    }

    /// Cuts off the clients past their deadline.
    private func expire() {
        var expirations: UInt64 = 0
        _ = read(timer, &expirations, 8)
        let now = Self.now()
        for (fd, client) in clients where client.deadline <= now { drop(fd) }
        rearm()
    }

    private func rearm() {
        guard let next = clients.values.map(\.deadline).min() else {
            _ = wh_timerfd_arm_in(timer, 0)
            return
        }
        _ = wh_timerfd_arm_in(timer, max(1, next - Self.now()))
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
