// swift-tools-version: 6.0
// daylight: a WidgetHost extension written with the Swift SDK (SDK/ of this repository).
// Build it with `swift build` in this folder; extension.json runs .build/debug/daylight.
import PackageDescription

let package = Package(
    name: "daylight",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../../../SDK")],
    targets: [
        .executableTarget(name: "daylight", dependencies: [.product(name: "WidgetHostSDK", package: "SDK")]),
    ]
)
