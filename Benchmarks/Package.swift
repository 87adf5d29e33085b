// swift-tools-version: 6.1
// Seer's benchmarks: a package of their own, so building and testing Seer never builds the harness.
// Run from this folder: swift package benchmark   (see README.md here)
import PackageDescription

let package = Package(
    name: "SeerBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Seer", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ImageDecoding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SeerImage", package: "Seer"),
            ],
            path: "Benchmarks/ImageDecoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
