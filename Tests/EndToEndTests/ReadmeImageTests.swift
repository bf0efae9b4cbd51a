import Testing
import WidgetTestSupport

/// The repository's root (this file is Tests/EndToEndTests/ReadmeImageTests.swift).
private let repository: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
}()

@Suite("README image")
struct ReadmeImageTests {
    @Test("docs/images/dashboard.svg is what docs/images/make.sh draws with this build")
    func current() throws {
        let widgethost = try BuiltProducts.executable("widgethost")
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let made = scratch.path + "/dashboard.svg"
        let run = try Subprocess.run(["sh", repository + "/docs/images/make.sh", widgethost, made],
                                     timeout: TestTimeScale.scaled(.seconds(120)))
        try #require(run.status == 0, "make.sh failed: \(run.standardError)")
        let fresh = try FileContents.text(at: made)
        let committed = try FileContents.text(at: repository + "/docs/images/dashboard.svg")
        #expect(fresh.hasPrefix("<?xml") && fresh.contains("Ranger Leaderboard"))
        #expect(fresh == committed, "docs/images/dashboard.svg is out of date: run docs/images/make.sh and commit it")
    }
}
