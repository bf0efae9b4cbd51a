import Testing
@testable import WidgetCore

@Suite("WidgetFamily")
struct WidgetFamilyTests {
    @Test("families occupy the grid units of DESIGN.md")
    func gridUnits() {
        #expect(WidgetFamily.small.gridUnits == (1, 1))
        #expect(WidgetFamily.medium.gridUnits == (2, 1))
        #expect(WidgetFamily.large.gridUnits == (2, 2))
        #expect(WidgetFamily.extraLarge.gridUnits == (4, 2))
    }
}
