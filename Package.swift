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
        .library(name: "SeerQR", targets: ["SeerQR"]),
        .executable(name: "seer", targets: ["seer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config. Each owns only the headers.
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(
            name: "CZBar", pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]),
        // What must be C: libjpeg reports errors by longjmp, which Swift cannot catch.
        .target(
            name: "CSeerShims",
            dependencies: ["CJPEG"],
            cSettings: [.unsafeFlags(["-O2"])]),

        .target(
            name: "SeerImage",
            dependencies: ["CPNG", "CSeerShims"],
            swiftSettings: swiftSettings),
        .target(
            name: "SeerQR",
            dependencies: ["SeerImage", "CZBar"],
            swiftSettings: swiftSettings),
        .target(
            name: "Seer",
            dependencies: ["SeerImage", "SeerQR"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "seer",
            dependencies: [
                "Seer", "SeerImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        .testTarget(
            name: "SeerImageTests",
            dependencies: ["SeerImage"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerQRTests",
            dependencies: ["SeerQR", "Seer"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCLITests",
            dependencies: ["SeerImage"],
            swiftSettings: swiftSettings),
    ]
)
