import Benchmark
import Foundation
import Seer
import SeerCodegen
import SyntheticHistory

/// The SQLite store (a temporary database file, real SQLite through GRDB): a batch of signed codes
/// verified and saved, as `seer verify --batch` and the phone app's batch mode do, and searches of a
/// saved history, as `seer history --search` runs them.

// Benchmark names have no spaces: ordo-one/benchmark 1.38.1 writes a threshold file under the name with
// spaces turned to underscores but looks it up under the name as it is.

struct WrongResult: Error, CustomStringConvertible {
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

/// One fixed moment for the scans and the searches' periods, so every run stores and finds the same rows.
let now = 1_800_000_000.0

func temporaryDatabase(_ name: String) -> String {
    "\(NSTemporaryDirectory())/seer-benchmark-\(name)-\(getpid()).sqlite"
}

func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: thresholdedMetrics,
        warmupIterations: 1,
        maxDuration: .seconds(4),
        maxIterations: 15,
        thresholds: allocationTolerance
    )

    // Each iteration opens a new database and imports the registry (not measured), then verifies and
    // saves 200 distinct signed codes in one batch (measured): parsing, signatures, registry and history
    // look-ups, and the inserts, in one transaction.
    Benchmark("verify-save-200-codes") { (benchmark, state: (Engine, Data, [ScanInput])) in
        let (engine, registry, inputs) = state
        for _ in benchmark.scaledIterations {
            let path = temporaryDatabase("batch")
            removeDatabase(path)
            defer { removeDatabase(path) }
            let store = try SQLiteStore(path: path)
            _ = try store.importRegistry([("bench.json", registry)])
            benchmark.startMeasurement()
            let results = try engine.verify(inputs, context: ScanContext(time: now, device: "bench"), mode: .batch, store: store, save: true)
            benchmark.stopMeasurement()
            guard results.count == inputs.count, results.allSatisfy({ $0.verdict == .authentic && $0.scanID != nil }) else {
                throw WrongResult(description: "the batch did not verify and save every code as authentic")
            }
        }
    } setup: {
        let (registry, payloads) = try VerifyDemo.benchmark(count: 200)
        let inputs = payloads.map { ScanInput(payload: $0, sourceFile: nil, symbology: "qrcode") }
        return (Engine(), try JSONEncoder().encode(registry), inputs)
    }

    // A history of 5 000 saved scans (made once, not measured); each iteration runs six searches:
    // words, a serial prefix, a device, filters, and a search with no hit.
    let historyPath = temporaryDatabase("history")
    Benchmark("history-search-5000-scans") { (benchmark, store: SQLiteStore) in
        let queries: [(HistoryQuery, Int)] = [
            (HistoryQuery(search: "radiance", limit: 50, now: now), 50),
            (HistoryQuery(search: "brake pad", limit: 50, now: now), 50),
            (HistoryQuery(search: "S1012", limit: 50, now: now), 10),
            (HistoryQuery(search: "device-17", limit: 50, now: now), 50),
            (HistoryQuery(result: .failed, category: "autoparts", search: "oil", limit: 50, now: now), 50),
            (HistoryQuery(category: "autoparts", search: "radiance", limit: 50, now: now), 0),
        ]
        for _ in benchmark.scaledIterations {
            for (query, hits) in queries {
                let page = try store.history(query)
                guard page.scans.count == hits else {
                    throw WrongResult(description: "search \(query.search ?? ""): \(page.scans.count) scans, expected \(hits)")
                }
                blackHole(page)
            }
        }
    } setup: {
        removeDatabase(historyPath)
        let store = try SQLiteStore(path: historyPath)
        try SyntheticHistory(count: 5_000, firstSerial: 10_000, now: now).record(into: store)
        return store
    } teardown: {
        removeDatabase(historyPath)
    }
}
