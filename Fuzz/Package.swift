// swift-tools-version: 6.1
// libFuzzer targets over Seer's public API. Built only by scripts/fuzz, with
// -sanitize=fuzzer,address (libFuzzer supplies `main`; each target defines LLVMFuzzerTestOneInput).
import PackageDescription

let package = Package(
    name: "SeerFuzz",
    dependencies: [.package(name: "Seer", path: "..")],
    targets: [
        .executableTarget(name: "fuzz-image", dependencies: [.product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-codes", dependencies: [.product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-payload", dependencies: [.product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-plate-grammar", dependencies: [.product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-registry", dependencies: [.product(name: "Seer", package: "Seer")]),
    ]
)
