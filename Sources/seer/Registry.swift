import ArgumentParser
import Foundation
import Seer
import SeerCodegen

struct Registry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry",
        abstract: "Import registry files; write the demo codes, or any text as a QR Code.",
        subcommands: [RegistryImport.self, RegistryDemo.self, RegistryQR.self, RegistryDataMatrix.self, RegistryBench.self])
}

struct RegistryImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import brands and keys, products, serials, users and chargers from JSON files, all or nothing.",
        discussion: """
            Each file is an object with any of the arrays "brands", "products", "serials", "users", "chargers" \
            (see Examples/registry/). Records may refer to records in other files of the same import.
            Import is strict: an unknown key anywhere, a value of the wrong type, a record that appears twice \
            (same brand id, key id, GTIN, GTIN and serial, user id or charger id) or a bad value (a plate that \
            cannot be one, a country that is no ISO 3166 code, …) refuses the whole import. The error names \
            the file, the record and the field, and nothing is imported.
            JSON: {"files","brands","keys","products","serials","users","chargers"}; refused: \
            {"file","error":{"code":"importRefused","message"}}.
            Exit codes: 0 imported, 1 refused, 64 usage error.
            """)

    @Argument(help: "Registry JSON files, directories (every .json file below them, recursively), or - for standard input.")
    var files: [String]

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one registry file.") }
    }

    func run() throws {
        let format = output.format
        var contents: [(name: String, data: Data)] = []
        for file in Inputs.expand(files, keeping: { $0.lowercased().hasSuffix(".json") }) {
            if file == "-" {
                do {
                    contents.append(("-", Data(try StandardInput.shared.bytes())))
                } catch {
                    Failures.exit(FileFailure(file: "-", code: "unreadable", message: "cannot read standard input"), file: "-", format: format)
                }
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                Failures.exit(FileFailure(file: file, code: "unreadable", message: "cannot read the file"), file: file, format: format)
            }
            contents.append((file, data))
        }
        let engine = EngineFactory.make(db: store.db)
        let database = engine.storeOrExit(format: format)
        do {
            let summary = try database.importRegistry(contents)
            switch format {
            case .json: Console.jsonLine(summary)
            case .text:
                Console.out(
                    "imported \(summary.brands) brands, \(summary.keys) keys, \(summary.products) products, "
                        + "\(summary.serials) serials, \(summary.users) users, \(summary.chargers) chargers from \(summary.files) files into \(storeName(store.db))")
            }
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }
}

struct RegistryDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write the demo product and charger codes as PNG QR Codes, with codes.json listing what each should get.",
        discussion: """
            The codes are signed with demo keys derived from public strings, matching the registry in \
            Examples/registry/ (written again with --registry-dir). Demo keys are for the demo only.
            """)

    @Argument(help: "Directory for the PNG files.")
    var directory: String

    @Option(name: .long, help: "Also write the demo registry JSON files into this directory.")
    var registryDir: String?

    @Option(name: .long, help: "Pixels per QR module.")
    var moduleSize: Int = 6

    func validate() throws {
        if !(1...40).contains(moduleSize) { throw ValidationError("--module-size runs from 1 to 40.") }
    }

    func run() throws {
        let codes = try VerifyDemo.write(to: directory, moduleSize: moduleSize)
        for code in codes { Console.out("\(directory)/\(code.file)\t\(code.expected)\t\(code.note)") }
        if let registryDir {
            for path in try VerifyDemo.writeRegistry(to: registryDir) { Console.err("seer: wrote \(path)") }
        }
    }
}

