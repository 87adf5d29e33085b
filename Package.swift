// swift-tools-version: 6.2
import PackageDescription

// No target of any product uses unsafe flags, so any package can depend on Seer by URL.

/// Warnings are errors in CI (`SEER_STRICT=1`), plain warnings at a desk. (A package that depends on
/// Seer never sees this: warning settings of dependencies do not apply to their users' builds.)
let strict = Context.environment["SEER_STRICT"] == "1"
let swiftSettings: [SwiftSetting] = strict ? [.treatAllWarnings(as: .error)] : []
let cSettings: [CSetting] = strict ? [.treatAllWarnings(as: .error)] : []

let package = Package(
    name: "Seer",
    platforms: [.macOS(.v14)],
    products: [
        // The engine: decoding, codes, plates, verification and the SQLite store (`import Seer`).
        .library(name: "Seer", targets: ["Seer"]),
        // The same store on a shared PostgreSQL database: only a package that imports it builds postgres-nio.
        .library(name: "SeerPostgres", targets: ["SeerPostgres"]),
        // The HTTP service, for a process that serves the engine itself.
        .library(name: "SeerServer", targets: ["SeerServer"]),
        // Demo registries and codes, and the QR Code encoder that draws them (tests, demos).
        .library(name: "SeerCodegen", targets: ["SeerCodegen"]),
        .executable(name: "seer", targets: ["seer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    // Bottom-up: the C libraries, the C shims, then each module after every module it uses (the
    // products' modules before the executable), then test support and the tests.
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
            name: "CDmtx", pkgConfig: "libdmtx",
            providers: [.apt(["libdmtx-dev"])]),
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "CDe265", pkgConfig: "libde265",
            providers: [.apt(["libde265-dev"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        // OpenSSL 3's libcrypto: the signatures and hashes (SeerCrypto).
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        // What must be C: libjpeg reports errors by longjmp, which Swift cannot catch; libheif
        // takes its HEVC decoder as a table of C functions.
        .target(
            name: "CSeerShims",
            dependencies: ["CJPEG", "CHeif", "CDe265"],
            cSettings: cSettings),
        // The key and signature glue over libcrypto's EVP and OSSL_PARAM API, which C macros and
        // variadic calls make awkward from Swift.
        .target(
            name: "CSeerCrypto",
            dependencies: ["COpenSSL"],
            cSettings: cSettings),

        // Ed25519, ES256 (P-256 ECDSA with SHA-256) and SHA-256: exactly what the engine signs,
        // verifies and hashes with, in the byte formats its keys and codes use.
        .target(
            name: "SeerCrypto",
            dependencies: ["COpenSSL", "CSeerCrypto"],
            swiftSettings: swiftSettings),

        // Decoding (PNG, JPEG, HEIC, WebP), EXIF, image operations, PNG/PNM writing.
        .target(
            name: "SeerImage",
            dependencies: ["CPNG", "CSeerShims", "CHeif", "CWebP"],
            swiftSettings: swiftSettings),
        // Plate text shared by reading and verification: regions, countries, the canonical form,
        // typed-plate validation and the one confusion table. No dependencies.
        .target(
            name: "SeerPlateText",
            swiftSettings: swiftSettings),
        // Reading codes: zbar and libdmtx beside Seer's own locators and decoders.
        .target(
            name: "SeerQR",
            dependencies: ["SeerImage", "CZBar", "CDmtx", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        // Reading plates: locator, readers, grammars.
        .target(
            name: "SeerPlate",
            dependencies: [
                "SeerImage", "SeerPlateText", "CTesseract", .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Resources/grammars.txt"),
                // The glyph classifiers' weights (scripts/plate-glyphs/train.py writes them).
                .embedInCode("Resources/glyph-mask.sgc"),
                .embedInCode("Resources/glyph-grey.sgc"),
                // The sequence recogniser's weights (scripts/plate-ocr/train.py writes them).
                .embedInCode("Resources/plate-ctc.spr"),
            ],
            swiftSettings: swiftSettings),
        // Verification: payload parsing, signatures, verdicts, plate owners, charger actions. No pixels.
        .target(
            name: "SeerVerify",
            dependencies: ["SeerPlateText", "SeerCrypto"],
            swiftSettings: swiftSettings),
        // The store, written once over SQL: one SQLite file through GRDB (embedded).
        .target(
            name: "SeerStore",
            dependencies: [
                "SeerVerify", "SeerCrypto", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The same store on a shared PostgreSQL database, through postgres-nio (and its TLS stack):
        // only what links it builds it.
        .target(
            name: "SeerPostgres",
            dependencies: ["SeerStore", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        // The engine (`import Seer`): Exports.swift says what it re-exports.
        .target(
            name: "Seer",
            dependencies: [
                "SeerImage", "SeerQR", "SeerVerify", "SeerStore", "SeerPlate", "SeerPlateText", "SeerCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The QR Code encoder, and the demo registry and codes drawn with it (`seer registry demo`,
        // `seer serve --demo`, tests).
        .target(
            name: "SeerCodegen",
            dependencies: ["SeerImage", "SeerQR", "SeerVerify", "SeerPlateText", "SeerCrypto"],
            swiftSettings: swiftSettings),
        // The HTTP service (`seer serve`): a thin skin over the Engine, on Hummingbird 2.
        .target(
            name: "SeerServer",
            dependencies: [
                "Seer", "SeerCodegen", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"), "SeerCrypto",
            ],
            resources: [
                .embedInCode("openapi.json"),
                // The web app under /app/ (WebApp.swift serves it): plain files, no build step.
                .embedInCode("WebApp/index.html"), .embedInCode("WebApp/app.css"), .embedInCode("WebApp/icon.svg"),
                .embedInCode("WebApp/app.js"), .embedInCode("WebApp/api.js"), .embedInCode("WebApp/camera.js"),
                .embedInCode("WebApp/charger.js"), .embedInCode("WebApp/dom.js"), .embedInCode("WebApp/history.js"),
                .embedInCode("WebApp/plates.js"), .embedInCode("WebApp/scan.js"), .embedInCode("WebApp/settings.js"),
                .embedInCode("WebApp/words.js"),
            ],
            swiftSettings: swiftSettings),

        // `seer bench`: ground truth, the shared tools' scoring rules, peers, reports.
        .target(
            name: "SeerBench",
            dependencies: ["Seer", "SeerImage", "SeerQR"],
            swiftSettings: swiftSettings),
        // The command line.
        .executableTarget(
            name: "seer",
            dependencies: [
                "Seer", "SeerPostgres", "SeerImage", "SeerBench", "SeerCodegen", "CSeerShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "SeerServer",
            ],
            swiftSettings: swiftSettings),

        // Test helpers shared by the test targets: running the built `seer`, temporary folders.
        .target(
            name: "SeerTestSupport",
            path: "Tests/SeerTestSupport",
            swiftSettings: swiftSettings),

        .testTarget(
            name: "SeerImageTests",
            dependencies: ["SeerImage"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerQRTests",
            dependencies: ["SeerQR", "Seer", "SeerCodegen", "SeerTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerPlateTests",
            dependencies: ["SeerPlate", "SeerImage", "SeerTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerVerifyTests",
            dependencies: ["SeerVerify", "SeerPlateText"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCryptoTests",
            dependencies: ["SeerCrypto"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerStoreTests",
            dependencies: [
                "SeerStore", "SeerPostgres", "SeerVerify", "Seer", "SeerCodegen", "SeerTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCodegenTests",
            dependencies: ["SeerCodegen", "SeerImage"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerServerTests",
            dependencies: [
                "SeerServer", "Seer", "SeerCodegen", "SeerTestSupport", "seer", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerBenchTests",
            dependencies: ["seer", "SeerBench", "Seer", "SeerCodegen", "SeerImage", "SeerQR", "SeerTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SeerCLITests",
            dependencies: [
                "seer", "Seer", "SeerImage", "SeerTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Golden"],
            swiftSettings: swiftSettings),
    ]
)
