// swift-tools-version: 6.2
// Seer's benchmarks: a package of their own, so building and testing Seer never builds the harness.
// Run from this folder: swift package --disable-sandbox benchmark; scripts/benchmarks checks the
// allocation thresholds in Thresholds/ (docs/performance.md, "Allocation thresholds"). The measuring tools
// beside the suites are plain executables: swift build -c release --package-path Benchmarks --product NAME.
import PackageDescription

/// Warnings are errors in CI (`SEER_STRICT=1`), as in Seer's own manifest.
let strict = Context.environment["SEER_STRICT"] == "1"
let swiftSettings: [SwiftSetting] = strict ? [.treatAllWarnings(as: .error)] : []

/// One benchmark suite: an executable target under Benchmarks/NAME, run by ordo-one/benchmark's plugin,
/// over Seer's `products` and this package's `targets`.
func suite(_ name: String, _ products: [String], targets: [String] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark")]
            + products.map { .product(name: $0, package: "Seer") } + targets.map { .target(name: $0) },
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "SeerBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so that the targets below find it whatever the checkout's folder is called.
        .package(name: "Seer", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        suite("ImageDecoding", ["Seer"]),
        suite("CodeReading", ["Seer"]),
        suite("PlateReading", ["Seer"]),
        suite("Verification", ["Seer", "SeerCodegen"]),
        suite("Store", ["Seer", "SeerCodegen"], targets: ["SyntheticHistory"]),

        // The measuring tools live in Sources/: the plugin runs every executable target whose folder is
        // in a folder named Benchmarks as a suite.
        // The synthetic scan history the store benchmarks fill (the Store suite, pg-bench).
        .target(name: "SyntheticHistory", dependencies: [.product(name: "Seer", package: "Seer")], swiftSettings: swiftSettings),
        // Accuracy and timing of plate reading over the plate photos (docs/plates.md).
        .executableTarget(name: "plate-bench", dependencies: [.product(name: "Seer", package: "Seer")], swiftSettings: swiftSettings),
        // The store's benchmark helper, on PostgreSQL or SQLite (pg/run.sh, verify/run.sh).
        .executableTarget(
            name: "pg-bench",
            dependencies: [
                .product(name: "Seer", package: "Seer"), .product(name: "SeerPostgres", package: "Seer"),
                .product(name: "SeerCodegen", package: "Seer"), "SyntheticHistory",
            ],
            swiftSettings: swiftSettings),
        // Memory and file descriptors over a long run of concurrent scans (RELIABILITY.md).
        .executableTarget(name: "soak-bench", dependencies: [.product(name: "Seer", package: "Seer")], swiftSettings: swiftSettings),
    ]
)
