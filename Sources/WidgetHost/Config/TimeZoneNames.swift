#if canImport(Glibc)
import Glibc
#endif

/// Decides whether a time zone name exists, from the system's tz database.
enum TimeZoneNames {
    /// The zone names every host understands without a database.
    static let builtIn: Set<String> = ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "local"]

    /// True for built-in names and for names with a file under `/usr/share/zoneinfo`.
    ///
    /// When the machine has no tz database at all, every well-formed name is accepted (the
    /// widget will then report the zone it cannot load). Callers check the name's form first
    /// (`OptionType.isWellFormedTimeZone`), so the path cannot escape the directory.
    static func exists(_ name: String) -> Bool {
        if builtIn.contains(name) { return true }
        let directory = "/usr/share/zoneinfo"
        guard access(directory, F_OK) == 0 else { return true }
        var info = stat()
        return stat(directory + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
