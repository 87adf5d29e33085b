import Benchmark
#if canImport(Glibc)
import Glibc
#endif
import Seer

/// Photos to decode: a 12-megapixel JPEG as a phone writes it and a large PNG, made by
/// `Benchmarks/make-photos.sh` into `SEER_BENCH_DIR` (default /tmp/seer-bench). Their benchmarks
/// run when the photos are there and are measured only (`scripts/benchmarks` skips them).
let folder: String = {
    if let dir = getenv("SEER_BENCH_DIR") { return String(cString: dir) }
    return "/tmp/seer-bench"
}()

func load(_ name: String) -> [UInt8]? {
    try? ImageDecoder.readFile("\(folder)/\(name)")
}

/// The repository's root, from this file's path (Benchmarks/Benchmarks/ImageDecoding/ImageDecoding.swift).
let root = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/"))

/// Allocations (malloc calls and bytes requested per iteration) get thresholds committed in Thresholds/,
/// checked with a 1 % tolerance: with SWIFT_DETERMINISTIC_HASHING=1 (scripts/benchmarks sets it) they
/// repeat exactly from run to run. Time is measured and printed, never checked: the machines are shared.
var allocationTolerance: [BenchmarkMetric: BenchmarkThresholds] {
    [.mallocCountTotal: .init(relative: [.p90: 1.0]), .mallocBytesCount: .init(relative: [.p90: 1.0])]
}

/// Wall-clock time (shown only) and the two allocation metrics. No CPU time or resident memory: the
/// harness reads /proc for those, in the measured span or from a sampling thread, and its own
/// allocations would then count with Seer's.
let thresholdedMetrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .mallocBytesCount]

// Benchmark names have no spaces: ordo-one/benchmark 1.38.1 writes a threshold file under the name with
// spaces turned to underscores but looks it up under the name as it is.

struct WrongImage: Error, CustomStringConvertible {
    var description: String
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 2,
        maxDuration: .seconds(5),
        maxIterations: 60
    )

    // Committed fixtures (TestImages/, made by its generate.py), one of each format, always present:
    // these carry allocation thresholds. Grey and RGB, from the file's bytes (read once in setup).
    let fixtures: [(String, String, Int, Int)] = [
        ("png-640x420-grey", "TestImages/plates/uk.png", 640, 420),
        ("jpeg-48x32-exif-orientation-6", "TestImages/orientation/jpeg-6.jpg", 48, 32),
        ("heic-grid-180x100", "TestImages/heic/grid.heic", 180, 100),
        ("webp-lossy-64x48", "TestImages/webp/lossy.webp", 64, 48),
    ]
    for (name, file, width, height) in fixtures {
        Benchmark(
            name,
            configuration: .init(
                metrics: thresholdedMetrics,
                warmupIterations: 2,
                maxDuration: .seconds(2),
                maxIterations: 200,
                thresholds: allocationTolerance
            )
        ) { (benchmark, bytes: [UInt8]) in
            for _ in benchmark.scaledIterations {
                let image = try ImageDecoder.decode(bytes, options: DecodeOptions(includeRGB: true))
                guard image.gray.width == width, image.gray.height == height else {
                    throw WrongImage(description: "\(file): \(image.gray.width)x\(image.gray.height), expected \(width)x\(height)")
                }
                blackHole(image)
            }
        } setup: {
            try ImageDecoder.readFile("\(root)/\(file)")
        }
    }

    guard let jpeg = load("photo-12mp.jpg"), let png = load("photo-12mp.png") else {
        print("No benchmark photos in \(folder): run Benchmarks/make-photos.sh first.")
        return
    }

    for scale in [1, 2, 4, 8] {
        Benchmark("JPEG 12 MP to grey, scale 1/\(scale)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(scale: scale)))
            }
        }
    }

    Benchmark("JPEG 12 MP to grey and RGB") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(includeRGB: true)))
        }
    }

    Benchmark("JPEG 12 MP to grey, fast IDCT") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(jpeg, options: DecodeOptions(fastDCT: true)))
        }
    }

    Benchmark("PNG 12 MP RGB to grey") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ImageDecoder.decode(png))
        }
    }

    let gray = try! ImageDecoder.decode(jpeg).gray
    Benchmark("Area downscale 12 MP by 4") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(gray.downscaled(by: 4)) }
    }
    Benchmark("Rotate 12 MP grey 90°") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(gray.rotatedClockwise()) }
    }
}
