import ExtensionProtocol
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import JSONTree
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import WidgetHostSDK

private struct Entry: WidgetHostSDK.TimelineEntry {
    let date: Date
    let load: Double
}

private struct Provider: WidgetHostSDK.TimelineProvider {
    func placeholder(in context: Context) -> Entry { Entry(date: Date(timeIntervalSince1970: 0), load: 0.5) }
    func snapshot(in context: Context) async -> Entry { Entry(date: Date(timeIntervalSince1970: 60), load: 0.25) }
    func timeline(in context: Context) async -> WidgetHostSDK.Timeline<Entry> {
        WidgetHostSDK.Timeline(entries: [Entry(date: Date(timeIntervalSince1970: 1_796_076_000), load: 0.83)],
                               policy: .after(Date(timeIntervalSince1970: 1_796_076_060)))
    }
}

/// docs/views.md's example, built with the SDK's view builder.
private var documented: some WidgetHostSDK.View {
    VStack {
        Text("CPU ").role(.muted).bold() + Text("83%").role(.positive)
        Bar(value: 0.5, label: "50%").role(.positive)
        Divider()
        Table(columns: [Table.Column("Hero"), Table.Column("Exp", alignment: .right, minimum: 6)],
              rows: [[Text("🐙 Octo").role(.accent), Text("86463")], [Text("龍之介"), Text("3121")]])
        Sparkline(values: [1, 2, 3, 4, 5, 6, 7, 8])
    }
}

@Suite("Swift SDK")
struct SwiftSDKTests {
    @Test("the view builder emits the view JSON of docs/views.md")
    func viewJSON() {
        let view = VStack(gap: 1) {
            Text("CPU ").role(.muted).bold() + Text("83%").role(.positive)
            if Bool(true) { Bar(value: 0.5, label: "50%").role(.accent) }
            HStack { Spacer(); Sparkline(values: [1, 2], max: 4) }
        }
        #expect(view.json.text == #"{"type":"vstack","children":[{"type":"text","spans":[{"text":"CPU ","role":"muted","bold":true},{"text":"83%","role":"positive"}]},{"type":"bar","value":0.5,"role":"accent","label":"50%"},{"type":"hstack","children":[{"type":"spacer"},{"type":"sparkline","values":[1.0,2.0],"max":4.0}]}],"gap":1}"#)
    }

    @Test("the host's decoder reads what the SDK emits and draws docs/views.md's example as documented")
    func hostDrawsIt() throws {
        let node = try ViewNode.decode(Array(documented.json.text.utf8))
        var buffer = CellBuffer(width: 20, height: 7)
        node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        // The same frame docs/views.md shows for its JSON (TerminalUITests draws that JSON).
        expectFrame(buffer, equals: [
            "CPU 83%",
            "████████         50%",
            "────────────────────",
            "Hero             Exp",
            "🐙 Octo        86463",
            "龍之介          3121",
            "▁▂▃▄▅▆▇█",
        ])
        #expect(buffer[0, 0].style == CellStyle(.muted, .bold))
        #expect(buffer[4, 0].style == CellStyle(.positive))
    }

    @Test("a hostile text stays data: JSON escapes, the host sanitises")
    func hostileText() throws {
        let text = Text("\u{1B}[2J\n\"quoted\" \\ \u{7}")
        #expect(text.json.text == #"{"type":"text","spans":[{"text":"\u001b[2J\n\"quoted\" \\ \u0007"}]}"#)
        _ = try ViewNode.decode(Array(text.json.text.utf8))
    }

    @Test("a timeline answer: entries with ISO 8601 dates, relevance and view, then the policy")
    func timelineAnswer() async {
        let widget = StaticConfiguration(kind: "load", provider: Provider()) { entry, context in
            Text(context.family == .small ? "small" : "big")
            Bar(value: entry.load)
        }.handler
        let context = TimelineProviderContext(family: .small, displaySize: (22, 7))
        #expect(await widget.timeline(context).text == #"{"entries":[{"date":"2026-11-30T22:00:00Z","view":{"type":"vstack","children":[{"type":"text","spans":[{"text":"small"}]},{"type":"bar","value":0.83}]}}],"policy":{"after":"2026-11-30T22:01:00Z"}}"#)
        #expect(await widget.snapshot(context).text == #"{"entry":{"date":"1970-01-01T00:01:00Z","view":{"type":"vstack","children":[{"type":"text","spans":[{"text":"small"}]},{"type":"bar","value":0.25}]}}}"#)
    }

