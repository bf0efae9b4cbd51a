import CCurl
import Glibc

extension CurlTransport {
    /// Drives `client` on the network thread (`NetworkSocketClient`) until `unwatch` or
    /// shutdown; nil once the transport has stopped.
    public func watch(_ client: any NetworkSocketClient) -> NetworkSocketID? {
        let id = NetworkSocketID(rawValue: mailbox.shared.withLock { s -> UInt64 in
            defer { s.nextID += 1 }
            return s.nextID
        })
        return mailbox.send(.watchSocket(id, client)) ? id : nil
    }

    /// Stops driving a client: the network thread calls its `stop()` and lets go of it.
    public func unwatch(_ id: NetworkSocketID) {
        _ = mailbox.send(.unwatchSocket(id))
    }
}

/// The watched clients of one `NetworkLoop`: their descriptors go into `curl_multi_poll` as
/// extra descriptors, their deadlines bound its timeout. Only the network thread touches it.
final class NetworkSockets {
    private var clients: [NetworkSocketID: any NetworkSocketClient] = [:]
    /// The descriptors of the last `prepare`, in the order of `polled`.
    var descriptors: [curl_waitfd] = []
    private var polled: [NetworkSocketID] = []
    private var deadlines: [(NetworkSocketID, ContinuousClock.Instant)] = []

    var isEmpty: Bool { clients.isEmpty }

    func add(_ id: NetworkSocketID, _ client: any NetworkSocketClient, now: ContinuousClock.Instant) {
        clients[id] = client
        client.start(now: now)
    }

    func remove(_ id: NetworkSocketID) {
        clients.removeValue(forKey: id)?.stop()
    }

    func removeAll() {
        for id in Array(clients.keys) { remove(id) }
    }

    /// Asks every client what it waits for; returns the earliest deadline.
    func prepare(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        descriptors.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        deadlines.removeAll(keepingCapacity: true)
        var earliest: ContinuousClock.Instant?
        for (id, client) in clients {
            let interest = client.interest(now: now)
            if let fd = interest.descriptor {
                var events = Int16(CURL_WAIT_POLLIN)
                if interest.wantsWrite { events |= Int16(CURL_WAIT_POLLOUT) }
                descriptors.append(curl_waitfd(fd: fd, events: events, revents: 0))
                polled.append(id)
            }
            if let t = interest.deadline {
                deadlines.append((id, t))
                earliest = min(earliest ?? t, t)
            }
        }
        return earliest
    }

    /// After the wait: calls the clients whose descriptor is ready or whose deadline has come.
    func dispatch(now: ContinuousClock.Instant) {
        var served = Set<NetworkSocketID>()
        for (index, id) in polled.enumerated() {
            let revents = descriptors[index].revents
            guard revents != 0, let client = clients[id] else { continue }
            served.insert(id)
            client.service(readable: revents & Int16(CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI) != 0,
                           writable: revents & Int16(CURL_WAIT_POLLOUT) != 0, now: now)
        }
        for (id, deadline) in deadlines where deadline <= now && !served.contains(id) {
            clients[id]?.service(readable: false, writable: false, now: now)
        }
    }
}
