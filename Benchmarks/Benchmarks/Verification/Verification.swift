import Benchmark
import Seer
import SeerCodegen

/// Verification without a database: the pure `Verifier` over an `InMemoryRegistry`, as a service that
/// embeds the registry would run it. Payload parsing, signature checks (Ed25519, ES256), registry and
/// serial look-ups, markets and clone signals; no pixels, no store.

// Benchmark names have no spaces: ordo-one/benchmark 1.38.1 writes a threshold file under the name with
// spaces turned to underscores but looks it up under the name as it is.

struct WrongVerdict: Error, CustomStringConvertible {
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

/// One fixed moment, so that expiry and history windows see the same time in every run.
let context = ScanContext(time: 1_800_000_000, device: "bench", country: "DE")

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: thresholdedMetrics,
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 20,
        thresholds: allocationTolerance
    )

    // 300 distinct signed codes (a third each GS1 Digital Link, element string and JWS), all authentic.
    Benchmark("signed-codes-300") { (benchmark, state: (InMemoryRegistry, [String])) in
        let (registry, payloads) = state
        let verifier = Verifier()
        for _ in benchmark.scaledIterations {
            for payload in payloads {
                let verification = try verifier.verify(payload, context: context, registry: registry, history: registry)
                guard verification.verdict == .authentic else {
                    throw WrongVerdict(description: "\(payload): \(verification.verdict), expected authentic")
                }
                blackHole(verification)
            }
        }
    } setup: {
        let (file, payloads) = try VerifyDemo.benchmark(count: 300)
        return (InMemoryRegistry([file]), payloads)
    }

    // The demo's product codes: authentic, tampered, revoked and forged keys, recalled, unknown, …
    // each with the verdict the demo expects (the second copy of a cloned code is a duplicate in the batch, as in the demo).
    Benchmark("demo-codes-every-verdict") { (benchmark, state: (InMemoryRegistry, [VerifyDemo.Code])) in
        let (registry, codes) = state
        let verifier = Verifier()
        for _ in benchmark.scaledIterations {
            var seen = DuplicateTracker()
            for code in codes {
                let duplicate = seen.check(code.payload)
                let verification = try verifier.verify(
                    code.payload, context: context, registry: registry, history: registry, duplicate: duplicate)
                guard verification.verdict.rawValue == code.expected else {
                    throw WrongVerdict(description: "\(code.file): \(verification.verdict), expected \(code.expected)")
                }
                blackHole(verification)
            }
        }
    } setup: {
        let files = try VerifyDemo.registryFiles().map(\.file)
        return (InMemoryRegistry(files), try VerifyDemo.codes().filter { $0.kind == "product" })
    }
}
