import FoundationEssentials
import Testing
import WidgetTestSupport

/// The host knows no built-in widget: the kinds come from `BuiltinWidgets` (the Widgets
/// module) and everything about them from their definitions. A WidgetHost file that names a
/// widget's own types (`ClockWidget`, `LeaderboardProvider`, `HeroEntry`, …) is knowledge in the
/// wrong place. The stack's rules (`StackDefinition`, `StackRotation`) are the container's,
/// which the host lays out, and are allowed.
@Suite("The host names no widget")
struct HostNamesNoWidgetTests {
    static var sources: String { SourceTree.sources }

    /// The folders of `Sources/Widgets` that hold a widget (not `Options`, `Shared`, `Stack`).
    static func widgetFolders() -> [String] {
        SourceTree.directories(under: sources + "/Widgets").filter { !["Options", "Shared", "Stack"].contains($0) }
    }

    @Test("no WidgetHost file names a built-in widget's types")
    func hostNamesNoWidgetType() throws {
        let folders = Self.widgetFolders()
        #expect(folders.count >= 8, "the widget folders: \(folders)")
        let suffixes = ["Widget", "Provider", "Entry", "Options", "Manifest", "View"]
        let names = folders.flatMap { folder in suffixes.map { folder + $0 } }
        var found: [String] = []
        for file in SourceTree.swiftFiles(under: Self.sources + "/WidgetHost") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.drop { $0 == " " }
                guard !code.hasPrefix("//") else { continue }
                for name in names where code.contains(name) {
                    found.append("\(file.dropFirst(Self.sources.count + 1)):\(number + 1): \(name)")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
