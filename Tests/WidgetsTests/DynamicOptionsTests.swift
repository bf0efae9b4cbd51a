import Testing
import WidgetCore
@testable import Widgets

@Suite("Dynamic options: the zone list and the bounds every provider's answer gets")
struct DynamicOptionsTests {
    @Test("zones containing the query, those it starts (or starts a part of) first; every zone, bounded, for none")
    func zones() {
        let zones = ["America/Argentina/Buenos_Aires", "Europe/Paris", "Pacific/Palau", "UTC", "local"]
            .map { TimeZoneNames.Zone(name: $0, countries: "") }
        #expect(TimeZoneNames.matching("pa", among: zones).map(\.name) == ["Europe/Paris", "Pacific/Palau"])
        #expect(TimeZoneNames.matching("buenos aires", among: zones).map(\.name) == ["America/Argentina/Buenos_Aires"])
        #expect(TimeZoneNames.matching("", among: zones, limit: 2).count == 2)
        // The system's table: canonical zones, UTC and local, at most 200 offered.
        let all = TimeZoneNames.items(DynamicOptionsQuery(option: "timeZone", query: ""))
        #expect(all.count == DynamicOptions.maximumItems)
        let paris = TimeZoneNames.items(DynamicOptionsQuery(option: "timeZone", query: "paris"))
        #expect(paris == [DynamicOptionItem(value: "Europe/Paris", title: "Europe/Paris", subtitle: "FR,MC")])
        #expect(TimeZoneNames.items(DynamicOptionsQuery(option: "timeZone", query: "loc")).first?.subtitle == "the system's zone")
    }

    @Test("bounded: 200 items at most, values with a control character left out, titles inert and cut, empty titles the value")
    func bounds() {
        let many = (0..<10_000).map { DynamicOptionItem(value: "v\($0)", title: "t\($0)") }
        #expect(DynamicOptionsBounds.bounded(many).count == 200)
        let odd = DynamicOptionsBounds.bounded([
            DynamicOptionItem(value: "a\u{1B}b", title: "escape in the value"),
            DynamicOptionItem(value: "", title: "empty"),
            DynamicOptionItem(value: "ok", title: "\u{1B}[2J" + String(repeating: "x", count: 300), subtitle: "\u{9B}31m"),
            DynamicOptionItem(value: "bare", title: "", subtitle: ""),
        ])
        #expect(odd.map(\.value) == ["ok", "bare"])
        #expect(odd[0].title.hasPrefix("␛[2Jxxx") && odd[0].title.count == DynamicOptions.maximumTextLength && odd[0].title.hasSuffix("…"))
        #expect(odd[0].subtitle == "\u{FFFD}31m")
        #expect(odd[1].title == "bare" && odd[1].subtitle == nil)
    }
}
