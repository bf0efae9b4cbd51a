import FoundationEssentials
import WidgetCore

/// The messages of a run, each with the time it was applied: what `update` saw, in order.
///
/// Fed again to a dashboard built from the same config at the same size and start time
/// (`HeadlessDashboard.replay`), with the effects that would bring new inputs left out, it
/// goes through the same states and draws the same frames: provider answers, the wake-ups,
/// `WidgetCenter` requests and keys are all in it. `--record-messages FILE` writes a running
/// dashboard's in the replayable form (`MessageLogFile`); `line(_:start:)` is a record for
/// people (`snapshot --replay FILE --describe`).
package struct MessageLog: Sendable {
    package struct Record: Sendable {
        package var date: Date
        package var message: DashboardMessage
    }

    package private(set) var records: [Record] = []

    package init() {}

    package mutating func append(_ message: DashboardMessage, at date: Date) {
        records.append(Record(date: date, message: message))
    }

    /// One line for a record: seconds since `start`, then the message, answers summarised
    /// (their entries' count and policy, or the failure).
    package static func line(_ record: Record, start: Date) -> String {
        time(record, start: start) + "\t" + describe(record.message)
    }

    /// The record's time as the line writes it: seconds since `start`, to the millisecond.
    static func time(_ record: Record, start: Date) -> String {
        let milliseconds = Int((record.date.timeIntervalSince(start) * 1000).rounded())
        let fraction = String(abs(milliseconds) % 1000)
        // The sign on its own: -0.500 s (a clock set back) has no whole seconds to carry it.
        let sign = milliseconds < 0 ? "-" : ""
        return "\(sign)\(abs(milliseconds) / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    static func describe(_ message: DashboardMessage) -> String {
        switch message {
        case .providerAnswered(let answer):
            let request = answer.request
            let head = "providerAnswered \(request.instance) generation \(request.generation) \(request.reason.rawValue): "
            switch answer.result {
            case .success(let timeline): return head + "\(timeline.entries.count) entries, policy \(timeline.policy)"
            case .failure: return head + "failed: \(answer.failure ?? "")"
            }
        case .configLoaded(let config, let theme):
            return "configLoaded \(config.panels.count) panels, theme \(theme.name)"
        case .reloadsRequested(let requests):
            return "reloadsRequested " + requests.map { request -> String in
                switch request {
                case .kind(let kind): kind
                case .all: "all"
                case .caused(let kind, let cause): "\(kind) (\(cause.rawValue))"
                }
            }.joined(separator: ",")
        case .key(let key):
            return "key \(key)"
        case .widgetsFound(let widgets):
            return "widgetsFound \(widgets.widgets.map(\.kind).joined(separator: ","))"
        case .panelsBuilt(let prepared):
            let built = prepared.filter { $0.fresh != nil }.count
            return "panelsBuilt \(prepared.count) panels, \(built) built, \(prepared.count - built) kept"
        default:
            return String(describing: message)
        }
    }
}

extension DashboardEffect {
    /// Effects whose outcome comes back as a message (a provider call, a wake-up, an action, a
    /// config read): a replay leaves them out, the log holds their messages.
    var bringsMessages: Bool {
        switch self {
        case .startProvider, .cancelProvider, .armTimelineWake, .armRelevanceWake, .armPageRotation, .runAction, .runInTerminal,
             .reloadConfig, .buildPanels, .openURL, .openEditor, .saveConfig, .previewGallery, .queryOptions, .armActivityWake, .armTextWake:
            return true
        default:
            return false
        }
    }
}
