import FoundationEssentials

/// Where a panel connects: `mqtt://host[:1883]` or `mqtts://host[:8883]` (TLS). A path,
/// query or credentials in the URL are refused: credentials come from the environment
/// (`username`, `password`), never from text a config shows.
struct MQTTBroker: Sendable, Equatable {
    var host: String
    var port: Int
    var tls: Bool

    init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    init(_ text: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "mqtt" || scheme == "mqtts",
              let host = url.host(percentEncoded: false), !host.isEmpty
        else {
            throw OptionError("broker must be mqtt://host:port or mqtts://host:port")
        }
        guard url.user == nil, url.password == nil else {
            throw OptionError("broker: give no credentials in the URL; use username and password (\"$NAME\")")
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
            throw OptionError("broker: a broker URL has no path or query; topics go in topics")
        }
        tls = scheme == "mqtts"
        port = url.port ?? (tls ? 8883 : 1883)
        guard (1...65_535).contains(port) else { throw OptionError("broker: port \(port) is not 1-65535") }
        // IPv6 literals come back without brackets, as libmosquitto wants them.
        self.host = host
    }

    /// `mqtt://host:port`, as shown.
    var text: String { "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}
