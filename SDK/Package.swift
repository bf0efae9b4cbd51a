// swift-tools-version: 6.0
// The WidgetHost Swift SDK: write a WidgetHost extension in Swift with WidgetKit's shapes
// (TimelineProvider, TimelineEntry, Timeline, a view builder). Depend on it by path:
//   .package(path: "…/SDK"), then .product(name: "WidgetHostSDK", package: "SDK")
// No unsafe flags, nothing outside the toolchain. `ExtensionProtocol` is the protocol's
// vocabulary, compiled into the host too (the root package builds these sources by path, and
// tests the SDK there: Tests/SwiftSDKTests, against the host's own view decoder).
import PackageDescription

let package = Package(
    name: "SDK",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WidgetHostSDK", targets: ["WidgetHostSDK"]),
    ],
    targets: [
        .target(name: "ExtensionProtocol"),
        .target(name: "WidgetHostSDK", dependencies: ["ExtensionProtocol"]),
    ]
)
