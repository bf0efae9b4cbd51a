import FoundationEssentials
@testable import Extensions
import Testing
import WidgetCore
import WidgetTestSupport

@Suite("Extension requests carry the rendering mode", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionRenderingModeTests {
    @Test("timeline params end with the context's renderingMode, after userInitiated", arguments: WidgetRenderingMode.allCases)
    func sent(mode: WidgetRenderingMode) async throws {
        let fake = try FakeExtension(script: "answers.sh", debug: true)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        _ = try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5),
                                                                    renderingMode: mode))
        let sent = fake.logLines.filter { $0.contains("fake → ") && $0.contains(#""method":"timeline""#) }
        #expect(sent.count == 1, "\(fake.logLines)")
        #expect(sent.first?.contains(#""userInitiated":false,"renderingMode":"\#(mode.rawValue)"}"#) == true, "\(sent)")
    }
}
