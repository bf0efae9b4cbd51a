#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stretches end-to-end deadlines on slow machines.
///
/// `WIDGETHOST_TEST_TIMESCALE` (a positive number, default 1) multiplies every deadline the
/// end-to-end harness waits for, e.g. `WIDGETHOST_TEST_TIMESCALE=3 swift test` on a loaded
/// CI runner. Deadlines only bound a wait that polls for a condition; a passing test never
/// waits for them to run out.
public enum TestTimeScale {
    /// The factor from the environment; 1 when unset or not a positive number.
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["WIDGETHOST_TEST_TIMESCALE"],
              let value = Double(text), value.isFinite, value > 0 else { return 1 }
        return value
    }()

    /// `duration` multiplied by `factor`.
    public static func scaled(_ duration: Duration) -> Duration {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return .seconds(seconds * factor)
    }
}
