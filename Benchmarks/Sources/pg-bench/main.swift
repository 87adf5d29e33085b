// The store's benchmark helper (Benchmarks/pg/run.sh and Benchmarks/verify/run.sh drive it). DB is a
// PostgreSQL URL (postgres://user@host:port/database) or a SQLite file's path:
//   pg-bench codes --count N --out DIR      registry.json and N signed codes, in all.txt and split in part-0.txt, part-1.txt
//   pg-bench fill --db DB --scans N         a synthetic history of N scans (SyntheticHistory, as the Store suite's)
//   pg-bench search --db DB [--repeats R]   history search latency over what is there; one JSON object
import Foundation
import Seer
import SeerCodegen
import SeerPostgres
import SyntheticHistory

func option(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pg-bench: \(message)\n".utf8))
    exit(64)
}

/// The store at `location`: PostgreSQL for a URL, else a SQLite file.
func openStore(_ location: String) throws -> any SeerStore {
    PostgresLocation.isURL(location) ? try PostgresStore(url: location) : try SQLiteStore(path: location)
}

func json<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("codes | fill | search") }

switch command {
case "codes":
    let count = Int(option("--count", arguments) ?? "") ?? 10_000
    guard let out = option("--out", arguments) else { fail("codes --count N --out DIR") }
    let (registry, payloads) = try VerifyDemo.benchmark(count: count)
    try JSONEncoder().encode(registry).write(to: URL(fileURLWithPath: out + "/registry.json"))
    let half = payloads.count / 2
    for (part, slice) in [payloads[..<half], payloads[half...]].enumerated() {
        try (slice.joined(separator: "\n") + "\n").write(toFile: out + "/part-\(part).txt", atomically: true, encoding: .utf8)
    }
    try (payloads.joined(separator: "\n") + "\n").write(toFile: out + "/all.txt", atomically: true, encoding: .utf8)

case "fill":
    guard let db = option("--db", arguments) else { fail("fill --db DB --scans N") }
    let scans = Int(option("--scans", arguments) ?? "") ?? 1_000_000
    let store = try openStore(db)
    let start = now()
    try SyntheticHistory(count: scans, firstSerial: 100_000, now: Date().timeIntervalSince1970).record(into: store)
    FileHandle.standardError.write(Data(String(format: "filled %d scans in %.1f s\n", scans, now() - start).utf8))

case "search":
    guard let db = option("--db", arguments) else { fail("search --db DB") }
    let repeats = Int(option("--repeats", arguments) ?? "") ?? 41
    let store = try openStore(db)
    struct Figure: Codable {
        var hits: Int
        var medianMilliseconds: Double
        var p95Milliseconds: Double
        var maxMilliseconds: Double
    }
    struct Report: Codable {
        var scans: Int
        var searches: [String: Figure]
        var medianOfMediansMilliseconds: Double
        var suggestMillisecondsMedian: Double
        var statisticsMillisecondsMedian: Double
    }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
    let queries: [(String, HistoryQuery)] =
        ["radiance", "brake pad", "S1234", "device-17", "counterf", "shelf-99", "oil fil", "zzzz", "s1"].map {
            ($0, HistoryQuery(search: $0, limit: 50))
        } + [
            ("radiance +category autoparts (no hits)", HistoryQuery(category: "autoparts", search: "radiance", limit: 50)),
            ("radiance +result failed", HistoryQuery(result: .failed, search: "radiance", limit: 50)),
            ("radiance +period day", HistoryQuery(period: .day, search: "radiance", limit: 50)),
            ("(no search) +result failed", HistoryQuery(result: .failed, limit: 50)),
        ]
    var searches: [String: Figure] = [:]
    for (text, query) in queries {
        var times: [Double] = []
        var hits = 0
        _ = try store.history(query)
        for _ in 0..<repeats {
            let start = now()
            hits = try store.history(query).scans.count
            times.append((now() - start) * 1000)
        }
        let sorted = times.sorted()
        searches[text] = Figure(
            hits: hits, medianMilliseconds: median(times), p95Milliseconds: sorted[Int(Double(sorted.count - 1) * 0.95)],
            maxMilliseconds: sorted.last ?? 0)
    }
    var suggest: [Double] = []
    for prefix in ["ra", "bra", "s12", "dev", "sh"] {
        for _ in 0..<5 {
            let start = now()
            _ = try store.suggestions(prefix: prefix, limit: 10)
            suggest.append((now() - start) * 1000)
        }
    }
    var statistics: [Double] = []
    var total = 0
    for _ in 0..<3 {
        let start = now()
        total = try store.statistics(HistoryQuery()).total
        statistics.append((now() - start) * 1000)
    }
    try json(
        Report(
            scans: total, searches: searches, medianOfMediansMilliseconds: median(searches.values.map(\.medianMilliseconds)),
            suggestMillisecondsMedian: median(suggest), statisticsMillisecondsMedian: median(statistics)))

default:
    fail("unknown command \(command): codes | fill | search")
}
