extension ExtensionTemplate {
    /// A package depending on the Swift SDK by path (`SDK_PATH`, filled in by
    /// `ExtensionNewCommand`); the manifest runs its debug build.
    static let swift = ExtensionTemplate(files: [
        manifest(exec: #"[".build/debug/NAME"]"#, language: "Swift (the WidgetHost Swift SDK)"),
        File(path: "Package.swift", text: #"""
            // swift-tools-version: 6.0
            // NAME: a WidgetHost extension in Swift. Build it with `swift build` in this folder
            // (extension.json runs .build/debug/NAME), then `widgethost extension test PATH-OF-THIS-FOLDER`.
            import PackageDescription

            let package = Package(
                name: "NAME",
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: "SDK_PATH")],
                targets: [
                    .executableTarget(name: "NAME", dependencies: [.product(name: "WidgetHostSDK", package: "SDK")]),
                ]
            )

            """#),
        File(path: "Sources/NAME/Extension.swift", text: #"""
            import FoundationEssentials
            import Synchronization
            import WidgetHostSDK

            /// One minute of the widget: a greeting and the time.
            struct HelloEntry: TimelineEntry {
                let date: Date
                let greeting: String

                var time: String {
                    let minutes = Int(date.timeIntervalSince1970) % 86_400 / 60
                    func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
                    return twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
                }
            }

            /// How often `c` was pressed. In memory: a relaunch starts from 0 (keep what must last
            /// in the folder WIDGETHOST_EXTENSION_DATA names).
            let presses = Mutex(0)

            struct Provider: TimelineProvider {
                func placeholder(in context: Context) -> HelloEntry {
                    HelloEntry(date: Date(timeIntervalSince1970: 0), greeting: "Hello")
                }

                func snapshot(in context: Context) async -> HelloEntry {
                    HelloEntry(date: Date(), greeting: context.options.string("greeting") ?? "Hello")
                }

                /// One entry a minute for five minutes from this minute, then ask again.
                func timeline(in context: Context) async -> Timeline<HelloEntry> {
                    let now = Int(Date().timeIntervalSince1970)
                    let minute = now - now % 60
                    let greeting = context.options.string("greeting") ?? "Hello"
                    let entries = (0..<5).map { HelloEntry(date: Date(timeIntervalSince1970: Double(minute + 60 * $0)), greeting: greeting) }
                    return Timeline(entries: entries, policy: .after(Date(timeIntervalSince1970: Double(minute + 300))))
                }
            }

            @main
            struct HelloExtension: WidgetBundle {
                var body: [any WidgetConfiguration] {
                    StaticConfiguration(kind: "hello", provider: Provider()) { entry, context in
                        Text(entry.greeting).role(.accent).bold()
                        Text(entry.time + " UTC").role(.muted)
                        if context.family != .small {
                            Text("c pressed \(presses.withLock { $0 }) times")
                        }
                    }
                    .onAction("c") { _ in
                        presses.withLock { $0 += 1 }
                    }
                }
            }

            """#),
    ])
}
