/// Polls `condition` every 5 ms until it holds or `seconds` of wall time (stretched by
/// `TestTimeScale`) pass; returns whether it held. A wait on a condition with a deadline,
/// never a bare sleep.
///
/// `condition` runs on the caller's actor (a `@MainActor` test may read main-actor state).
public func eventually(within seconds: Double = 30, isolation: isolated (any Actor)? = #isolation,
                       _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * TestTimeScale.factor * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
