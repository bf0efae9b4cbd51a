import Synchronization
import WidgetCore

/// Who is waiting for a session's download (DESIGN.md §3: the budget follows the request):
/// a provider answering the user's reload marks its session when it starts or joins the
/// download, a push marks the download it starts, and the session's delegate takes the mark
/// when the batch of events is delivered, so the reload that shows the data carries the cause
/// (`WidgetCenter.Cause.answer` or `.push`) however long the fetch took. In memory only: a
/// host killed meanwhile delivers the events again as the system's.
///
/// One per `WidgetContext` (`WidgetSharedObjects`), shared by the kinds that fetch.
public final class FetchIntents: Sendable {
    private let marks = Mutex<[String: WidgetCenter.Cause]>([:])

    public init() {}

    /// `session`'s download is awaited for `cause`; the user's wins over a push's.
    public func mark(_ session: String, _ cause: WidgetCenter.Cause) {
        marks.withLock { marks in
            if let held = marks[session], held == .answer, cause == .push { return }
            marks[session] = cause
        }
    }

    /// Takes the mark of `session` (the batch of its events has been delivered).
    public func take(_ session: String) -> WidgetCenter.Cause? {
        marks.withLock { $0.removeValue(forKey: session) }
    }
}

extension WidgetContext {
    /// The context's `FetchIntents`.
    var fetchIntents: FetchIntents { shared.object { FetchIntents() } }
}
