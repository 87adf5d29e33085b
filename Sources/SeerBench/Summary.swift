import Foundation
import Seer

/// Totals of one reader over a group of photos.
public struct Totals: Sendable, Codable, Equatable {
    /// Photos.
    public var photos = 0
    /// Codes or plates expected.
    public var expected = 0
    /// Read right.
    public var correct = 0
    /// Read as something else.
    public var wrong = 0
    /// Not read.
    public var missed = 0
    /// Readings of nothing expected.
    public var falseReadings = 0
    /// Photos with a false reading.
    public var falsePhotos = 0
    /// Second readings of a code (corner truth).
    public var duplicates = 0
    /// Readings without a position (corner truth).
    public var unlocated = 0
    /// Plates within one edit.
    public var withinOne = 0
    /// Photos that could not be read.
    public var errors = 0
    /// `correct` as a percentage of `expected`, one decimal.
    public var correctPercent: Double { expected == 0 ? 0 : (1000 * Double(correct) / Double(expected)).rounded() / 10 }
    /// Per-photo wall-clock milliseconds.
    public var latency: Distribution?
    /// Per-photo milliseconds reading and decoding the file.
    public var decode: Distribution?
    /// Per-photo milliseconds of recognition.
    public var recognition: Distribution?
    /// Median processor milliseconds per photo.
    public var cpuMedian: Double?
    /// Whether the reader gave positions: false when every reading lacked one, so corner truth cannot
    /// score it (`boofcv_scoring.py` reports such a peer as n/a).
    public var located: Bool { unlocated == 0 || correct + falseReadings + duplicates > 0 }

    /// Adds up photo results.
    public init(_ photos: [PhotoResult]) {
        self.photos = photos.count
        for p in photos {
            let s = p.score
            expected += s.expected
            correct += s.correct
            wrong += s.wrong
            missed += s.missed
            falseReadings += s.falseReadings
            falsePhotos += s.outcome == .falseReading ? 1 : 0
            duplicates += s.duplicates
            unlocated += s.unlocated
            withinOne += s.withinOne
            errors += p.error == nil ? 0 : 1
        }
        latency = Distribution(photos.compactMap(\.milliseconds))
        decode = Distribution(photos.compactMap(\.decodeMilliseconds))
        recognition = Distribution(photos.compactMap(\.recognitionMilliseconds))
        cpuMedian = Distribution(photos.compactMap(\.cpuMilliseconds))?.median
    }

    enum CodingKeys: String, CodingKey {
        case photos, expected, correct, wrong, missed, falseReadings, falsePhotos, duplicates, unlocated, withinOne, errors
        case correctPercent, located, latency, decode, recognition, cpuMedian
    }

    /// The counts, in the order they are written, each with its key.
    static var counts: [(CodingKeys, WritableKeyPath<Totals, Int>)] {
        [
            (.photos, \.photos), (.expected, \.expected), (.correct, \.correct), (.wrong, \.wrong), (.missed, \.missed),
            (.falseReadings, \.falseReadings), (.falsePhotos, \.falsePhotos), (.duplicates, \.duplicates),
            (.unlocated, \.unlocated), (.withinOne, \.withinOne), (.errors, \.errors),
        ]
    }

    /// The distributions, in the order they are written, each with its key.
    static var distributions: [(CodingKeys, WritableKeyPath<Totals, Distribution?>)] {
        [(.latency, \.latency), (.decode, \.decode), (.recognition, \.recognition)]
    }

    /// Writes the counts, then `correctPercent` and `located` (worked out from the counts, so
    /// never decoded), then the distributions and `cpuMedian` that are present.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        for (key, path) in Self.counts { try c.encode(self[keyPath: path], forKey: key) }
        try c.encode(correctPercent, forKey: .correctPercent)
        try c.encode(located, forKey: .located)
        for (key, path) in Self.distributions { try c.encodeIfPresent(self[keyPath: path], forKey: key) }
        try c.encodeIfPresent(cpuMedian, forKey: .cpuMedian)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        for (key, path) in Self.counts { self[keyPath: path] = try c.decode(Int.self, forKey: key) }
        for (key, path) in Self.distributions { self[keyPath: path] = try c.decodeIfPresent(Distribution.self, forKey: key) }
        cpuMedian = try c.decodeIfPresent(Double.self, forKey: .cpuMedian)
    }
}

/// Minimum, median, 95th percentile (nearest rank, as the shared tools take it) and maximum.
public struct Distribution: Sendable, Codable, Equatable {
    public var min: Double
    public var median: Double
    public var p95: Double
    public var max: Double

    /// The distribution of `values`, nil for none.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let v = values.sorted()
        func r(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        min = r(v[0])
        max = r(v[v.count - 1])
        median = r(v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2)
        p95 = r(Self.percentile(v, 95))
    }

    /// Nearest-rank percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        let k = Swift.max(1, Int((q / 100 * Double(sorted.count)).rounded(.up)))
        return sorted[Swift.min(k, sorted.count) - 1]
    }
}

