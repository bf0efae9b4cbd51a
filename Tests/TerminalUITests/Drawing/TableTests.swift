import Testing
import TerminalUI
import WidgetTestSupport

private let heroes: [[TableCell]] = [
    ["1", "🐙 Octo", "86463"],
    ["2", "🐳 Spouty", "20000"],
    ["3", "🎂 Cake", "3121"],
]

private let columns = [
    TableColumn("#", width: .fixed(2), alignment: .right),
    TableColumn("Hero"),
    TableColumn("Exp", width: .fixed(6), alignment: .right),
]

@Suite("Table")
struct TableTests {
    @Test("lays out fixed and flexible columns with alignment")
    func layout() {
        var buffer = CellBuffer(width: 22, height: 4)
        Table(columns: columns, rows: heroes).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [
            " # Hero            Exp",
            " 1 🐙 Octo       86463",
            " 2 🐳 Spouty     20000",
            " 3 🎂 Cake        3121",
        ])
        #expect(buffer[0, 0].style == CellStyle(.muted, .bold))
    }

    @Test("truncates each cell to its column and drops rows that do not fit")
    func narrow() {
        var buffer = CellBuffer(width: 14, height: 3)
        Table(columns: columns, rows: heroes, showsHeader: false).draw(into: &buffer, in: Rect(x: 0, y: 0, width: 14, height: 2))
        expectFrame(buffer, equals: [
            " 1 🐙 …  86463",
            " 2 🐳 …  20000",
            "",
        ])
        #expect(Table(columns: columns, rows: heroes).columnWidths(in: 14) == [2, 4, 6])
        #expect(Table(columns: columns, rows: heroes).columnWidths(in: 5) == [2, 0, 1])
    }

    @Test("is safe at 0×0 and 1×1, and with ragged rows")
    func tiny() {
        var buffer = CellBuffer(width: 3, height: 2)
        Table(columns: columns, rows: heroes).draw(into: &buffer, in: .zero)
        expectFrame(buffer, equals: ["", ""])
        Table(columns: columns, rows: heroes).draw(into: &buffer, in: Rect(x: 0, y: 0, width: 1, height: 1))
        expectFrame(buffer, equals: ["", ""])
        // Two separators already take more than one column: nothing fits, nothing is drawn.
        Table(columns: [TableColumn("a"), TableColumn("b")], rows: [["x", "y", "z"], []], showsHeader: false)
            .draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["x y", ""])
    }
}
