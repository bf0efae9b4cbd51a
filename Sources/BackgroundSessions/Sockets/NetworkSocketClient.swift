/// A connection of another protocol (MQTT) driven by the transport's network thread beside
/// libcurl's transfers: no thread of its own, no timer tick. The thread asks it what to wait
/// for, waits in the same `curl_multi_poll` as the transfers, and calls it back when its
/// descriptor is ready or its deadline has come.
///
/// Every method is called on the network thread only (the client is handed over once, through
/// the transport's mailbox, by `CurlTransport.watch(_:)`); keep each call short, as the
/// transfers wait meanwhile.
public protocol NetworkSocketClient: AnyObject, Sendable {
    /// Taken on by the thread: start connecting.
    func start(now: ContinuousClock.Instant)
    /// What to wait for now (asked before every wait).
    func interest(now: ContinuousClock.Instant) -> NetworkSocketInterest
    /// The descriptor is ready (`readable`: a hang-up or error reads too), or the deadline of
    /// the last `interest` has come (both false).
    func service(readable: Bool, writable: Bool, now: ContinuousClock.Instant)
    /// Let go (the last lease dropped, or the transport shuts down): close the connection.
    func stop()
}