/// One reader's run, summed up per folder and overall.
public struct ReaderSummary: Sendable, Codable {
    /// `seer` or the peer's name.
    public var reader: String
    /// What it is and how it was timed.
    public var about: String
    /// Every photo.
    public var all: Totals
    /// Per folder, in the order first met.
    public var categories: [CategorySummary]
    /// Photos per second over the pass.
    public var photosPerSecond: Double
    /// Jobs the pass ran on.
    public var jobs: Int
    /// Wall-clock seconds of the pass.
    public var seconds: Double
    /// Peak resident memory, MiB.
    public var peakMemoryMiB: Double?

    /// Totals of one folder.
    public struct CategorySummary: Sendable, Codable {
        /// The folder.
        public var category: String
        /// Its totals.
        public var totals: Totals
    }

    /// Sums up a run.
    public init(_ run: ReaderRun, repeatCount: Int) {
        reader = run.reader
        about = run.about
        all = Totals(run.photos)
        var order: [String] = []
        var groups: [String: [PhotoResult]] = [:]
        for p in run.photos {
            if groups[p.category] == nil { order.append(p.category) }
            groups[p.category, default: []].append(p)
        }
        categories = order.map { CategorySummary(category: $0, totals: Totals(groups[$0]!)) }
        jobs = run.jobs
        seconds = (run.seconds * 1000).rounded() / 1000
        photosPerSecond = run.seconds > 0 ? (Double(run.photos.count * max(1, repeatCount)) / run.seconds * 100).rounded() / 100 : 0
        peakMemoryMiB = run.peakMemoryMiB.map { ($0 * 10).rounded() / 10 }
    }
}

/// Throughput of Seer at one number of jobs.
public struct ThroughputPoint: Sendable, Codable {
    /// Jobs.
    public var jobs: Int
    /// Photos per second.
    public var photosPerSecond: Double
}

/// Everything a bench run found: what `--format json` prints.
public struct BenchReport: Sendable, Codable {
    /// The folders and files given.
    public var paths: [String]
    /// `codes` or `plates`.
    public var read: String
    /// Truth formats met, per folder.
    public var truth: [String: String]
    /// Runs per photo.
    public var repeatCount: Int
    /// Seer first, then the peers.
    public var readers: [ReaderSummary]
    /// Peers asked for or looked for that were not run, and why.
    public var notes: [String]
    /// Seer's throughput at each number of jobs measured.
    public var throughput: [ThroughputPoint]
    /// Photos without ground truth, left out.
    public var skipped: [String]
    /// Every photo of every reader (JSON and CSV output, the HTML report).
    public var photos: [PhotoResult]

    enum CodingKeys: String, CodingKey {
        case paths, read, truth, repeatCount = "repeat", readers, notes, throughput, skipped, photos
    }
}

/// Plain-text tables.
public enum TextTables {
    static func ms(_ x: Double?) -> String {
        guard let x else { return "-" }
        return x < 100 ? String(format: "%.1f", x) : String(format: "%.0f", x)
    }

