// swift-tools-version: 6.1
// Seer's benchmarks: a package of their own, so building and testing Seer never builds the harness.
// Run from this folder: swift package --disable-sandbox benchmark; scripts/benchmarks checks the
// allocation thresholds in Thresholds/ (README.md, "Allocation thresholds").
import PackageDescription

/// One benchmark suite: an executable target under Benchmarks/NAME, run by ordo-one/benchmark's plugin.
func suite(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark")]
            + products.map { .product(name: $0, package: "Seer") },
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
        suite("Store", ["Seer", "SeerCodegen"]),
    ]
)
