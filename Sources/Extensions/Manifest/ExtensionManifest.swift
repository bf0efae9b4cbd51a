import ExtensionProtocol
import TerminalUI
import WidgetCore

/// An extension as its `extension.json` declares it (DESIGN.md §7, docs/extensions.md):
/// what to run, the widget kinds it serves and the limits it runs under.
///
/// Made only by `ExtensionManifestParser`, which checks every field; a value of this type is
/// valid. The kinds are offered to configs as `NAME/KIND`.
public struct ExtensionManifest: Sendable, Equatable {
    /// The protocol versions this host speaks.
    public static let supportedProtocols: ClosedRange<Int> = ExtensionProtocol.version...ExtensionProtocol.version

    /// Names the extension in kinds (`NAME/KIND`), the log and its data directory.
    public var name: String
    /// The program and its arguments; a relative program path is taken from the manifest's
    /// directory, a bare name is looked up in the host's `PATH` (see `ExtensionLauncher`).
    public var exec: [String]
    /// The protocol version the extension speaks (`initialize` checks it again).
    public var protocolVersion: Int
    /// The manifest's directory: the extension's working directory.
    public var directory: String
    /// The manifest file, for messages.
    public var path: String
    public var widgets: [ExtensionWidgetManifest]
    public var limits: ExtensionLimits

    public init(name: String, exec: [String], protocolVersion: Int = 1, directory: String, path: String,
                widgets: [ExtensionWidgetManifest], limits: ExtensionLimits = ExtensionLimits()) {
        self.name = name
        self.exec = exec
        self.protocolVersion = protocolVersion
        self.directory = directory
        self.path = path
        self.widgets = widgets
        self.limits = limits
    }

    /// The kind as a config names it: `NAME/KIND`.
    public func qualifiedKind(_ kind: String) -> String { "\(name)/\(kind)" }
}

/// One widget kind an extension serves.
public struct ExtensionWidgetManifest: Sendable, Equatable {
    /// The kind inside the extension (`today`); configs write `NAME/today`.
    public var kind: String
    /// The host's manifest for the kind, named `NAME/KIND`: families, options, actions.
    public var manifest: WidgetManifest
    /// Drawn while the first timeline loads, without launching anything.
    public var placeholder: ViewNode?

    public init(kind: String, manifest: WidgetManifest, placeholder: ViewNode? = nil) {
        self.kind = kind
        self.manifest = manifest
        self.placeholder = placeholder
    }
}

/// What an extension may take (the manifest's `limits`, each optional).
public struct ExtensionLimits: Sendable, Equatable {
    /// A request's answer must come within this many seconds (1…300, default 10).
    public var requestSeconds: Int
    /// With nothing pending this long, the process is asked to shut down (1…86400, default 30).
    public var idleExitSeconds: Int
    /// RLIMIT_AS in MiB (16…65536, default 512).
    public var memoryMiB: Int
    /// RLIMIT_CPU in seconds over the process's life (1…86400, default 60).
    public var cpuSeconds: Int

    public static let requestSecondsRange = 1...300
    public static let idleExitSecondsRange = 1...86_400
    public static let memoryMiBRange = 16...65_536
    public static let cpuSecondsRange = 1...86_400

    public init(requestSeconds: Int = 10, idleExitSeconds: Int = 30, memoryMiB: Int = 512, cpuSeconds: Int = 60) {
        self.requestSeconds = requestSeconds
        self.idleExitSeconds = idleExitSeconds
        self.memoryMiB = memoryMiB
        self.cpuSeconds = cpuSeconds
    }
}
