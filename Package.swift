// swift-tools-version: 6.1
import PackageDescription

/// Warnings are errors in CI (`SEER_STRICT=1`), plain warnings at a desk.
let strict = Context.environment["SEER_STRICT"] == "1"
let swiftSettings: [SwiftSetting] = strict ? [.unsafeFlags(["-warnings-as-errors"])] : []

let package = Package(
    name: "Seer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Seer", targets: ["Seer"]),
        .library(name: "SeerImage", targets: ["SeerImage"]),
        .library(name: "SeerVerify", targets: ["SeerVerify"]),
        .library(name: "SeerStore", targets: ["SeerStore"]),
        .library(name: "SeerCodegen", targets: ["SeerCodegen"]),
        .library(name: "SeerQR", targets: ["SeerQR"]),
        .executable(name: "seer", targets: ["seer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config. Each owns only the headers.
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        // Headers only: these two are loaded on first use by CSeerLoader, not linked (see its stubs).
        .systemLibrary(name: "CZBar"),
        .systemLibrary(name: "CTesseract"),
        .target(
            name: "CSeerLoader",
            dependencies: ["CZBar", "CTesseract"],
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // What must be C: libjpeg reports errors by longjmp, which Swift cannot catch.
        .target(
            name: "CSeerShims",
            dependencies: ["CJPEG"],
            cSettings: [.unsafeFlags(["-O2"])]),

        .target(
            name: "SeerImage",
            dependencies: ["CPNG", "CSeerShims", "CSeerLoader"],
            swiftSettings: swiftSettings),
        // Verification: payload parsing, signatures, verdicts, plate owners, charger actions. No pixels.
        .target(
            name: "SeerVerify",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        // The embedded store: one SQLite file through GRDB.
        .target(
            name: "SeerStore",
            dependencies: ["SeerVerify", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        // QR Code encoder for demo and test codes.
        .target(
            name: "SeerCodegen",
            dependencies: ["SeerImage"],
            swiftSettings: swiftSettings),
        .target(
            name: "SeerPlate",
            dependencies: ["SeerImage", "CTesseract", "CSeerLoader"],
            resources: [.embedInCode("Resources/grammars.txt")],
            swiftSettings: swiftSettings),
        .target(
            name: "SeerQR",
            dependencies: ["SeerImage", "CZBar", "CSeerLoader"],
            swiftSettings: swiftSettings),
        .target(
            name: "Seer",
            dependencies: ["SeerImage", "SeerQR", "SeerVerify", "SeerStore", "SeerCodegen", "SeerPlate", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "seer",
            dependencies: [
                "Seer", "SeerImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            // `seer` is a command often run once per photo: a fixed-address release binary skips
            // relocating itself at start-up. Build with --static-swift-stdlib (scripts do) for the rest.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-no-pie"], .when(configuration: .release))]),

        .testTarget(
            name: "SeerImageTests",
            dependencies: ["SeerImage"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerPlateTests",
            dependencies: ["SeerPlate", "SeerImage"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "plate-bench",
            dependencies: ["Seer"],
            path: "Benchmarks/plates",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerVerifyTests",
            dependencies: ["SeerVerify", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerStoreTests",
            dependencies: ["SeerStore", "SeerVerify", "Seer"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCodegenTests",
            dependencies: ["SeerCodegen", "SeerImage"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerQRTests",
            dependencies: ["SeerQR", "Seer"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCLITests",
            dependencies: ["seer", "SeerImage", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings),
    ]
)
