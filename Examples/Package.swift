// swift-tools-version: 6.2
import PackageDescription

// A package that uses Seer the way any service would: by URL and version tag.
//
// SEER_URL says where Seer's repository is (default below); CI points it at a temporary clone of
// this repository tagged with the current version (scripts/examples).
let seerURL = Context.environment["SEER_URL"] ?? "https://github.com/seer-engine/seer.git"

let package = Package(
    name: "SeerExamples",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: seerURL, from: "0.1.0")
    ],
    targets: [
        .executableTarget(
            name: "verify-photo",
            dependencies: [.product(name: "Seer", package: "seer")])
    ]
)
