import Benchmark
#if canImport(Glibc)
import Glibc
#endif
import Seer

/// Reading plates from committed fixtures (TestImages/plates, made by its generate.py) through the
/// `Engine`'s plate reader: locator, glyph classifiers and Tesseract, decoding included (from the
/// file's bytes, read once in setup). One
/// plate from each region and a photo with no plate (a poster of text).

/// The repository's root, from this file's path (Benchmarks/Benchmarks/PlateReading/PlateReading.swift).
let root = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/"))

// Benchmark names have no spaces: ordo-one/benchmark 1.38.1 writes a threshold file under the name with
// spaces turned to underscores but looks it up under the name as it is.

struct WrongReading: Error, CustomStringConvertible {
    var description: String
}

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

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: thresholdedMetrics,
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 15,
        thresholds: allocationTolerance
    )

    // (benchmark name, photo, region, the plate it must read; nil: no plate)
    let cases: [(String, String, PlateRegion?, String?)] = [
        ("plate-eu-perspective", "TestImages/plates/uk.png", .eu, "LN68XKT"),
        ("plate-us-tilted-blurred", "TestImages/plates/us-ca.png", .us, "7ABC123"),
        ("plate-br-mercosul", "TestImages/plates/br-mercosul.png", .br, "RIO2A18"),
        ("no-plate-all-regions", "TestImages/plates/nonplates/poster.png", nil, nil),
    ]
    for (name, file, region, expected) in cases {
        Benchmark(name) { (benchmark, state: (Engine, [UInt8])) in
            let (engine, bytes) = state
            for _ in benchmark.scaledIterations {
                let plates = try engine.readPlates(bytes, region: region)
                guard plates.first?.text == expected else {
                    throw WrongReading(description: "\(file): read \(plates.map(\.text)), expected \(expected ?? "no plate")")
                }
                blackHole(plates)
            }
        } setup: {
            let engine = Engine()
            _ = try engine.plateReader()  // starts Tesseract outside the measurement
            return (engine, try ImageDecoder.readFile("\(root)/\(file)"))
        }
    }
}
