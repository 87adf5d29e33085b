// swift-tools-version: 6.1
// libFuzzer targets over Seer's public API and its `@_spi(Fuzzing)` entry points. Built only by
// scripts/fuzz, with -sanitize=fuzzer,address (libFuzzer supplies `main`; each target defines
// LLVMFuzzerTestOneInput).
import PackageDescription

let package = Package(
    name: "SeerFuzz",
    dependencies: [.package(name: "Seer", path: "..")],
    targets: [
        // libFuzzer's driver, which every target's entry point runs.
        .target(name: "FuzzDriver"),
        .executableTarget(name: "fuzz-image", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-codes", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-payload", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-plate-grammar", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-registry", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        // Built with the Seer package's SPI for fuzzing (`@_spi(Fuzzing)`): the symbol decoders without an
        // image, and the plate models' weight-file loaders.
        .executableTarget(name: "fuzz-symbols", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
        .executableTarget(name: "fuzz-plate-model", dependencies: ["FuzzDriver", .product(name: "Seer", package: "Seer")]),
    ]
)