/// Measures batch verify+save and history search (decoding excluded), in a temporary database.
struct RegistryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure batch verify+save and history search.", shouldDisplay: false)

    @Option(name: .long, help: "Codes in the verify batch.")
    var codes: Int = 1000

    @Option(name: .long, help: "Scans in the history for the search measurement.")
    var scans: Int = 100_000

    @Option(name: .long, help: "Repetitions.")
    var repeats: Int = 5

    @Option(name: .long, help: "Directory for the temporary databases.")
    var workdir: String = NSTemporaryDirectory()

    struct Report: Codable {
        var codes: Int
        var verifyRunsSeconds: [Double]
        var verifyCodesPerSecondMedian: Double
        var scans: Int
        var fillSeconds: Double
        var searches: [String: SearchFigure]
        var suggestMillisecondsMedian: Double
        var statisticsMillisecondsMedian: Double
    }

    struct SearchFigure: Codable {
        var hits: Int
        var medianMilliseconds: Double
        var p95Milliseconds: Double
        var maxMilliseconds: Double
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    func run() throws {
        let engine = Engine()
        let (registry, payloads) = try VerifyDemo.benchmark(count: codes)
        let registryData = try JSONEncoder().encode(registry)
        var runs: [Double] = []
        for run in 0..<repeats {
            let path = workdir + "/seer-bench-verify-\(getpid())-\(run).sqlite"
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let store = try SQLiteStore(path: path)
            _ = try store.importRegistry([("bench.json", registryData)])
            let inputs = payloads.map { ScanInput(payload: $0, sourceFile: nil, symbology: "qrcode") }
            let start = Self.now()
            let results = try engine.verify(inputs, context: ScanContext(device: "bench"), mode: .batch, store: store, save: true)
            runs.append(Self.now() - start)
            guard results.allSatisfy({ $0.verdict == .authentic }) else {
                throw ValidationError("benchmark codes did not all verify authentic")
            }
        }

        // History: `scans` rows with varied fields.
        let path = workdir + "/seer-bench-history-\(getpid()).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
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
        let fillStart = Self.now()
        var batch: [ScanRecord] = []
        batch.reserveCapacity(10_000)
        for index in 0..<scans {
            let product = products[index % products.count]
            let (verdict, reasons) = verdicts[(index / 7) % verdicts.count]
            let serial = "S\(100_000 + index)"
            let verification = Verification(
                verdict: verdict, reasons: reasons,
                payload: "https://id.example.com/01/09506000134352/21/\(serial)?17=281231", format: .digitalLink,
                gtin: "09506000134352", serial: serial, lot: "L\(index % 50)", expiry: "281231",
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
        let fillSeconds = Self.now() - fillStart

        var searches: [String: SearchFigure] = [:]
        let queries: [(String, HistoryQuery)] = [
            "radiance", "brake pad", "S1234", "device-17", "counterf", "shelf-99", "oil fil", "zzzz", "s1",
        ].map { ($0, HistoryQuery(search: $0, limit: 50)) } + [
            ("radiance +category autoparts (no hits)", HistoryQuery(category: "autoparts", search: "radiance", limit: 50)),
            ("radiance +result failed", HistoryQuery(result: .failed, search: "radiance", limit: 50)),
            ("radiance +period day", HistoryQuery(period: .day, search: "radiance", limit: 50)),
            ("(no search) +result failed", HistoryQuery(result: .failed, limit: 50)),
        ]
        for (text, query) in queries {
            var times: [Double] = []
            var hits = 0
            for _ in 0..<max(20, repeats * 4) {
                let start = Self.now()
                hits = try store.history(query).scans.count
                times.append((Self.now() - start) * 1000)
            }
            let sorted = times.sorted()
            searches[text] = SearchFigure(
                hits: hits, medianMilliseconds: Self.median(times), p95Milliseconds: sorted[Int(Double(sorted.count - 1) * 0.95)],
                maxMilliseconds: sorted.last ?? 0)
        }
        var suggest: [Double] = []
        for prefix in ["ra", "bra", "s12", "dev", "sh"] {
            for _ in 0..<10 {
                let start = Self.now()
                _ = try store.suggestions(prefix: prefix, limit: 10)
                suggest.append((Self.now() - start) * 1000)
            }
        }
        var statistics: [Double] = []
        for _ in 0..<max(5, repeats) {
            let start = Self.now()
            _ = try store.statistics(HistoryQuery())
            statistics.append((Self.now() - start) * 1000)
        }
        let report = Report(
            codes: codes, verifyRunsSeconds: runs, verifyCodesPerSecondMedian: Double(codes) / Self.median(runs), scans: scans,
            fillSeconds: fillSeconds, searches: searches, suggestMillisecondsMedian: Self.median(suggest),
            statisticsMillisecondsMedian: Self.median(statistics))
        Console.jsonLine(report)
    }
}
