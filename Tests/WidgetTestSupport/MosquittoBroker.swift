#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The real Mosquitto broker on a loopback port for a test (`Fixtures/mosquitto-broker.py`:
/// its own config under `directory`), and messages published to it by
/// `Fixtures/mqtt-publish.py`, a standard-library MQTT 3.1.1 client independent of the
/// libmosquitto under test. A broker that cannot be started throws: the test fails, it does
/// not skip.
public final class MosquittoBroker {
    public let server: ScriptServer
    /// `mqtt://127.0.0.1:PORT`.
    public var url: String { server.url }
    /// With `tls`: the TLS listener (`mqtts://127.0.0.1:PORT`) and the file of the authority
    /// that signed its certificate.
    public var tlsURL: String? { server.extras.first }
    public var caFile: String? { server.extras.dropFirst().first }
    public let port: Int
    private let directory: String

    /// Starts a broker; `port`: this one (a broker started again where a panel expects it);
    /// `user`: `NAME:PASSWORD`, the only client it accepts (else anonymous clients); `tls`: a
    /// TLS listener too, with a certificate authority of its own.
    public init(directory: String, port: Int? = nil, user: String? = nil, tls: Bool = false) throws(HarnessError) {
        var arguments = [directory] + (tls ? ["--tls"] : [])
        if let port { arguments += ["--port", String(port)] }
        if let user { arguments += ["--user", user] }
        server = try ScriptServer.start(script: "mosquitto-broker.py", arguments: arguments, logDirectory: directory,
                                        timeout: .seconds(20))
        guard let port = Int(server.url.split(separator: ":").last ?? "") else {
            throw HarnessError("mosquitto-broker.py printed \(server.url), not mqtt://127.0.0.1:PORT")
        }
        self.port = port
        self.directory = directory
    }

    /// One message for `publish`.
    public struct Message: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var retained: Bool

        public init(_ topic: String, _ payload: [UInt8], retained: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retained = retained
        }

        public init(_ topic: String, _ text: String, retained: Bool = false) {
            self.init(topic, Array(text.utf8), retained: retained)
        }
    }

    /// Publishes `messages` in order (QoS 0) and returns once the broker has taken them all.
    /// Waits without holding its thread (a main-actor test's publish of 10,000 messages must
    /// not stall the other suites' main-actor work).
    public func publish(_ messages: [Message], isolation: isolated (any Actor)? = #isolation) async throws(HarnessError) {
        let path = directory + "/publish-" + String(UInt32.random(in: 0...UInt32.max), radix: 16) + ".txt"
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for message in messages {
            text += Array((message.topic + "\t" + (message.retained ? "r" : "-") + "\t").utf8)
            text.reserveCapacity(text.count + message.payload.count * 2 + 1)
            for byte in message.payload {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 15)])
            }
            text.append(10)
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(text)) else {
            throw HarnessError("cannot write \(path)")
        }
        let errPath = path + ".err"
        let pid: pid_t
        do throws(ChildSpawn.Failure) {
            pid = try ChildSpawn.start(["/usr/bin/python3", ScriptServer.fixture("mqtt-publish.py"), String(port), path],
                                       environment: ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"],
                                       standardOutput: .file("/dev/null"), standardError: .file(errPath))
        } catch {
            throw HarnessError("cannot start mqtt-publish.py: \(error)")
        }
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(60))
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                _ = kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw HarnessError("mqtt-publish.py did not finish in time")
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        guard status == 0 else {
            throw HarnessError("mqtt-publish.py failed (status \(status)): \((try? FileContents.text(at: errPath)) ?? "")")
        }
    }

    /// Stops the broker (its clients see the connection close).
    public func stop() { server.stop() }
}
