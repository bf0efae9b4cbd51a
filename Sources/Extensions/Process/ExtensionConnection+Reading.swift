#if canImport(Glibc)
import Glibc
#endif
import HostProcesses
import WidgetCore

/// Reading an extension's stdout (messages, the idle exit, the requests' deadlines, writing
/// what its stdin did not take at once) and stderr (the log), each on a thread of its own (see
/// `ExtensionConnection`).
extension ExtensionConnection {
    func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var end: End = .crash("exited", protocolError: false)
        // When the idle exit was last refused (a request pending longer than idleExitSeconds,
        // or the host stopping it): the next try waits a second, never a busy loop.
        var refusedAt = -Double.infinity
        reading: while true {
            // The only timed wake-ups: the earliest request's deadline and the idle exit.
            expireRequests()
            // Under the lock that `send` takes: a request sent after this wakes the poll when it
            // is due earlier (even one sent by a completion `expireRequests` just ran).
            let (idleAt, wakeAt) = state.withLock { state -> (Double, Double) in
                let idleAt = max(state.lastActivity + Double(limits.idleExitSeconds), refusedAt + 1)
                state.readerWakesAt = min(idleAt, state.pending.values.map(\.deadline).min() ?? .infinity)
                return (idleAt, state.readerWakesAt)
            }
            // The system clock: poll's own timeout. A simulated one: its wake-up, via the eventfd.
            let wait = clock.waitTimeout(until: wakeAt) { [weak self] in self?.wakeReaderThread() }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: outbox.withLock { $0.waitingDescriptor }, events: Int16(POLLOUT), revents: 0)]
            let ready = poll(&fds, 3, Self.pollMilliseconds(wait.seconds))
            wait.timer?.cancel()
            if ready < 0 {
                if errno == EINTR { continue }
                end = .crash("cannot read from the extension: \(String(cString: strerror(errno)))", protocolError: false)
                break
            }
            if fds[1].revents != 0 { drainWakeUps() }
            if fds[2].revents != 0 { outbox.withLock { $0.flush() } }
            if fds[0].revents == 0 {
                guard clock.now >= idleAt - 0.001 else { continue }
                guard beginIdleShutdown() else {
                    refusedAt = clock.now
                    continue
                }
                end = .expected
                // `shutdown` sent and stdin closed: EOF, else SIGTERM, else SIGKILL, to the group.
                if !waitForEOF(seconds: Self.shutdownStepSeconds) {
                    callbacks.log(.info, "\(name): still running after shutdown; SIGTERM")
                    process.signalGroup(SIGTERM)
                    if !waitForEOF(seconds: Self.shutdownStepSeconds) {
                        callbacks.log(.info, "\(name): still running after SIGTERM; SIGKILL")
                        process.signalGroup(SIGKILL)
                    }
                }
                break
            }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if count == 0 { break }  // EOF: the process closed its stdout (it exited, most likely)
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                buffer += chunk[start..<index]
                start = index + 1
                if buffer.count > Self.maximumLineBytes {
                    end = .crash("sent a line longer than \(ByteCountText.exact(Self.maximumLineBytes))", protocolError: true)
                    break reading
                }
                if let violation = handle(line: buffer) {
                    end = .crash(violation, protocolError: true)
                    break reading
                }
                buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            }
            buffer += chunk[start..<count]
            if buffer.count > Self.maximumLineBytes {
                end = .crash("sent a line longer than \(ByteCountText.exact(Self.maximumLineBytes))", protocolError: true)
                break
            }
        }
        if case .crash = end {
            // A crash or a protocol error: nothing of the group may linger.
            process.signalGroup(SIGKILL)
        }
        finish(end)
        close(output)
    }

    /// Waits up to `seconds` for the extension's stdout to reach EOF (discarding what it
    /// still says); true at EOF.
    private func waitForEOF(seconds: Double) -> Bool {
        let deadline = clock.now + seconds
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let wait = clock.waitTimeout(until: deadline) { [weak self] in self?.wakeReaderThread() }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Self.pollMilliseconds(wait.seconds))
            wait.timer?.cancel()
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return false }
            if fds[1].revents != 0 { drainWakeUps() }
            guard fds[0].revents != 0 else {
                if clock.now >= deadline { return false }
                continue
            }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count == 0 { return true }
            if count < 0 && errno != EINTR && errno != EAGAIN { return true }
        }
    }

    /// `poll`'s timeout for a wait of `seconds` (nil: none), rounded up, at most a day.
    static func pollMilliseconds(_ seconds: Double?) -> Int32 {
        guard let seconds else { return -1 }
        return seconds <= 0 ? 0 : Int32(min(seconds * 1000, 86_400_000).rounded(.up))
    }

    /// With nothing pending since `idleExitSeconds`: detach from the host, ask the extension
    /// to `shutdown`, close its stdin. False when it is not idle after all.
    private func beginIdleShutdown() -> Bool {
        guard callbacks.detachIfIdle(self) else { return false }
        let id = state.withLock { state -> Int in
            let id = state.nextID
            state.nextID += 1
            state.abandoned.append(id)  // its answer is welcome and needs no one
            return id
        }
        callbacks.log(.info, "\(name): idle for \(limits.idleExitSeconds) s; shutting down")
        post(RPCMessage.request(id: id, method: "shutdown", params: nil))
        // Nothing is pending, so nothing else waits in the outbox: `shutdown` went at once.
        closeInput()
        return true
    }

    /// Resets the wake-up eventfd (it only wakes the `poll`).
    private func drainWakeUps() {
        var count: UInt64 = 0
        _ = read(wakeReader, &count, 8)
    }

    /// Handles one line; returns a protocol violation, or nil.
    private func handle(line bytes: [UInt8]) -> String? {
        let (message, debugText) = IncomingMessage.parse(bytes, maximumBytes: Self.maximumLineBytes,
                                                                debug: callbacks.debugMessages)
        if callbacks.debugMessages, !debugText.isEmpty { callbacks.log(.debug, "\(name) ← \(debugText)") }
        switch message {
        case .blank:
            return nil
        case .violation(let reason):
            return reason
        case .call(let method, let params, let id):
            do throws(ProtocolViolation) {
                if let answer = try callbacks.incoming(method, params, id) {
                    post(answer)
                }
                state.withLock { $0.lastActivity = clock.now }
                return nil
            } catch {
                return error.message
            }
        case .answer(let id, let result):
            switch takePending(id) {
            case .some(.some(let complete)):
                complete(result)
                return nil
            case .some(.none):
                callbacks.log(.debug, "\(name): late answer to request \(id) dropped")
                return nil
            case .none:
                return "answered request \(id), which is not pending"
            }
        }
    }

    func stderrLoop() {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var line: [UInt8] = []
        var logged = 0
        func emit() {
            defer { line.removeAll(keepingCapacity: true) }
            guard !line.isEmpty else { return }
            logged += 1
            if logged <= Self.maximumStderrLines {
                callbacks.log(.info, "\(name) stderr: \(RPCMessage.printable(String(decoding: line, as: UTF8.self), limit: 500))")
            } else if logged == Self.maximumStderrLines + 1 {
                callbacks.log(.info, "\(name) stderr: more output dropped")
            }
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") { emit() }
                else if line.count < 2000 { line.append(byte) }
            }
        }
        emit()
        close(errors)
    }
}
