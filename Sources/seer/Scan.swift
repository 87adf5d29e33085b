import ArgumentParser
import Foundation
import Seer
import SeerQR
import Synchronization

extension CodeReader.Preset: ExpressibleByArgument {}

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read QR codes, barcodes and licence plates from photos.",
        discussion: """
            PATH is an image file (PNG, JPEG, HEIC or WebP, recognised by content), a directory (every photo \
            below it, recursively: files whose first bytes are an image signature or whose name has an image \
            extension; hidden entries skipped) or - for standard input.
            --read codes (the default), plates, or codes,plates: both are read from one decode of each photo.
            JSON: one object per photo per line: {"file","width","height","orientation","symbols":[{"format",\
            "text","bytes","charset","corners","box","quality","gs1"}]}, plus "plates":[{"text","confidence",\
            "region","grammar","corners","box","characters","candidates"}] when plates are read ("symbols" is \
            then empty unless codes are read too); or {"file","error":{"code","message"}}.
            Exit codes: 0 something (a code or a plate) was read, 2 nothing was read in any photo, 1 an input \
            failed, 64 usage error.
            """)

    @Option(name: .long, help: "What to read: codes (default), plates, or codes,plates.")
    var read: String = "codes"

    @OptionGroup var regionOption: RegionOption
    @OptionGroup var output: FormatOption

    @Option(
        name: .long,
        help: "Plates below this confidence (0–1: the chance the reading is exactly right) are not reported (default \(PlateReader.Options.defaultMinimumConfidence)).")
    var minConfidence: Double?

    @Option(
        name: .long,
        help: "Comma-separated symbologies: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")), or all (default).")
    var symbologies: String = "all"

    @Option(name: .long, help: "Effort: fast, balanced (default) or thorough.")
    var preset: CodeReader.Preset = .balanced

    @Option(name: .long, help: "Time budget per photo in milliseconds (default by preset).")
    var budget: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Passes to run instead of the preset's (for measuring): comma-separated PASS[:always|unexplained|nothingRead], e.g. locator/reduced/local,zbar/full/plain:nothingRead.",
            visibility: .hidden))
    var passes: String?

    @Option(name: .long, help: "Write each photo as PNG with the codes and plates outlined and labelled into this directory.")
    var annotate: String?

    @OptionGroup var jobs: JobsOption

    @Flag(name: .long, help: "Report milliseconds per photo (decoding included): a `milliseconds` key in JSON, stderr in text.")
    var timing = false

    @Option(name: .long, help: "Refuse images with more pixels than this.")
    var pixelLimit: Int = 100_000_000

    @Argument(help: "Image files, directories, or - for standard input.")
    var paths: [String]

    func parsedSymbologies() throws -> Set<Symbology> { try Self.parseSymbologies(symbologies) }

    /// A comma-separated list of symbology names (or `all`), as `--symbologies` takes it.
    static func parseSymbologies(_ symbologies: String) throws -> Set<Symbology> {
        var out: Set<Symbology> = []
        for name in symbologies.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            if name == "all" {
                out.formUnion(Symbology.allCases)
            } else if let s = Symbology(rawValue: name) {
                out.insert(s)
            } else {
                throw ValidationError("Unknown symbology '\(name)'. Known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")), all.")
            }
        }
        if out.isEmpty { throw ValidationError("--symbologies needs at least one name.") }
        return out
    }

    func parsedTargets() throws -> ScanTargets {
        guard let targets = ScanTargets(parsing: read) else {
            throw ValidationError("--read takes \(ScanTargets.vocabulary); it is '\(read)'.")
        }
        return targets
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one image file, directory or -.") }
        if let budget, budget < 1 { throw ValidationError("--budget must be positive.") }
        if pixelLimit <= 0 { throw ValidationError("--pixel-limit must be positive.") }
        if let minConfidence, !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1.") }
        _ = try parsedSymbologies()
        _ = try parsedTargets()
        _ = try regionOption.parsed(allowCountry: false)
    }

    enum Outcome: Sendable {
        case read(PhotoScan)
        case failed(FileFailure)
    }

    func run() throws {
        let targets = try parsedTargets()
        let inputs = Inputs.inputs(paths)
        var options = CodeReader.Options(symbologies: try parsedSymbologies(), preset: preset, timeBudgetMilliseconds: budget)
        if let passes {
            options.passes = try passes.split(separator: ",").map { item in
                let parts = item.split(separator: ":").map(String.init)
                guard let pass = CodePass(parts[0]), parts.count <= 2 else { throw ValidationError("Unknown pass '\(item)'.") }
                guard let when = parts.count == 2 ? PassCondition(rawValue: parts[1]) : .always else {
                    throw ValidationError("Unknown pass condition in '\(item)'.")
                }
                return (pass, when)
            }
        }
        let minConfidence = self.minConfidence
        let engine = EngineFactory.make {
            $0.decode = DecodeOptions(pixelLimit: pixelLimit)
            $0.codes = options
            if let minConfidence { $0.plates.minimumConfidence = minConfidence }
        }
        let format = output.format
        if targets.contains(.plates) {
            do { _ = try engine.plateReader() } catch { Failures.exit(error, file: "", format: format) }
        }
        let region = try regionOption.parsed(allowCountry: false).region
        if let annotate {
            do {
                try FileManager.default.createDirectory(atPath: annotate, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("Cannot create --annotate directory '\(annotate)': \(error.localizedDescription)")
            }
        }
        let wantImage = annotate != nil
        let count = inputs.count
        let progress = count >= 20 && isatty(2) != 0
        let timing = self.timing, annotate = self.annotate, byteLimit = engine.configuration.decode.byteLimit
        let state = Mutex((anyRead: false, anyFailed: false, printed: 0))
        OrderedRunner.run(inputs, jobs: jobs.jobs) { index, input -> Outcome in
            do {
                let scan = try engine.scanPhoto(
                    try input.bytes(limit: byteLimit), file: input.name, reading: targets, region: region, includeImage: wantImage)
                if let annotate { Annotator.write(scan, index: index, directory: annotate) }
                return .read(scan)
            } catch {
                return .failed(FileFailure(file: input.name, error: error))
            }
        } emit: { _, outcome in
            Self.emit(outcome, targets: targets, format: format, timing: timing, progress: progress)
            let printed = state.withLock { s in
                switch outcome {
                case .read(let scan): if !scan.symbols.isEmpty || !scan.plates.isEmpty { s.anyRead = true }
                case .failed: s.anyFailed = true
                }
                s.printed += 1
                return s.printed
            }
            if progress { Self.drawProgress(printed, count) }
        }
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let (anyRead, anyFailed, _) = state.withLock { $0 }
        if anyFailed { throw ExitCode(1) }
        if !anyRead { throw ExitCode(2) }
    }

    static func emit(_ outcome: Outcome, targets: ScanTargets, format: OutputFormat, timing: Bool, progress: Bool) {
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        switch (outcome, format) {
        case (.read(let scan), .json):
            var report = scan.report
            if !timing { report.removeTimings() }
            Console.jsonLine(report)
        case (.read(let scan), .text):
            let r = scan.report
            if r.symbols.isEmpty && scan.plates.isEmpty {
                let nothing = targets == .all ? "no code or plate" : targets == .plates ? "no plate" : "no code"
                Console.out("\(r.file): \(nothing)")
            }
            for s in r.symbols {
                let text = s.text.map { $0.replacingOccurrences(of: "\n", with: "\\n") } ?? "(binary, base64 \(s.bytes))"
                Console.out("\(r.file): \(s.format) \(text)")
            }
            for plate in scan.plates {
                let others = plate.candidates.dropFirst().map(\.text).joined(separator: " ")
                let confidence = String(format: "%.2f", plate.confidence)
                Console.out(
                    "\(r.file): plate \(plate.text) (\(plate.label ?? "no grammar"), confidence \(confidence))\(others.isEmpty ? "" : " or: \(others)")")
            }
            if timing, let ms = r.milliseconds { Console.err("\(r.file): \(ms) ms") }
        case (.failed(let f), _):
            Failures.print(f, format: format)
        }
    }

    static func drawProgress(_ done: Int, _ total: Int) {
        let width = 30
        let filled = done * width / max(1, total)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
    }
}

/// Writes annotated copies of scanned photos: codes outlined in green, plates in blue, each with its
/// text drawn under it.
enum Annotator {
    static func write(_ scan: PhotoScan, index: Int, directory: String) {
        guard let image = scan.annotatedImage() else { return }
        let base = ((scan.report.file as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = scan.report.file == "-" ? "stdin" : base
        let path = (directory as NSString).appendingPathComponent(String(format: "%04d-%@.png", index, name))
        do {
            try PNGWriter.write(image, to: path)
        } catch {
            Console.err("seer: cannot write \(path): \(error)")
        }
    }
}
