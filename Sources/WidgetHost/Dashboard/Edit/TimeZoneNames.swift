import Widgets

/// The picker of a time zone option in the Edit Widget form: the zones of the system's tz
/// database (`zone1970.tab`: one canonical zone a line), read once, plus `UTC` and `local`.
enum TimeZoneNames {
    /// Every zone name, sorted; empty when the database has no table.
    static let all: [String] = read(ZoneInfo.defaultDirectory + "/zone1970.tab")

    static func read(_ path: String) -> [String] {
        guard let bytes = try? ConfigFileReader.read(path) else { return [] }
        let names = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix("#") else { return nil }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            return columns.count >= 3 ? String(columns[2]) : nil
        }
        return Array(Set(names + ["UTC", "local"])).sorted()
    }

    /// The zones containing `text` (ignoring case, `_` as a space), the ones it starts first.
    static func suggestions(for text: String, among names: [String] = all, limit: Int = 5) -> [String] {
        let query = String(text.lowercased().map { $0 == " " ? "_" : $0 })
        guard !query.isEmpty else { return [] }
        let matching = names.filter { $0.lowercased().contains(query) && $0 != text }
        let leading = matching.filter { $0.lowercased().hasPrefix(query) || $0.lowercased().contains("/" + query) }
        return Array((leading + matching.filter { !leading.contains($0) }).prefix(limit))
    }
}