    @Test("the protocol's vocabulary is the host's: families, the method-not-found code")
    func sharedVocabulary() {
        #expect(Family.allCases.map(\.rawValue) == WidgetCore.WidgetFamily.allCases.map(\.rawValue))
        #expect(RPCErrorCode.methodNotFound == -32601)
        #expect(TimelineParameter.allCases.map(\.rawValue) == ["kind", "instance", "family", "size", "options", "isPreview", "userInitiated", "renderingMode"])
    }

    @Test("widgetAccentable() marks a node the host draws accentable; the rendering modes are the host's names")
    func accentable() throws {
        let view = VStack {
            Text("Octo").role(.accent).widgetAccentable()
            Spacer().widgetAccentable()
            Bar(value: 0.5).widgetAccentable(false)
        }
        #expect(view.json.text == #"{"type":"vstack","children":[{"type":"text","spans":[{"text":"Octo","role":"accent"}],"accentable":true},{"type":"spacer"},{"type":"bar","value":0.5}]}"#)
        let node = try ViewNode.decode(Array(view.json.text.utf8))
        var buffer = CellBuffer(width: 6, height: 3)
        node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        #expect(buffer[0, 0].style.accentable && !buffer[0, 2].style.accentable)
        #expect(WidgetHostSDK.WidgetRenderingMode.allCases.map(\.rawValue) == WidgetCore.WidgetRenderingMode.allCases.map(\.rawValue))
        #expect(TimelineProviderContext(family: .small, displaySize: (1, 1)).renderingMode == .fullColor)
    }

    @Test("options arrive as JSON and read by name")
    func options() throws {
        let params = try #require(JSON.parse(#"{"greeting":"Hi","count":3,"on":true,"ratio":0.5}"#))
        let options = Options(params)
        #expect(options.string("greeting") == "Hi")
        #expect(options.int("count") == 3)
        #expect(options.bool("on") == true)
        #expect(options.double("ratio") == 0.5)
        #expect(options.string("missing") == nil)
    }
}

/// A channel writing into a pipe, and the lines it wrote.
private final class PipeChannel: Sendable {
    let channel: Channel
    let readEnd: Int32
    let writeEnd: Int32

