import Glibc

/// The BSD socket calls behind `HTTPServer`: binding a listener, and naming a peer.
enum ListeningSocket {
    /// A TCP socket bound to `host` (a numeric IPv4 or IPv6 address) and `port` (0: any free
    /// port), listening, close-on-exec; with the port it was given.
    ///
    /// Throws `ServerError.badHost` for a host that is not a numeric address, `.system` when a
    /// call fails (the descriptor is closed then).
    static func open(host: String, port: UInt16) throws(ServerError) -> (fd: Int32, port: UInt16) {
        var storage = sockaddr_storage()
        var length: socklen_t
        let family: Int32
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeBytes(of: v4) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeBytes(of: v6) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            throw .badHost(host)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { let e = errno; close(fd); throw .system("bind", e) }
        guard Glibc.listen(fd, 512) == 0 else { let e = errno; close(fd); throw .system("listen", e) }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { let e = errno; close(fd); throw .system("getsockname", e) }
        let boundPort = withUnsafeBytes(of: storage) { raw -> UInt16 in
            family == AF_INET
                ? UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
        }
        return (fd, boundPort)
    }

    /// The numeric address (`127.0.0.1`, `::1`) of an IPv4 or IPv6 peer.
    static func numericAddress(_ storage: sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { raw in
            if Int32(storage.ss_family) == AF_INET {
                var addr = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
            } else {
                var addr = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
