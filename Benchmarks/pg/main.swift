// The PostgreSQL store's benchmark helper (Benchmarks/pg/run.sh drives it):
//   pg-bench codes --count N --out DIR      registry.json and N signed codes, split in part-0.txt, part-1.txt
//   pg-bench fill --db URL --scans N        a synthetic history of N scans (the distribution `seer registry bench` uses)
//   pg-bench search --db URL [--repeats R]  history search latency over what is there; one JSON object
import Foundation
import Seer
import SeerCodegen
import SeerPostgres

func option(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pg-bench: \(message)\n".utf8))
    exit(64)
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
    guard let url = option("--db", arguments) else { fail("fill --db URL --scans N") }
    let scans = Int(option("--scans", arguments) ?? "") ?? 1_000_000
    let store = try PostgresStore(url: url)
    let products = [
        ("Radiance Serum 30 ml", "acme", "cosmetics"), ("Night Cream 50 ml", "acme", "cosmetics"),
        ("Ceramic Brake Pads", "globex", "autoparts"), ("Plain Soap", "plainco", "household"),
        ("Oil Filter", "globex", "autoparts"), ("Sun Lotion", "acme", "cosmetics"),
    ]
    let verdicts: [(Verdict, [Reason])] = [
        (.authentic, [.validSignature, .registeredSerial]), (.counterfeit, [.badSignature]),
        (.suspicious, [.cloneSuspected, .tooManyScans]), (.unknown, [.unknownProduct, .unsigned]),
    ]
    let base = Date().timeIntervalSince1970 - 90 * 86_400
    let start = now()
    var batch: [ScanRecord] = []
    batch.reserveCapacity(10_000)
    for index in 0..<scans {
        let product = products[index % products.count]
        let (verdict, reasons) = verdicts[(index / 7) % verdicts.count]
        let serial = "S\(100_000 + index)"
        let verification = Verification(
            verdict: verdict, reasons: reasons, payload: "https://id.example.com/01/09506000134352/21/\(serial)?17=281231",
            format: .digitalLink, gtin: "09506000134352", serial: serial, lot: "L\(index % 50)", expiry: "281231",
            product: ProductInfo(name: product.0, brand: product.1, category: product.2))
        let context = ScanContext(
            time: base + Double(index) * (90 * 86_400 / Double(max(1, scans))), device: "device-\(index % 200)",
            country: ["DE", "FR", "NL", "US"][index % 4])
        batch.append(ScanRecord(verification, context: context, mode: .batch, sourceFile: "shelf-\(index % 1000).jpg", symbology: "qrcode"))
        if batch.count == 10_000 {
            try store.record(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
    try store.record(batch)
    FileHandle.standardError.write(Data(String(format: "filled %d scans in %.1f s\n", scans, now() - start).utf8))

case "search":
    guard let url = option("--db", arguments) else { fail("search --db URL") }
    let repeats = Int(option("--repeats", arguments) ?? "") ?? 41
    let store = try PostgresStore(url: url)
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
