import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Seer
import SeerQR
import Synchronization

/// What a bench run reads and how.
public struct BenchOptions: Sendable {
    /// Codes or plates.
    public enum Read: String, Sendable, Codable, CaseIterable {
        case codes, plates
    }

    /// What is read.
    public var read: Read = .codes
    /// The plate region; nil takes each folder's name when it is a region (`us`, `eu`, `br`), else all.
    public var region: PlateRegion??
    /// Symbologies; nil reads every symbology when every folder is named after a 1-D family
    /// (`ean13-*`, `falsepositives-*`, …), QR alone otherwise.
    public var symbologies: Set<Symbology>?
    /// The code reader's effort.
    public var preset: CodeReader.Preset = .balanced
    /// The code reader's time budget per photo in milliseconds; nil takes the preset's. (A budget far
    /// above any photo's need makes readings independent of the machine's load.)
    public var budgetMilliseconds: Int?
    /// Runs per photo; the fastest is kept (readings come from the first).
    public var repeatCount = 1
    /// Photos read in parallel.
    public var jobs = 1

    /// The defaults.
    public init() {}

    /// The symbologies read for these items.
    public func symbologies(for items: [BenchItem]) -> Set<Symbology> {
        if let symbologies { return symbologies }
        let oneD = !items.isEmpty && items.allSatisfy { item in
            item.format == .text && TextScoring.family(ofSet: TruthLoader.lastComponent(item.category)) != .other
        }
        return oneD ? Set(Symbology.allCases) : [.qr]
    }

    /// The plate region for a folder.
    public func region(forCategory category: String) -> PlateRegion? {
        if let region { return region }
        return PlateRegion(rawValue: TruthLoader.lastComponent(category).lowercased())
    }
}

/// How one reader did on one photo.
public struct PhotoResult: Sendable, Codable, Equatable {
    /// The photo.
    public var file: String
    /// Its folder.
    public var category: String
    /// `seer` or the peer's name.
    public var reader: String
    /// The score.
    public var score: PhotoScore
    /// What was read: code texts or plate texts (top first); `(binary)` for a code without text.
    public var readings: [String]
    /// The truth, for people: the expected text(s), or the number of codes for corner truth.
    public var expected: String
    /// Wall-clock milliseconds for the photo (the fastest of the repeats): file reading, decoding and
    /// recognition for Seer; the whole process for command-line peers.
    public var milliseconds: Double?
    /// Of ``milliseconds``, reading and decoding the file (Seer; zxing-cpp: Pillow's load).
    public var decodeMilliseconds: Double?
    /// Processor time of the thread that read the photo, milliseconds (Seer).
    public var cpuMilliseconds: Double?
    /// Displayed size.
    public var width: Int?
    /// Displayed size.
    public var height: Int?
    /// Why the photo could not be read, when it could not.
    public var error: String?
    /// For a plate photo: read exactly, or which failure class it falls in (Seer only).
    public var plateOutcome: PlateOutcome?

    /// Creates a result; timings and size are set afterwards.
    public init(file: String, category: String, reader: String, score: PhotoScore, readings: [String], expected: String) {
        self.file = file
        self.category = category
        self.reader = reader
        self.score = score
        self.readings = readings
        self.expected = expected
    }

    /// Recognition alone: ``milliseconds`` less ``decodeMilliseconds``.
    public var recognitionMilliseconds: Double? {
        guard let m = milliseconds, let d = decodeMilliseconds else { return nil }
        return max(0, m - d)
    }
}

/// The photos of one pass of one reader.
public struct ReaderRun: Sendable, Codable {
    /// `seer` or the peer's name.
    public var reader: String
    /// What it is (version, how it was run and timed).
    public var about: String
    /// Per photo, in input order.
    public var photos: [PhotoResult]
    /// Wall-clock seconds of the pass.
    public var seconds: Double
    /// Jobs the pass ran on.
    public var jobs: Int
    /// Peak resident memory, MiB (Seer: this process; peers: the largest child process so far).
    public var peakMemoryMiB: Double?
}

