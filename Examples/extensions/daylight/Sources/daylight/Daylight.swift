import FoundationEssentials
import Synchronization
import WidgetHostSDK

/// The moments of one minute: how far the day, the week (from Monday) and the year are gone.
struct DaylightEntry: TimelineEntry {
    let date: Date
    let label: String

    var seconds: Int { Int(date.timeIntervalSince1970) }
    var dayGone: Double { Double(seconds % 86_400) / 86_400 }
    /// 1970-01-01 was a Thursday: day 3 of a week from Monday.
    var weekGone: Double { (Double((seconds / 86_400 + 3) % 7) + dayGone) / 7 }
    var yearGone: Double {
        let year = Civil.year(ofDay: seconds / 86_400)
        let start = Civil.days(year: year, month: 1, day: 1), end = Civil.days(year: year + 1, month: 1, day: 1)
        return (Double(seconds / 86_400 - start) + dayGone) / Double(end - start)
    }
    var clock: String {
        let minutes = seconds % 86_400 / 60
        func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    /// The last hour of the day matters more (a Smart Stack turns to it).
    var relevance: TimelineEntryRelevance? { TimelineEntryRelevance(score: dayGone > 23.0 / 24 ? 10 : 1, duration: 60) }
}

/// Days since 1970 and civil dates (Howard Hinnant's algorithms, integer arithmetic only).
enum Civil {
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    static func year(ofDay days: Int) -> Int {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let mp = (5 * (doe - (365 * yoe + yoe / 4 - yoe / 100)) + 2) / 153
        return yoe + era * 400 + (mp >= 10 ? 1 : 0)
    }
}

/// Whether the bars are labelled with the time left instead of the percentage (`u` flips it).
/// Kept in memory: a relaunch starts with percentages again.
let showsTimeLeft = Mutex(false)

struct Provider: TimelineProvider {
    func placeholder(in context: Context) -> DaylightEntry {
        DaylightEntry(date: Date(timeIntervalSince1970: 43_200), label: "today")
    }

    func snapshot(in context: Context) async -> DaylightEntry {
        DaylightEntry(date: Date(), label: context.options.string("label") ?? "today")
    }

    /// One entry a minute for ten minutes from this minute; then ask again.
    func timeline(in context: Context) async -> Timeline<DaylightEntry> {
        let now = Int(Date().timeIntervalSince1970)
        let minute = now - now % 60
        let label = context.options.string("label") ?? "today"
        let entries = (0..<10).map { DaylightEntry(date: Date(timeIntervalSince1970: Double(minute + 60 * $0)), label: label) }
        return Timeline(entries: entries, policy: .after(Date(timeIntervalSince1970: Double(minute + 600))))
    }
}

func label(_ gone: Double, of seconds: Double) -> String {
    guard showsTimeLeft.withLock({ $0 }) else { return "\(Int(gone * 100))%" }
    let left = Int((1 - gone) * seconds) / 60
    return left >= 1440 ? "\(left / 1440) d left" : "\(left / 60) h \(left % 60) m left"
}

@main
struct Daylight: WidgetBundle {
    var body: [any WidgetConfiguration] {
        StaticConfiguration(kind: "day", provider: Provider()) { entry, context in
            Text(entry.label).role(.muted)
            Text(entry.clock).role(.accent).bold() + Text(" UTC").role(.muted)
            Bar(value: entry.dayGone, label: label(entry.dayGone, of: 86_400)).role(.accent)
            if context.family != .small {
                Divider()
                Table(columns: [Table.Column(), Table.Column(alignment: .right, minimum: 12)], rows: [
                    [Text("week"), Text(label(entry.weekGone, of: 7 * 86_400)).role(.positive)],
                    [Text("year"), Text(label(entry.yearGone, of: 365 * 86_400)).role(.positive)],
                ])
                Sparkline(values: (0..<24).map { hour in hour <= Int(entry.dayGone * 24) ? Double(hour + 1) : 0 }, max: 24).role(.warning)
            }
        }
        .onAction("u") { _ in
            showsTimeLeft.withLock { $0.toggle() }
        }
    }
}
