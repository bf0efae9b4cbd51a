import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `leaderboard` widget: the Emoji Rangers heroes, live from a leaderboard server through
/// a background session.
///
/// Options (`LeaderboardOptions`): `url` (required), `refreshSeconds`, `session` (the background
/// session identifier), `maxRows`, `push`.
public enum LeaderboardWidget {
    public static let kind = "leaderboard"
    public static let defaultSession = "leaderboard"
    /// The longest refresh honoured (a week): a larger `refreshSeconds` would put reload dates
    /// beyond what clocks and timers can represent.
    public static let maximumRefreshSeconds = 7 * 86_400

    /// The widget, bound to the host's sessions; `registry` collects the sessions its panels use.
    public static func configuration(context: WidgetContext, registry: LeaderboardSessionRegistry) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try LeaderboardOptions(options)
                guard let url = URL(string: options.url), url.scheme == "http" || url.scheme == "https" else {
                    throw OptionError("url must be an http or https URL")
                }
                let session = options.session
                try validate(session: session)
                let registration = registry.register(session: session, url: url)
                var subscription: PushCenter.Subscription?
                var push: URL?
                if let text = options.push {
                    guard let pushURL = URL(string: text), pushURL.scheme == "http" || pushURL.scheme == "https" else {
                        throw OptionError("push must be an http or https URL")
                    }
                    push = pushURL
                    subscription = subscribe(push: pushURL, url: url, session: session, context: context)
                }
                return AnyTimelineProvider(LeaderboardProvider(push: push,
                    url: url, refreshSeconds: min(max(1, options.refreshSeconds), maximumRefreshSeconds),
                    session: session, maxRows: min(max(1, options.maxRows), LeaderboardDecoder.maximumHeroes),
                    host: context, now: context.now,
                    leases: LeaderboardProvider.Leases(session: registration, push: subscription)))
            },
            view: PanelView.typed(LeaderboardView.view, contentHeight: LeaderboardView.contentHeight)
        )
        .onBackgroundSessionEvents(matching: { registry.contains($0) }) { identifier, completion in
            guard let manager = context.sessions else { return completion() }
            let recorder = LeaderboardSessionRecorder(store: LeaderboardStore(context: context), center: context.center)
            let delegate = FetchSessionDelegate(recorder, intents: context.fetchIntents, now: context.now, completion: completion)
            _ = manager.session(identifier: identifier, delegate: delegate)
        }
        .resumingBackgroundTasks { session, _ in registry.url(for: session) }
    }
}

extension LeaderboardWidget {
    /// Subscribes the panel to its push source: each event (within the push budget) fetches
    /// the board at once on the panel's session — the download's delivery then reloads the
    /// leaderboard and hero widgets through `WidgetCenter`, one reload per event rather than
    /// one to start the fetch and one to show it — and the stream going up or down reloads the
    /// leaderboard, so its footer says `live` or `polling` and its polling interval changes.
    static func subscribe(push: URL, url: URL, session: String, context: WidgetContext) -> PushCenter.Subscription? {
        guard let center = context.push else { return nil }
        return center.subscribe(url: push.absoluteString, key: pushKey(push: push, url: url, session: session), onEvent: {
            guard let manager = context.sessions, context.sessionsUnavailableReason == nil else { return }
            // The reload showing what the push brought is a push's: its own budget, not the day's.
            context.fetchIntents.mark(session, .push)
            _ = manager.session(identifier: session).downloadTask(with: url, taskDescription: "board")
        }, onStatus: {
            context.center.reloadTimelines(ofKind: kind)
        })
    }

    /// The `PushCenter` key of a panel: its push source, board URL and session.
    public static func pushKey(push: URL, url: URL, session: String) -> String {
        "\(kind) \(session) \(url.absoluteString) \(push.absoluteString)"
    }

    /// Session identifiers name files in the state directory: letters, digits, '.', '_', '-'.
    static func validate(session: String) throws {
        guard FilePaths.isSafeName(session, maximumBytes: 64) else {
            throw OptionError("session must be 1-64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
    }
}