/// Runs Seer's engine over bench items.
public final class BenchRunner: Sendable {
    /// The options.
    public let options: BenchOptions
    /// The engine used (made from the options).
    public let engine: Engine
    /// The symbologies read.
    public let symbologies: Set<Symbology>

    /// Creates a runner for `items` with `configuration` as the starting point of the engine's.
    public init(options: BenchOptions, items: [BenchItem], configuration: Engine.Configuration = Engine.Configuration()) {
        self.options = options
        let symbologies = options.symbologies(for: items)
        self.symbologies = symbologies
        var configuration = configuration
        configuration.codes = CodeReader.Options(symbologies: symbologies, preset: options.preset, timeBudgetMilliseconds: options.budgetMilliseconds)
        self.engine = Engine(configuration: configuration)
    }

    /// What Seer is, for reports.
    public var about: String {
        options.read == .codes
            ? "Seer \(seerVersion) in process: \(symbologies.map(\.rawValue).sorted().joined(separator: ",")), preset \(options.preset.rawValue)"
            : "Seer \(seerVersion) in process: plates"
    }

    /// Starts what the readers need (libzbar, Tesseract) before timing.
    public func prepare() throws {
        if options.read == .plates { _ = try engine.plateReader() }
    }

    /// Reads one photo once (with the colour image when asked, for annotation).
    public func scan(_ item: BenchItem, includeImage: Bool = false) throws -> PhotoScan {
        try scan(item, includeImage: includeImage, everyPlate: false)
    }

    /// `everyPlate`: plates under the confidence floor too (``plateFloor`` then tells them apart).
    func scan(_ item: BenchItem, includeImage: Bool = false, everyPlate: Bool) throws -> PhotoScan {
        try engine.scanPhoto(
            contentsOf: item.path, reading: options.read == .codes ? .codes : .plates,
            region: options.region(forCategory: item.category), includeImage: includeImage,
            minimumPlateConfidence: everyPlate ? 0 : nil)
    }

    /// The confidence under which plates are not reported.
    var plateFloor: Double { engine.configuration.plates.minimumConfidence }

    /// The readings of a scan as scoring takes them: corners in the stored grid.
    public static func readings(of report: ScanReport) -> [BenchReading] {
        let wd = Double(report.width), hd = Double(report.height)
        return report.symbols.map { s in
            BenchReading(
                format: s.format, text: s.text,
                corners: s.corners.filter { $0.count == 2 }.map {
                    BoofCVScoring.toStored($0[0], $0[1], orientation: report.orientation, width: wd, height: hd)
                })
        }
    }

    /// Scores a scan of `item`.
    public func score(_ item: BenchItem, _ report: ScanReport) -> PhotoScore {
        switch options.read {
        case .codes: Scoring.score(item.truth, category: item.category, codes: Self.readings(of: report))
        case .plates: Scoring.score(item.truth, plates: (report.plates ?? []).map(\.text))
        }
    }

