@testable import Extensions
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport

/// Each thread that handles extension input has a stack sized for the limits it enforces, with
/// room to spare, measured here in the build the tests run in (debug, whose frames are the
/// largest): the work takes at most a quarter of the thread's stack.
@Suite("Thread stacks sized for the limits")
struct ThreadStackTests {
    /// A log notification as deep as a line may be: `IncomingMessage.maximumDepth` levels.
    static let deepestLine: [UInt8] = {
        let arrays = IncomingMessage.maximumDepth - 2
        let nested = String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays)
        return Array(#"{"jsonrpc":"2.0","method":"log","params":{"message":"deepest","nested":\#(nested)}}"#.utf8)
    }()

    /// A timeline answer whose view is `ViewNode.maximumDepth` levels: alternating stacks
    /// around a text.
    static let deepestAnswer: [UInt8] = {
        var view = #"{"type":"text","spans":[{"text":"deep"}]}"#
        for level in 1..<ViewNode.maximumDepth {
            view = #"{"type":"\#(level % 2 == 1 ? "vstack" : "hstack")","children":[\#(view)]}"#
        }
        return Array(#"{"jsonrpc":"2.0","id":1,"result":{"entries":[{"date":"2026-11-30T22:00:00Z","view":\#(view)}],"policy":"never"}}"#.utf8)
    }()

    @Test("wh-ext-read: the deepest line it accepts and 130 '[' take at most a quarter of its stack")
    func readerThread() {
        let used = StackUse.measure {
            guard case .call = IncomingMessage.parse(Self.deepestLine, maximumBytes: 1 << 20).message else {
                Issue.record("the deepest line was refused")
                return
            }
            guard case .violation = IncomingMessage.parse(Array(repeating: UInt8(ascii: "["), count: 130), maximumBytes: 1 << 20).message else {
                Issue.record("130 '[' were accepted")
                return
            }
            _ = IncomingMessage.parse(Self.deepestAnswer, maximumBytes: 1 << 20)
        }
        #expect(used * 4 <= DetachedThread.parsingStackSize, "\(used) bytes used of \(DetachedThread.parsingStackSize)")
    }

    @Test("wh-provider: decoding the deepest view takes at most a quarter of its stack")
    func providerThread() {
        let used = StackUse.measure {
            guard case .answer(_, .success(let result)) = IncomingMessage.parse(Self.deepestAnswer, maximumBytes: 1 << 20).message else {
                Issue.record("the answer was refused")
                return
            }
            do {
                let timeline = try ExtensionTimelineDecoder.decode(result)
                #expect(timeline.entries.count == 1)
            } catch {
                Issue.record("the view was refused: \(error)")
            }
        }
        #expect(used * 4 <= ThreadTaskExecutor.defaultStackSize, "\(used) bytes used of \(ThreadTaskExecutor.defaultStackSize)")
    }

    @Test("the loop: laying out and drawing the deepest view takes at most a quarter of the main thread's 8 MiB")
    func loopThread() throws {
        guard case .answer(_, .success(let result)) = IncomingMessage.parse(Self.deepestAnswer, maximumBytes: 1 << 20).message else {
            Issue.record("the answer was refused")
            return
        }
        let view = try #require(try ExtensionTimelineDecoder.decode(result).entries.first?.view)
        let used = StackUse.measure {
            var buffer = CellBuffer(width: 80, height: 24)
            view.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
            #expect(TextBackend.lines(buffer).first == "deep")
        }
        #expect(used * 4 <= 8 << 20, "\(used) bytes used")
    }
}
