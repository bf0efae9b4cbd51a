#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetCore
import WidgetTestSupport

/// A closure kept directly as a generic container's value (`Mutex<@Sendable () -> Void>`,
/// `Mutex<(@Sendable () -> Void)?>`, a tuple holding one) is reabstracted on every `withLock`
/// and stored back one thunk deeper: read often enough, calling it overflows the stack (issue
/// 22, the extension log sink after ~3,300 lines). Such closures live in a struct
/// (`SendableAction`, `ExtensionLogSink`); this keeps new ones from coming back.
@Suite("Stored closures")
struct StoredClosureTests {
    /// The package's Sources and Tests folders.
    static let roots = [SourceTree.sources, SourceTree.tests]

    /// Whether the type argument after `Mutex<` / `Latch<` in `line` has a function type at
    /// its top level (outside `[...]`, whose elements are stored at one abstraction).
    static func holdsClosure(_ line: Substring) -> Bool {
        var rest = line[...]
        while let open = [rest.firstRange(of: "Mutex<"), rest.firstRange(of: "Latch<")].compactMap({ $0 })
            .min(by: { $0.lowerBound < $1.lowerBound }) {
            var angle = 1, square = 0
            var previous: Character = " "
            for character in rest[open.upperBound...] {
                switch character {
                case "<": angle += 1
                case ">" where previous == "-": if square == 0 && angle == 1 { return true }
                case ">": angle -= 1
                case "[": square += 1
                case "]": square -= 1
                default: break
                }
                if angle == 0 { break }
                previous = character
            }
            rest = rest[open.upperBound...]
        }
        return false
    }

    @Test("the check finds the shapes that nested thunks")
    func check() {
        #expect(Self.holdsClosure("let sink = Mutex<@Sendable (ExtensionLogLevel, String) -> Void>({ _, _ in })"))
        #expect(Self.holdsClosure("private let cancelAction: Mutex<(@Sendable () -> Void)?>"))
        #expect(Self.holdsClosure("let pair = Mutex<(Int, @Sendable () -> Void)>"))
        #expect(!Self.holdsClosure("let action = Mutex<SendableAction?>(nil)"))
        #expect(!Self.holdsClosure("let opened = Mutex<[(String, @Sendable (EventStreamUpdate) -> Void)]>([])"))
        #expect(!Self.holdsClosure("let state = Mutex<(process: SpawnedProcess?, cancelled: Bool)>((nil, false))"))
    }

    @Test("no closure is kept directly as a Mutex's or Latch's value in Sources or Tests")
    func noneStored() throws {
        var found: [String] = []
        for root in Self.roots {
            for file in SourceTree.swiftFiles(under: root) where !file.hasSuffix("/StoredClosureTests.swift") {
                let text = String(decoding: try FileContents.bytes(at: file), as: UTF8.self)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingPrefix(while: { $0 == " " }).hasPrefix("//") && Self.holdsClosure(line) {
                    found.append("\(file):\(number + 1): \(line.trimmingPrefix(while: { $0 == " " }))")
                }
            }
        }
        #expect(SourceTree.swiftFiles(under: Self.roots[0]).count > 100, "the sources were not found at \(Self.roots[0])")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