    /// Reads every item on ``BenchOptions/jobs`` threads (`jobs` overrides), `repeatCount` times each.
    public func run(_ items: [BenchItem], jobs: Int? = nil, progress: @escaping @Sendable (Int) -> Void = { _ in }) -> ReaderRun {
        let jobs = jobs ?? options.jobs
        let repeatCount = max(1, options.repeatCount)
        let start = ContinuousClock.now
        let photos = ParallelMap.run(items, jobs: jobs, progress: progress) { item -> PhotoResult in
            var result = PhotoResult(
                file: item.path, category: item.category, reader: "seer", score: PhotoScore(), readings: [],
                expected: Self.describe(item.truth))
            do {
                for attempt in 0..<repeatCount {
                    var report = try self.scan(item, everyPlate: true).report
                    if attempt == 0, case .plate(let truth) = item.truth {
                        result.plateOutcome = PlateOutcome.classify(
                            truth: truth, box: item.plateBox, readings: report.plates ?? [], minimumConfidence: self.plateFloor)
                    }
                    report.plates = report.plates?.filter { $0.confidence >= self.plateFloor }
                    if attempt == 0 {
                        result.score = self.score(item, report)
                        result.readings = self.options.read == .codes
                            ? report.symbols.map { $0.text ?? "(binary)" } : (report.plates ?? []).map(\.text)
                        result.width = report.width
                        result.height = report.height
                    }
                    if let ms = report.milliseconds, ms < (result.milliseconds ?? .infinity) {
                        result.milliseconds = ms
                        result.decodeMilliseconds = report.decodeMilliseconds
                        result.cpuMilliseconds = report.cpuMilliseconds
                    }
                }
            } catch {
                result.error = "\(error)"
                result.score = Self.unread(item.truth)
            }
            return result
        }
        let seconds = Self.seconds(since: start)
        return ReaderRun(reader: "seer", about: about, photos: photos, seconds: seconds, jobs: jobs, peakMemoryMiB: Memory.peakSelfMiB())
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// The score of a photo nothing could be read from.
    static func unread(_ truth: Truth) -> PhotoScore {
        switch truth {
        case .plate: return PlateScoring.score(truth: { if case .plate(let p) = truth { p } else { "" } }(), predicted: "")
        default: return Scoring.score(truth, category: "", codes: [])
        }
    }

    /// The truth for people.
    public static func describe(_ truth: Truth) -> String {
        switch truth {
        case .text(.text(let s)): s
        case .text(.bytes(let b)): "(\(b.count) bytes)"
        case .nothing: "(nothing)"
        case .quads(let q): q.count == 1 ? "1 code" : "\(q.count) codes"
        case .plate(let p): p
        case .texts(let t): t.isEmpty ? "(nothing)" : t.joined(separator: " | ")
        }
    }
}

/// Peak resident memory.
public enum Memory {
    /// This process's peak resident set, MiB.
    public static func peakSelfMiB() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    /// The largest peak resident set of the child processes waited for so far, MiB.
    public static func peakChildrenMiB() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

/// Maps items on `jobs` threads, results in input order.
public enum ParallelMap {
    /// Runs `work` over `items` on `jobs` threads; `progress` gets the count done after each item.
    /// Each thread gets its own `state` (made by `makeState`) passed to `work`.
    public static func run<Item: Sendable, Result: Sendable, State>(
        _ items: [Item], jobs: Int, progress: @escaping @Sendable (Int) -> Void = { _ in },
        makeState: @escaping @Sendable () -> State, work: @escaping @Sendable (inout State, Item) -> Result
    ) -> [Result] {
        let count = items.count
        guard count > 0 else { return [] }
        let results = Mutex<[Result?]>(Array(repeating: nil, count: count))
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        let worker: @Sendable () -> Void = {
            var state = makeState()
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                if index >= count { return }
                let result = work(&state, items[index])
                results.withLock { $0[index] = result }
                progress(done.add(1, ordering: .relaxed).newValue)
            }
        }
        let workers = min(max(1, jobs), count)
        if workers == 1 {
            worker()
        } else {
            let group = DispatchGroup()
            for _ in 0..<workers { DispatchQueue.global().async(group: group, execute: worker) }
            group.wait()
        }
        return results.withLock { $0.map { $0! } }
    }

    /// Runs `work` over `items` on `jobs` threads, results in input order.
    public static func run<Item: Sendable, Result: Sendable>(
        _ items: [Item], jobs: Int, progress: @escaping @Sendable (Int) -> Void = { _ in }, work: @escaping @Sendable (Item) -> Result
    ) -> [Result] {
        run(items, jobs: jobs, progress: progress, makeState: { () }, work: { (_: inout Void, item: Item) in work(item) })
    }
}
