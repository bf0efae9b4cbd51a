#if canImport(Glibc)
import Glibc
#endif

/// Finds the executables `swift build`/`swift test` produced, for end-to-end tests.
///
/// On Linux `swift test` runs the test bundle `WidgetHostPackageTests.xctest`, itself an
/// executable, from the build directory (`.build/<triple>/debug/`), and the products
/// (`widgethost`, …) are linked into the same directory. So the directory of
/// `/proc/self/exe` is where they are. `WIDGETHOST_PRODUCTS_DIR` overrides it (e.g. to run
/// the end-to-end tests against a release build).
public enum BuiltProducts {
    /// A product that is not where it should be.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// The directory searched: `$WIDGETHOST_PRODUCTS_DIR`, else the test runner's directory.
    public static func directory() throws(Missing) -> String {
        if let override = getenv("WIDGETHOST_PRODUCTS_DIR").map({ String(cString: $0) }), !override.isEmpty {
            return override
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw Missing(description: "cannot read /proc/self/exe: \(String(cString: strerror(errno)))")
        }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else {
            throw Missing(description: "/proc/self/exe is not a path: \(executable)")
        }
        return String(executable[..<slash])
    }

    /// The absolute path of the executable `name`, or an error saying where it was looked for.
    ///
    /// ```swift
    /// let widgethost = try BuiltProducts.executable("widgethost")
    /// ```
    public static func executable(_ name: String) throws(Missing) -> String {
        let directory = try directory()
        let path = directory + "/" + name
        guard access(path, X_OK) == 0 else {
            throw Missing(description: """
                executable '\(name)' not found at \(path); build it first (swift build --build-tests), \
                or set WIDGETHOST_PRODUCTS_DIR to the directory that holds it
                """)
        }
        return path
    }
}
