import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// What a leaderboard session's events do: the new board (or the error) is saved in the
/// container, then the leaderboard and hero widgets reload through `WidgetCenter` and the
/// completion the events handler was given is called — the WidgetKit order. A save that fails
/// holds the completion back (see `LeaderboardStore`). Used through `FetchSessionDelegate`.
struct LeaderboardSessionRecorder: FetchSessionRecorder {
    let store: LeaderboardStore
    let center: WidgetCenter

    var maximumBodyBytes: Int { 1 << 20 }

    func received(_ body: Data?, session: String, url: URL, at date: Date) {
        let result: Result<LeaderboardDecoder.Result, LeaderboardDecoder.Failure>
        if let body {
            do throws(LeaderboardDecoder.Failure) {
                result = .success(try LeaderboardDecoder.decode(body))
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(.notJSON)
        }
        store.update(session: session) { state in
            switch result {
            case .success(let decoded): state.received(decoded, at: date)
            case .failure(let failure): state.rejected(failure.description, at: date)
            }
            state.attemptURL = url.absoluteString
        }
    }

    func ended(_ error: BackgroundTaskError, session: String, url: URL, at date: Date) {
        store.update(session: session) { state in
            let haveBoard = state.board != nil
            state.fetch.record(error, of: url, at: date, haveData: haveBoard)
        }
    }

    /// Reloads the widgets, then calls the completion — unless a state of this batch could not
    /// be saved: then the completion waits (in the store) until it is, so the journal keeps the
    /// events and a crash in between re-delivers them rather than losing the board.
    func finishEvents(session: String, cause: WidgetCenter.Cause?, completion: @escaping @Sendable () -> Void) {
        center.reloadTimelines(ofKind: LeaderboardWidget.kind, cause: cause)
        center.reloadTimelines(ofKind: HeroWidget.kind, cause: cause)
        if !store.holdUntilSaved(session: session, completion: completion) { completion() }
    }
}
