import FoundationEssentials
import WidgetCore

/// The clock's `timeZone` picker (its `DynamicOptionsProvider`): the zones of the tz database
/// (`zone1970.tab`: one canonical zone a line, with its countries), plus `UTC` and `local`.
public enum TimeZoneNames {
    public struct Zone: Sendable, Equatable {
        public var name: String
        /// The ISO 3166 codes of the countries it covers (`FR,MC`); empty for `UTC`, `local`.
        public var countries: String
    }

    /// Every zone of the default database, sorted, read once; only `UTC` and `local` when it
    /// has no table.
    public static let all: [Zone] = read(ZoneInfo.defaultDirectory)

    /// The zones of the database in `directory` (the default one's read once).
    public static func zones(in directory: String) -> [Zone] {
        directory == ZoneInfo.defaultDirectory ? all : read(directory)
    }

    static func read(_ directory: String) -> [Zone] {
        let data = FileManager.default.contents(atPath: directory + "/zone1970.tab").map { [UInt8]($0) } ?? []
        var zones = [Zone(name: "UTC", countries: ""), Zone(name: "local", countries: "")]
        for line in String(decoding: data.prefix(1 << 20), as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 3, ZoneInfo.isWellFormedName(String(columns[2])) else { continue }
            zones.append(Zone(name: String(columns[2]), countries: String(columns[0])))
        }
        var seen = Set<String>()
        return zones.filter { seen.insert($0.name).inserted }.sorted { $0.name < $1.name }
    }

    /// The zones whose name contains `text` (ignoring case, a space as `_`), those it starts
    /// (or starts a part of, `paris` in `Europe/Paris`) first; every zone for an empty text.
    public static func matching(_ text: String, among zones: [Zone] = all, limit: Int = DynamicOptions.maximumItems) -> [Zone] {
        let query = String(text.lowercased().map { $0 == " " ? "_" : $0 })
        guard !query.isEmpty else { return Array(zones.prefix(limit)) }
        var leading: [Zone] = [], others: [Zone] = []
        for zone in zones {
            let name = zone.name.lowercased()
            guard name.contains(query) else { continue }
            if name.hasPrefix(query) || name.contains("/" + query) { leading.append(zone) } else { others.append(zone) }
        }
        return Array((leading + others).prefix(limit))
    }

    /// The picker's items for `query` from the database in `directory`.
    public static func items(_ query: DynamicOptionsQuery, directory: String = ZoneInfo.defaultDirectory) -> [DynamicOptionItem] {
        matching(query.query, among: zones(in: directory)).map { zone in
            DynamicOptionItem(value: zone.name, title: zone.name,
                              subtitle: zone.name == "local" ? "the system's zone" : zone.countries.isEmpty ? nil : zone.countries)
        }
    }
}
