#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing

/// The host knows no built-in widget: the kinds come from `BuiltinWidgets` (the Widgets
/// module) and everything about them from their definitions. A WidgetHost file that names a
/// widget's own types (`ClockWidget`, `LeaderboardProvider`, `HeroEntry`, …) is knowledge in the
/// wrong place. The stack's rules (`StackDefinition`, `StackRotation`) are the container's,
/// which the host lays out, and are allowed.
@Suite("The host names no widget")
struct HostNamesNoWidgetTests {
    static let sources: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Sources"
    }()

    /// The folders of `Sources/Widgets` that hold a widget (not `Options`, `Shared`, `Stack`).
    static func widgetFolders() -> [String] {
        guard let directory = opendir(sources + "/Widgets") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard entry.pointee.d_type == UInt8(DT_DIR), !name.hasPrefix("."), !["Options", "Shared", "Stack"].contains(name)
            else { continue }
            names.append(name)
        }
        return names.sorted()
    }

    /// Swift files under `path`, recursively.
    static func swiftFiles(under path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var files: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix(".") else { continue }
            let full = path + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { files += swiftFiles(under: full) } else if name.hasSuffix(".swift") { files.append(full) }
        }
        return files
    }

    @Test("no WidgetHost file names a built-in widget's types")
    func hostNamesNoWidgetType() throws {
        let folders = Self.widgetFolders()
        #expect(folders.count >= 8, "the widget folders: \(folders)")
        let suffixes = ["Widget", "Provider", "Entry", "Options", "Manifest", "View"]
        let names = folders.flatMap { folder in suffixes.map { folder + $0 } }
        var found: [String] = []
        for file in Self.swiftFiles(under: Self.sources + "/WidgetHost") {
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
