import Testing
import WidgetCore

@Suite("Duration in seconds and milliseconds")
struct DurationSecondsTests {
    @Test("seconds keep their fraction, at every scale")
    func seconds() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.microseconds(250).inSeconds == 0.00025)
        #expect(Duration.seconds(-2).inSeconds == -2)
        #expect(Duration.seconds(Int64.max).inSeconds == Double(Int64.max))
    }

    @Test("milliseconds round up (a wait is never shortened) and clamp instead of trapping")
    func milliseconds() {
        #expect(Duration.microseconds(1500).wholeMillisecondsRoundedUp == 2)
        #expect(Duration.nanoseconds(1).wholeMillisecondsRoundedUp == 1)
        #expect(Duration.milliseconds(300).wholeMillisecondsRoundedUp == 300)
        #expect(Duration.zero.wholeMillisecondsRoundedUp == 0)
        #expect(Duration.seconds(-5).wholeMillisecondsRoundedUp == 0)
        #expect(Duration.seconds(Int64.max).wholeMillisecondsRoundedUp == Int64.max)
        let seconds = Int64.max / 1000 - 1
        #expect((Duration.seconds(seconds) + .microseconds(998_001)).wholeMillisecondsRoundedUp == seconds * 1000 + 999)
    }
}