    static func pad(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        guard let first = rows.first else { return "" }
        var widths = Array(repeating: 0, count: first.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        return rows.map { r in
            r.enumerated().map { i, c in
                let fill = String(repeating: " ", count: max(0, widths[i] - c.count))
                return rightAligned.contains(i) ? fill + c : c + fill
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    /// The report as text: accuracy per folder side by side, speed, memory, notes.
    public static func render(_ report: BenchReport) -> String {
        var out: [String] = []
        let readers = report.readers
        guard let seer = readers.first else { return "nothing measured\n" }
        let plates = report.read == "plates"
        let corners = report.truth.values.contains("boofcv")
        out.append("seer bench: \(seer.all.photos) photos, \(report.read), truth \(Set(report.truth.values).sorted().joined(separator: "+")), repeat \(report.repeatCount)")
        for r in readers { out.append("  \(r.reader): \(r.about)") }
        out.append("")
        // Accuracy per folder, every reader side by side.
        var head = ["folder", "photos", plates ? "plates" : "codes"]
        for r in readers { head += ["\(r.reader) %", "ok", "wrong", "missed", "false"] }
        var rows = [head]
        let categories = seer.categories.map(\.category)
        func line(_ name: String, _ pick: (ReaderSummary) -> Totals?) {
            guard let t0 = pick(seer) else { return }
            var row = [name, "\(t0.photos)", "\(t0.expected)"]
            for r in readers {
                if pick(r) != nil, !r.all.located {
                    row += ["n/a", "-", "-", "-", "-"]
                } else if let t = pick(r) {
                    row += [String(format: "%.1f", t.correctPercent), "\(t.correct)", "\(t.wrong)", "\(t.missed)", "\(t.falseReadings)"]
                } else {
                    row += ["-", "-", "-", "-", "-"]
                }
            }
            rows.append(row)
        }
        for c in categories { line(c) { r in r.categories.first { $0.category == c }?.totals } }
        line("ALL") { $0.all }
        out.append("Accuracy (\(plates ? "exact plate text of the top plate" : corners ? "codes located and decoded" : "correct text")):")
        out.append(pad(rows, rightAligned: Set(1..<head.count)))
        out.append("")
        if plates {
            out.append("Plates within one edit: " + readers.map { "\($0.reader) \($0.all.withinOne)/\($0.all.expected)" }.joined(separator: ", "))
            out.append(contentsOf: plateOutcomes(report, categories: categories))
        }
        if corners {
            out.append("Duplicates / readings without position: " + readers.map { "\($0.reader) \($0.all.duplicates)/\($0.all.unlocated)" }.joined(separator: ", "))
        }
        // Speed.
        var speed = [["reader", "min ms", "median", "p95", "max", "decode med", "recog med", "cpu med", "photos/s", "jobs", "peak MiB", "× seer time"]]
        let seerMedian = seer.all.latency?.median
        for r in readers {
            let l = r.all.latency
            let ratio = (l?.median).flatMap { m in seerMedian.map { $0 > 0 ? String(format: "%.2f", m / $0) : "-" } } ?? "-"
            speed.append([
                r.reader, ms(l?.min), ms(l?.median), ms(l?.p95), ms(l?.max), ms(r.all.decode?.median), ms(r.all.recognition?.median),
                ms(r.all.cpuMedian), String(format: "%.2f", r.photosPerSecond), "\(r.jobs)", r.peakMemoryMiB.map { String(format: "%.0f", $0) } ?? "-",
                ratio,
            ])
        }
        out.append("Speed per photo (wall clock, ms; Seer: file reading + decoding = decode, the rest = recog):")
        out.append(pad(speed, rightAligned: Set(1..<speed[0].count)))
        if report.throughput.count > 1 {
            out.append("")
            out.append("Seer throughput: " + report.throughput.map { "\($0.jobs) jobs \(String(format: "%.2f", $0.photosPerSecond)) photos/s" }.joined(separator: ", "))
        }
        if !report.notes.isEmpty {
            out.append("")
            for n in report.notes { out.append("note: \(n)") }
        }
        if !report.skipped.isEmpty {
            out.append("note: \(report.skipped.count) photo(s) without ground truth left out")
        }
        return out.joined(separator: "\n") + "\n"
    }
}

extension TextTables {
    /// Seer's plate photos by outcome (``PlateOutcome``: exact, or the first failure class that
    /// applies) per folder, with the recognition time per photo (median) and per plate read (the
    /// folder's recognition time over the plates it reported).
    static func plateOutcomes(_ report: BenchReport, categories: [String]) -> [String] {
        let photos = report.photos.filter { $0.reader == "seer" && $0.plateOutcome != nil }
        guard !photos.isEmpty else { return [] }
        let classes = PlateOutcome.allCases
        var rows = [["folder", "photos"] + classes.map(\.rawValue) + ["recog med ms", "ms per plate"]]
        func row(_ name: String, _ group: [PhotoResult]) {
            guard !group.isEmpty else { return }
            let recognition = group.compactMap(\.recognitionMilliseconds)
            let read = group.map(\.readings.count).reduce(0, +)
            let perPlate = read == 0 ? nil : recognition.reduce(0, +) / Double(read)
            rows.append(
                [name, "\(group.count)"] + classes.map { c in "\(group.filter { $0.plateOutcome == c }.count)" }
                    + [ms(Distribution(recognition)?.median), ms(perPlate)])
        }
        for c in categories { row(c, photos.filter { $0.category == c }) }
        row("ALL", photos)
        return ["", "Seer's plate photos by outcome (the first class that applies; docs/plates.md):", pad(rows, rightAligned: Set(1..<rows[0].count)), ""]
    }
}

/// One CSV row per photo and reader.
public enum CSVOutput {
    static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    /// The CSV text.
    public static func render(_ report: BenchReport) -> String {
        let header = [
            "reader", "category", "file", "outcome", "expected_count", "correct", "wrong", "missed", "false", "duplicates", "unlocated",
            "within1", "rule", "expected", "read", "ms", "decode_ms", "recognition_ms", "cpu_ms", "width", "height", "error",
        ]
        func n(_ x: Double?) -> String { x.map { String(format: "%.3f", $0) } ?? "" }
        var lines = [header.joined(separator: ",")]
        for p in report.photos {
            let s = p.score
            lines.append(
                [
                    p.reader, p.category, p.file, s.outcome.rawValue, "\(s.expected)", "\(s.correct)", "\(s.wrong)", "\(s.missed)",
                    "\(s.falseReadings)", "\(s.duplicates)", "\(s.unlocated)", "\(s.withinOne)", s.rule ?? "", p.expected,
                    p.readings.joined(separator: " | "), n(p.milliseconds), n(p.decodeMilliseconds), n(p.recognitionMilliseconds),
                    n(p.cpuMilliseconds), p.width.map(String.init) ?? "", p.height.map(String.init) ?? "", p.error ?? "",
                ].map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
