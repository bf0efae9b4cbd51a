#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport

/// The deepest input the limits allow, through the real paths on the real threads, in the
/// build the tests run in (debug, whose frames are the largest): the reader thread parses
/// every line, a provider thread decodes the view, the loop lays it out and draws it. Each
/// used to overflow its thread's stack (a 50-level view, 130 '[') and crash the host.
@Suite("Deep input from an extension", .serialized, .onOwnThreads)
struct DeepInputTests {
    @Test("the deepest line a host accepts (152 levels) and a line of 130 '[' on the reader thread: logged, refused")
    func deepLines() async throws {
        let fake = try FakeExtension(script: "deep.sh")
        defer { fake.close() }
        let error = await #expect(throws: ExtensionError.self) { try await fake.timeline() }
        #expect(error?.description.hasPrefix("the extension stopped: sent a line that is not JSON") == true, "\(String(describing: error))")
        #expect(await fake.logged("info: fake: deepest"), "\(fake.logLines)")
    }

    @Test("a view of 64 levels: read, decoded on a provider thread, laid out and drawn")
    func deepestView() async throws {
        let fake = try FakeExtension(script: "deep.sh")
        defer { fake.close() }
        let provider = ThreadTaskExecutor(maximumThreads: 1)
        let host = fake.host
        let timeline = try await Task(executorPreference: provider) { () async throws -> Timeline<ExtensionEntry> in
            let params = RPCMessage.object([
                ("kind", .string("panel")), ("instance", .string("view#1")), ("family", .string("small")),
                ("size", RPCMessage.object([("columns", .integer(20)), ("rows", .integer(5))])),
                ("options", RPCMessage.object([])), ("isPreview", .bool(false)), ("userInitiated", .bool(false)),
            ])
            return try ExtensionTimelineDecoder.decode(try await host.request("timeline", params: params))
        }.value
        let view = try #require(timeline.entries.first?.view)
        var buffer = CellBuffer(width: 20, height: 5)
        view.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        #expect(TextBackend.lines(buffer).first == "deep")
    }
}
