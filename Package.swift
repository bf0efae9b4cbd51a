// swift-tools-version: 6.0
// WidgetHost: a terminal dashboard that hosts widgets the way WidgetKit hosts them.
// Swift 6 language mode; nothing outside the toolchain. See ARCHITECTURE.md for the map.
import PackageDescription

/// This manifest's directory: the linker is not run from it.
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

let package = Package(
    name: "WidgetHost",
    products: [
        .executable(name: "widgethost", targets: ["widgethost"]),
        .executable(name: "leaderboard-server", targets: ["leaderboard-server"]),
        .executable(name: "widgethost-bench", targets: ["widgethost-bench"]),
    ],
    targets: [
        // C system libraries (Debian: libncurses-dev, libcurl4-openssl-dev, libsqlite3-dev).
        .systemLibrary(name: "CNcurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // libcurl and libmosquitto: headers only, opened on first use by CLazyLibraries.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The `mqtt` widget's client (Debian: libmosquitto-dev), driven by the transport's loop.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // libcurl's and libmosquitto's functions, forwarded to the libraries opened (dlopen) at
        // the first call: a command that never fetches maps neither them nor the ~30 libraries
        // they pull in (issue 27: `widgethost activity update`'s start-up).
        .target(name: "CLazyLibraries"),
        // Linux event APIs the Glibc module lacks (epoll, timerfd, signalfd, eventfd); header only.
        .systemLibrary(name: "CLinux"),
        // forkpty (libutil) for the benchmark's pseudo-terminals; header only.
        .systemLibrary(name: "CPty"),

        // The WidgetKit model and the timeline scheduler. No I/O, no terminal.
        // It imports only CLinux, for the system calls the Glibc module lacks (prctl, to name threads).
        .target(name: "WidgetCore", dependencies: ["CLinux"]),

        // Dates and times: the civil calendar, the one ISO 8601 parser (extension messages,
        // snapshot --at, a countdown's target) and HTTP dates. Pure arithmetic, no I/O.
        .target(name: "DateTime"),

        // A strict JSON value tree for untrusted files (config, themes): positioned errors.
        .target(name: "JSONTree"),

        // Cell buffer, display width, drawing, themes, backends (curses, text).
        .target(name: "TerminalUI", dependencies: ["CNcurses", "DateTime", "JSONTree"]),

        // Built-in widgets: one folder per widget (entry, provider, view).
        .target(name: "Widgets", dependencies: ["CLinux", "CMosquitto", "CLazyLibraries", "DateTime", "WidgetCore", "TerminalUI", "BackgroundSessions", "HostProcesses"]),

        // Child processes for widgets and extensions: posix_spawn in a group of its own, pipes,
        // resource limits, the group killed, children reaped on SIGCHLD by the host's loop.
        .target(name: "HostProcesses", dependencies: ["CLinux"]),

        // The extension protocol's vocabulary (methods, members, codes), one definition shared
        // with the Swift SDK: its sources live in the SDK's package (SDK/), built here by path.
        .target(name: "ExtensionProtocol", path: "SDK/Sources/ExtensionProtocol"),
        // The Swift SDK for extensions (its own package at SDK/), built here too so that its
        // tests run with the host's: the view JSON it emits is read by the host's decoder.
        .target(name: "WidgetHostSDK", dependencies: ["ExtensionProtocol"], path: "SDK/Sources/WidgetHostSDK"),

        // Extensions: widgets as processes in any language (DESIGN §7): manifests, discovery,
        // one process per extension speaking JSON-RPC 2.0 over stdio, timelines as view data.
        .target(name: "Extensions", dependencies: ["CLinux", "DateTime", "HostProcesses", "WidgetCore", "JSONTree", "TerminalUI", "Widgets",
                                                  "BackgroundSessions", "ExtensionProtocol"]),

        // The application: event loop, layout, focus, keymap, config, CLI.
        .target(name: "WidgetHost", dependencies: ["CLinux", "DateTime", "HostProcesses", "WidgetCore", "JSONTree", "TerminalUI", "Widgets", "BackgroundSessions",
                                                  "LeaderboardServer", "Extensions"]),

        // Identifier-keyed background transfers: libcurl multi transport, SQLite journal,
        // sessions delivering events to widgets, widget containers.
        .target(name: "BackgroundSessions", dependencies: ["CCurl", "CLazyLibraries", "CSQLite", "CLinux", "DateTime", "WidgetCore"]),

        // HTTP/1.1 server on Glibc sockets, the leaderboard game and the leaderboard-server command.
        .target(name: "LeaderboardServer", dependencies: ["WidgetCore"]),

        // Executables: main.swift only, handing over to their module.
        // The release `widgethost` links the Swift runtime, Dispatch and FoundationEssentials
        // statically (README "Performance": peak RSS 28.6 → 23.8–24.4 MiB): only the pages it uses,
        // no relocated copies of whole shared libraries. lld packs the relative relocations
        // (RELR: 8 KB instead of 1 MB read at every start) and keeps the binary position-
        // independent; its symbols are not exported (dlsym finds Dispatch's run-loop entry
        // points through CLinux instead). Debug builds (`swift run`, tests) link dynamically.
        // The functions a start runs go first (`widgethost.order`, made by
        // Benchmarks/startup-order.sh): each page of code touched maps the 64 KiB around it, so
        // spread over the binary they kept 8.6 of its 11 MiB resident (9.6 → 7.0 MiB, issue 30).
        .executableTarget(name: "widgethost", dependencies: ["WidgetHost"], exclude: ["widgethost.order"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections",
                                                         "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                         "-Xlinker", "--no-export-dynamic",
                                                         "-Xlinker", "--symbol-ordering-file=\(packageDirectory)/Sources/widgethost/widgethost.order",
                                                         "-Xlinker", "--no-warn-symbol-ordering"],
                                                        .when(platforms: [.linux], configuration: .release))]),
        .executableTarget(name: "leaderboard-server", dependencies: ["LeaderboardServer"]),

        // Benchmarks against the targets in README "Performance" (run it in release:
        // `swift run -c release widgethost-bench`). Not a test: `swift test` only builds it.
        .executableTarget(name: "widgethost-bench",
                          dependencies: ["CPty", "CMosquitto", "CLazyLibraries", "WidgetCore", "TerminalUI", "WidgetHost", "LeaderboardServer"]),

        // Test-only: runs a session manager and stops at a chosen point so a test can kill it.
        .executableTarget(name: "session-crash-helper", dependencies: ["BackgroundSessions", "WidgetCore"]),
        // Test-only: takes the terminal like the dashboard, then overflows a host thread's stack.
        .executableTarget(name: "overflow-helper", dependencies: ["TerminalUI", "WidgetCore"]),

        // Shared test helpers: manual-clock expectations, fixtures, frame assertions.
        // Also the end-to-end harness: a private tmux server per test, subprocesses, built products.
        .target(name: "WidgetTestSupport", dependencies: ["CLinux", "WidgetCore", "TerminalUI", "BackgroundSessions"],
                path: "Tests/WidgetTestSupport", exclude: ["Fixtures"]),

        .testTarget(name: "WidgetCoreTests", dependencies: ["WidgetCore", "WidgetTestSupport"]),
        .testTarget(name: "DateTimeTests", dependencies: ["DateTime"]),
        .testTarget(name: "JSONTreeTests", dependencies: ["JSONTree"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "WidgetTestSupport"],
                    exclude: ["Backend/__Snapshots__", "Theme/__Snapshots__"]),
        .testTarget(name: "WidgetsTests",
                    dependencies: ["DateTime", "Widgets", "WidgetCore", "TerminalUI", "BackgroundSessions", "LeaderboardServer",
                                   "WidgetTestSupport"],
                    exclude: ["__Snapshots__"]),
        .testTarget(name: "WidgetHostTests", dependencies: ["WidgetHost", "HostProcesses", "CLinux", "WidgetCore", "JSONTree", "Widgets", "BackgroundSessions", "LeaderboardServer",
                                                         "WidgetTestSupport"],
                    exclude: ["__Snapshots__"]),
        .testTarget(name: "BackgroundSessionsTests",
                    dependencies: ["BackgroundSessions", "LeaderboardServer", "WidgetCore", "WidgetTestSupport",
                                   "session-crash-helper"]),
        .testTarget(name: "HostProcessesTests", dependencies: ["HostProcesses"]),
        .testTarget(name: "ExtensionsTests",
                    dependencies: ["DateTime", "Extensions", "HostProcesses", "WidgetCore", "JSONTree", "TerminalUI", "Widgets", "BackgroundSessions",
                                   "WidgetTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "SwiftSDKTests", dependencies: ["WidgetHostSDK", "ExtensionProtocol", "TerminalUI", "WidgetCore", "JSONTree",
                                                       "WidgetTestSupport"]),
        .testTarget(name: "LeaderboardServerTests", dependencies: ["LeaderboardServer", "WidgetTestSupport"]),
        // Real binaries in tmux. Depending on the executable targets makes `swift test` build
        // them first; the tests run the binaries, they do not import their modules.
        .testTarget(name: "EndToEndTests", dependencies: ["WidgetTestSupport", "widgethost", "leaderboard-server", "overflow-helper"]),
    ]
)
