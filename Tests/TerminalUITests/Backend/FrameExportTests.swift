import Testing
import TerminalUI
import WidgetTestSupport

/// `snapshot --format svg|html`: hostile names become text, never markup, and the documents
/// hold exactly the cells of the text snapshot, row for row (checked by Python's own XML and
/// HTML parsers, not by ours).
@Suite("Frame export: SVG and HTML")
struct FrameExportTests {
    /// A frame of what a widget or a server might send: an escape sequence, markup, a CDATA
    /// end, quotes, a bidi override, wide emoji and CJK, in several roles, bold, reversed.
    static func hostileFrame() -> CellBuffer {
        var buffer = CellBuffer(width: 40, height: 6)
        _ = buffer.write("\u{1B}[31mred<script>alert(1)</script>", x: 0, y: 0, style: CellStyle(.accent, .bold))
        _ = buffer.write("]]> & \"quotes\" 'single' </svg>", x: 1, y: 1, style: CellStyle(.warning))
        _ = buffer.write("\u{202E}rtl 🐙 東京 wide", x: 0, y: 2, style: CellStyle(.title))
        _ = buffer.write("<![CDATA[x]]> &amp; &#60;", x: 2, y: 3, style: CellStyle(.statusText, .reverse))
        _ = buffer.write("🐳🐳 end", x: 30, y: 4)
        return buffer
    }

    /// Reads the document with Python's parsers and prints the grid's rows, trailing spaces cut:
    /// SVG from each `<text>`'s x and y (a run of one character as wide as two cells is a wide
    /// glyph), HTML from the `<pre>`'s text.
    static let reader = #"""
    import sys, xml.etree.ElementTree as ET
    from html.parser import HTMLParser
    kind, path = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8").read()
    if kind == "svg":
        root = ET.fromstring(text)
        ns = "{http://www.w3.org/2000/svg}"
        width = round(float(root.get("width")) / 8.4); height = round(float(root.get("height")) / 17)
        grid = [[" "] * width for _ in range(height)]
        for node in root.iter(ns + "text"):
            col = round(float(node.get("x")) / 8.4); row = int(float(node.get("y")) // 17)
            cells = round(float(node.get("textLength")) / 8.4)
            chars = list(node.text or "")
            if len(chars) == 1 and cells == 2:
                grid[row][col] = chars[0]; grid[row][col + 1] = None
            else:
                assert len(chars) == cells, (chars, cells)
                for i, ch in enumerate(chars): grid[row][col + i] = ch
        for cells in grid: print("".join(c for c in cells if c is not None).rstrip(" "))
    else:
        class Pre(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True); self.inside = False; self.text = ""; self.tags = []
            def handle_starttag(self, tag, attrs):
                self.tags.append(tag)
                if tag == "pre": self.inside = True
            def handle_endtag(self, tag):
                if tag == "pre": self.inside = False
            def handle_data(self, data):
                if self.inside: self.text += data
        parser = Pre(); parser.feed(text)
        assert "script" not in parser.tags, parser.tags
        for line in parser.text.split("\n"): print(line.rstrip(" "))
    """#

    func rows(_ document: String, kind: String) throws -> [String] {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = try directory.write("frame." + kind, document)
        let result = try Subprocess.run(["python3", "-c", Self.reader, kind, path], timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(result.status == 0, "\(result.standardError)")
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    @Test("SVG parses as XML and holds the text snapshot's cells exactly; no element of a widget's")
    func svg() throws {
        let frame = Self.hostileFrame()
        let document = FrameExport.svg(frame, theme: .default)
        #expect(try rows(document, kind: "svg") == TextBackend.lines(frame))
        #expect(!document.contains("<script") && !document.contains("\u{1B}") && !document.contains("]]>"))
        #expect(document.contains(#"font-weight="bold""#) && document.contains("#ffd75f"), "the theme's warning colour")
    }

    @Test("HTML parses with no tag of a widget's and holds the text snapshot's cells exactly")
    func html() throws {
        let frame = Self.hostileFrame()
        let document = FrameExport.html(frame, theme: .default)
        #expect(try rows(document, kind: "html") == TextBackend.lines(frame))
        #expect(!document.contains("<script") && !document.contains("\u{1B}"))
    }
}
