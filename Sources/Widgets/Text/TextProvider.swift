#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import WidgetCore

/// Answers a `text` panel: its static text, or its file's contents as of this reload.
///
/// A file is read up to `maximumFileBytes` (the rest is not read; the panel says so), as
/// UTF-8 (invalid bytes show as U+FFFD), CRLF as LF, tabs as four spaces. With the file's
/// directory watched (`FileWatcher`) the policy is `.never`: the watcher reloads the kind
/// when the file changes. When the directory cannot be watched (it does not exist yet) the
/// provider looks again every `retrySeconds` and watches it once it can. The watch is the
/// provider's lease: when the panel goes (a config reload drops its provider), so does it.
struct TextProvider: TimelineProvider {
    typealias Entry = TextEntry

    enum Source: Sendable, Equatable {
        case text(String)
        case file(String)
    }

    /// The most of a file that is read (1 MiB): more than any panel shows.
    static let maximumFileBytes = 1024 * 1024
    /// How often a file whose directory cannot be watched is looked at again.
    static let retrySeconds: TimeInterval = 30

    let source: Source
    let wrap: Bool
    /// The watch of a `.file` source's file, held as long as this provider (and its copies).
    let watch: FileWatcher.Lease?
    let now: @Sendable () -> Date

    init(source: Source, wrap: Bool, watcher: FileWatcher?, now: @escaping @Sendable () -> Date) {
        self.source = source
        self.wrap = wrap
        self.now = now
        if case .file(let path) = source, let watcher { watch = watcher.lease(path) } else { watch = nil }
    }

    func placeholder(in context: Context) -> TextEntry {
        TextEntry(date: now(), text: "", wrap: wrap)
    }

    func snapshot(in context: Context) async -> TextEntry {
        entry()
    }

    func timeline(in context: Context) async throws -> Timeline<TextEntry> {
        guard case .file = source else { return Timeline(entries: [entry()], policy: .never) }
        // Watch before reading: a change between the two is then seen.
        let watched = watch?.renew() ?? false
        let entry = entry()
        return Timeline(entries: [entry], policy: watched ? .never : .after(entry.date.addingTimeInterval(Self.retrySeconds)))
    }

    func entry() -> TextEntry {
        let date = now()
        switch source {
        case .text(let text):
            return TextEntry(date: date, text: Self.fitted(Self.tidy(text)), wrap: wrap)
        case .file(let path):
            switch Self.readFile(path, limit: Self.maximumFileBytes) {
            case .success(let (bytes, complete)):
                let text = Self.fitted(Self.tidy(String(decoding: bytes, as: UTF8.self)))
                return TextEntry(date: date, text: text, notice: complete ? nil : "only the first \(ByteCountText.exact(Self.maximumFileBytes)) is shown", wrap: wrap)
            case .failure(let error):
                let notice = error.code == ENOENT ? "no file at \(path)" : "cannot read \(path): \(error)"
                return TextEntry(date: date, text: "", notice: notice, isError: true, wrap: wrap)
            }
        }
    }

    /// Lines kept, and scalars kept of each: more than any panel shows, so a frame never
    /// lays out a megabyte (the view wraps on every frame).
    static let maximumLines = 500
    static let maximumLineScalars = 2000

    /// The first `maximumLines` lines of `text`, each cut to `maximumLineScalars`.
    static func fitted(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > maximumLineScalars || text.utf8.count(where: { $0 == 0x0A }) >= maximumLines else { return text }
        let lines = scalars.split(separator: "\n", maxSplits: maximumLines, omittingEmptySubsequences: false)
            .prefix(maximumLines)
            .map { String(String.UnicodeScalarView($0.prefix(maximumLineScalars))) }
        return lines.joined(separator: "\n")
    }

    /// CRLF and lone CR as LF, tabs as four spaces; everything else is left for the cell
    /// buffer's sanitiser.
    static func tidy(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x09 }) else { return text }
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            defer { previousCR = scalar == "\r" }
            switch scalar {
            case "\r": out.append("\n")
            case "\n" where previousCR: continue
            case "\t": out.append(contentsOf: "    ".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    struct ReadError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// At most `limit` bytes of `path`, and whether that is all of it. A directory, a FIFO or
    /// a device is refused (`O_NONBLOCK` so opening a FIFO cannot hang the reload).
    static func readFile(_ path: String, limit: Int) -> Result<([UInt8], Bool), ReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return .failure(ReadError(code: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(ReadError(code: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(ReadError(code: (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL)) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(ReadError(code: errno)) }
            if count == 0 { break }
            filled += count
        }
        let complete = filled <= limit
        return .success((Array(bytes.prefix(min(filled, limit))), complete))
    }
}
