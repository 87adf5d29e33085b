import Benchmark
import Seer

/// Reading codes from committed fixtures (TestImages/, made by the repository's generators) through the
/// `Engine`: a QR code in a textured photo, an EAN-13 barcode, and a photo with no code, where the
/// reader runs every pass it has. Decoding is included (from the file's bytes, read once in setup).
///
/// The code reader stops at a processor-time budget (120 ms by default at `balanced`); here the budget
/// is a minute, so that what is read, and what is allocated, never depends on the machine's load.

/// The repository's root, from this file's path (Benchmarks/Benchmarks/CodeReading/CodeReading.swift).
let root = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/"))

// Benchmark names have no spaces: ordo-one/benchmark 1.38.1 writes a threshold file under the name with
// spaces turned to underscores but looks it up under the name as it is.

struct WrongReading: Error, CustomStringConvertible {
    var description: String
}

/// An engine reading `symbologies` at the balanced preset, without a time budget that could cut it short.
func engine(_ symbologies: Set<Symbology>) -> Engine {
    var configuration = Engine.Configuration()
    configuration.codes = CodeReader.Options(symbologies: symbologies, preset: .balanced, timeBudgetMilliseconds: 60_000)
    return Engine(configuration: configuration)
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
        maxIterations: 20,
        thresholds: allocationTolerance
    )

    // (benchmark name, photo, symbologies, the texts it must read)
    let cases: [(String, String, Set<Symbology>, [String])] = [
        ("qr-textured-photo", "TestImages/qr/generated/scene-textured.png", [.qr], ["SCENE 3141"]),
        ("ean13-all-symbologies", "TestImages/qr/generated/linear-ean13.png", Set(Symbology.allCases), ["4006381333931"]),
        ("no-code-all-symbologies", "TestImages/plates/nonplates/poster.png", Set(Symbology.allCases), []),
    ]
    for (name, file, symbologies, expected) in cases {
        Benchmark(name) { (benchmark, state: (Engine, [UInt8])) in
            let (reader, bytes) = state
            for _ in benchmark.scaledIterations {
                let scan = try reader.scanCodes(bytes, file: file)
                let texts = scan.symbols.map { $0.text ?? "" }
                guard texts == expected else {
                    throw WrongReading(description: "\(file): read \(texts), expected \(expected)")
                }
                blackHole(scan)
            }
        } setup: {
            (engine(symbologies), try ImageDecoder.readFile("\(root)/\(file)"))
        }
    }
}