    init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        (readEnd, writeEnd) = (fds[0], fds[1])
        channel = Channel(output: fds[1])
    }

    /// The next line written (waiting up to 10 s for each byte; what came by then otherwise).
    func line() -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 10_000) == 1, read(readEnd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

@Suite("Swift SDK: messages to the host", .serialized)
struct SwiftSDKChannelTests {
    @Test("download sends a request with its params in order and returns the task the host answers")
    func download() async throws {
        let pipe = PipeChannel()
        // On the SDK's own thread: the test's blocking read holds one of the pool's.
        let started = Task(executorPreference: JobThread.shared) {
            try await BackgroundDownloads.download("http://127.0.0.1:8787/board", session: "board", headers: ["Authorization": "Bearer x"],
                                                   description: "the board", conditional: false, on: pipe.channel)
        }
        let request = pipe.line()
        #expect(request == #"{"jsonrpc":"2.0","id":1000000,"method":"download","params":{"identifier":"board","url":"http://127.0.0.1:8787/board","headers":{"Authorization":"Bearer x"},"description":"the board","conditional":false}}"#)
        #expect(pipe.channel.deliver(id: 1_000_000, .success(["task": 7])))
        #expect(try await started.value == 7)
        #expect(!pipe.channel.deliver(id: 1_000_000, .success(["task": 7])), "an id answered once is not pending any more")
    }

    @Test("a refused download throws the host's error")
    func refused() async throws {
        let pipe = PipeChannel()
        let started = Task(executorPreference: JobThread.shared) { () async throws(RemoteError) -> Int in
            try await BackgroundDownloads.download("ftp://x", session: "s", headers: [:], description: nil, conditional: nil, on: pipe.channel)
        }
        _ = pipe.line()
        _ = pipe.channel.deliver(id: 1_000_000, .failure(RemoteError(code: RPCErrorCode.invalidParams, "download: bad url")))
        let result = await started.result
        guard case .failure(let error) = result, let refusal = error as? RemoteError else { Issue.record("expected the host's error"); return }
        #expect(refusal.code == -32602 && refusal.message == "download: bad url")
    }

    @Test("WidgetCenter's reloads are notifications, one kind or all")
    func reloads() {
        let pipe = PipeChannel()
        let center = WidgetCenter(channel: pipe.channel)
        center.reloadTimelines(ofKind: "day")
        #expect(pipe.line() == #"{"jsonrpc":"2.0","method":"reloadTimelines","params":{"kind":"day"}}"#)
        center.reloadAllTimelines()
        #expect(pipe.line() == #"{"jsonrpc":"2.0","method":"reloadTimelines","params":{}}"#)
    }

    @Test("session events are read from the host's JSON and reach the handler that matches their session")
    func sessionEvents() async throws {
        let events = try #require(JSON.parse(#"[{"task":3,"description":"board","url":"http://h/b","status":"downloaded","file":"/tmp/f"},{"task":4,"url":"http://h/c","status":"failed","error":"server answered 404 Not Found"},{"task":5,"url":"x","status":"bogus"}]"#))
        guard case .array(let items) = events else { Issue.record("not an array"); return }
        let parsed = items.compactMap(SessionEvent.init)
        #expect(parsed.map(\.task) == [3, 4], "an event with an unknown status is left out")
        #expect(parsed[0].status == .downloaded && parsed[0].file == "/tmp/f" && parsed[0].description == "board")
        #expect(parsed[1].status == .failed && parsed[1].error == "server answered 404 Not Found")
        let seen = Mutex<[String]>([])
        let widget = StaticConfiguration(kind: "load", provider: Provider()) { _ in Text("x") }
            .onBackgroundSessionEvents(matching: { $0 == "board" }) { identifier, events in
                seen.withLock { $0.append("\(identifier): \(events.map(\.task))") }
            }.handler
        for session in widget.sessions where session.matching("board") { await session.handle("board", parsed) }
        #expect(widget.sessions.filter { $0.matching("other") }.isEmpty)
        #expect(seen.withLock { $0 } == ["board: [3, 4]"])
    }

    @Test("onOptions answers a dynamic option's options request: the items matching the query, an error thrown as the answer's, -32601 for another option")
    func dynamicOptions() async throws {
        let widget = StaticConfiguration(kind: "load", provider: Provider()) { _ in Text("x") }
            .onOptions("city") { query in
                if query.query == "fail" { throw RemoteError(code: 7, "no cities today") }
                return ["Oslo", "Paris"].filter { $0.lowercased().contains(query.query) }
                    .map { OptionItem(value: $0, subtitle: query.options.string("country")) }
            }.handler
        let params = try #require(JSON.parse(#"{"kind":"load","option":"city","query":"par","options":{"country":"FR"}}"#))
        guard case .success(let result) = await widget.optionsResult(params) else { Issue.record("not answered"); return }
        #expect(result.text == #"{"items":[{"value":"Paris","title":"Paris","subtitle":"FR"}]}"#)
        let failing = try #require(JSON.parse(#"{"kind":"load","option":"city","query":"fail"}"#))
        guard case .failure(let error) = await widget.optionsResult(failing) else { Issue.record("no error"); return }
        #expect(error.code == 7 && error.message == "no cities today")
        let other = try #require(JSON.parse(#"{"kind":"load","option":"size","query":""}"#))
        guard case .failure(let unknown) = await widget.optionsResult(other) else { Issue.record("no error"); return }
        #expect(unknown.code == RPCErrorCode.methodNotFound)
    }
}
