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
            PATH is an image file (PNG or JPEG, recognised by content), a directory (searched recursively \
            for .png, .jpg and .jpeg files) or - for standard input.
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

    @Option(name: .long, help: "Region whose plate grammars decide readings: us, eu, br or auto (with --read plates).")
    var region: RegionChoice = .auto

    @Option(name: .long, help: "Output format: text or json (JSON Lines).")
    var format: OutputFormat = .text

    @Option(
        name: .long,
        help: "Comma-separated symbologies: qr, ean13, ean8, upca, upce, code128, code39, i25, databar, databar-exp, or all.")
    var symbologies: String = "qr"

    @Option(name: .long, help: "Effort: fast, balanced (default) or thorough.")
    var preset: CodeReader.Preset = .balanced

    @Option(name: .long, help: "Time budget per photo in milliseconds (default by preset).")
    var budget: Int?

    @Option(name: .long, help: "Write each photo as PNG with the codes and plates outlined and labelled into this directory.")
    var annotate: String?

    @Option(name: .long, help: "Photos read in parallel (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

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
        var out: ScanTargets = []
        for name in read.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch name {
            case "codes", "code": out.insert(.codes)
            case "plates", "plate": out.insert(.plates)
            case "all": out.formUnion(.all)
            default: throw ValidationError("Unknown --read '\(name)'. Known: codes, plates (comma-separated), all.")
            }
        }
        if out.isEmpty { throw ValidationError("--read needs codes, plates or both.") }
        return out
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one image file, directory or -.") }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        if let budget, budget < 1 { throw ValidationError("--budget must be positive.") }
        if pixelLimit <= 0 { throw ValidationError("--pixel-limit must be positive.") }
        _ = try parsedSymbologies()
        _ = try parsedTargets()
    }

    /// Expands directories (recursively, image extensions only, sorted) and keeps files and `-`.
    static func expand(_ paths: [String]) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDir: ObjCBool = false
            if path != "-", fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
                let items = (fm.enumerator(atPath: path)?.allObjects as? [String]) ?? []
                let images = items.filter {
                    let ext = ($0 as NSString).pathExtension.lowercased()
                    return ext == "png" || ext == "jpg" || ext == "jpeg"
                }.sorted()
                out += images.map { (path as NSString).appendingPathComponent($0) }
            } else {
                out.append(path)
            }
        }
        return out
    }

    enum Outcome: Sendable {
        case read(PhotoScan)
        case failed(FileFailure)
    }

    func run() throws {
        let targets = try parsedTargets()
        // Before anything can load Tesseract (and with it OpenMP): one OCR thread per worker.
        if targets.contains(.plates) { OCRThreads.limitToOnePerWorker() }
        let files = Self.expand(paths)
        let options = CodeReader.Options(symbologies: try parsedSymbologies(), preset: preset, timeBudgetMilliseconds: budget)
        let engine = Engine(configuration: .init(decode: DecodeOptions(pixelLimit: pixelLimit), codes: options))
        if targets.contains(.plates) {
            do { _ = try engine.plateReader() } catch let error as PlateError {
                Console.err("seer: \(error)")
                throw ExitCode(1)
            }
        }
        let region = self.region.region
        if let annotate {
            do {
                try FileManager.default.createDirectory(atPath: annotate, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("Cannot create --annotate directory '\(annotate)': \(error.localizedDescription)")
            }
        }
        let wantImage = annotate != nil
        let stdinBytes: [UInt8]? = files.contains("-") ? [UInt8](FileHandle.standardInput.readDataToEndOfFile()) : nil

        let count = files.count
        let state = Mutex(PrintState(results: Array(repeating: nil, count: count)))
        let next = Atomic<Int>(0)
        let progress = count >= 20 && isatty(2) != 0
        let format = self.format, timing = self.timing, annotate = self.annotate

        let work: @Sendable () -> Void = {
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                if i >= count { return }
                let file = files[i]
                let outcome: Outcome
                do {
                    let scan = file == "-"
                        ? try engine.scanPhoto(stdinBytes ?? [], file: "-", reading: targets, region: region, includeImage: wantImage)
                        : try engine.scanPhoto(contentsOf: file, reading: targets, region: region, includeImage: wantImage)
                    if let annotate { Annotator.write(scan, index: i, directory: annotate) }
                    outcome = .read(scan)
                } catch let error as ImageError {
                    outcome = .failed(FileFailure(file: file, error))
                } catch {
                    outcome = .failed(FileFailure(file: file, code: "failed", message: "\(error)"))
                }
                state.withLock { s in
                    s.results[i] = outcome
                    while s.printed < count, let o = s.results[s.printed] {
                        Self.emit(o, targets: targets, format: format, timing: timing, progress: progress)
                        switch o {
                        case .read(let scan): if !scan.symbols.isEmpty || !scan.plates.isEmpty { s.anyRead = true }
                        case .failed: s.anyFailed = true
                        }
                        s.results[s.printed] = nil
                        s.printed += 1
                        if progress { Self.drawProgress(s.printed, count) }
                    }
                }
            }
        }
        let workers = min(jobs, max(1, count))
        if workers == 1 {
            work()
        } else {
            let group = DispatchGroup()
            for _ in 0..<workers { DispatchQueue.global().async(group: group, execute: work) }
            group.wait()
        }
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let (anyRead, anyFailed) = state.withLock { ($0.anyRead, $0.anyFailed) }
        if anyFailed { throw ExitCode(1) }
        if !anyRead { throw ExitCode(2) }
    }

    struct PrintState {
        var results: [Outcome?]
        var printed = 0
        var anyRead = false
        var anyFailed = false
    }

    static func emit(_ outcome: Outcome, targets: ScanTargets, format: OutputFormat, timing: Bool, progress: Bool) {
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        switch (outcome, format) {
        case (.read(let scan), .json):
            var report = scan.report
            if !timing { report.milliseconds = nil }
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
                    "\(r.file): plate \(plate.text) (\(plate.grammar ?? "no grammar"), confidence \(confidence))\(others.isEmpty ? "" : " or: \(others)")")
            }
            if timing, let ms = r.milliseconds { Console.err("\(r.file): \(ms) ms") }
        case (.failed(let f), .json):
            Console.jsonLine(f)
        case (.failed(let f), .text):
            Console.err("seer: \(f.file): \(f.error.code): \(f.error.message)")
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
        guard var image = scan.image else { return }
        let s = 1 / scan.imageScale
        func mark(_ corners: [(x: Double, y: Double)], _ label: String, outline: (UInt8, UInt8, UInt8), text: (UInt8, UInt8, UInt8)) {
            let pts = corners.map { (x: $0.x * s, y: $0.y * s) }
            image.drawPolygon(pts, color: outline, thickness: max(2, image.width / 400))
            let x = Int(pts.map(\.x).min() ?? 0), y = Int(pts.map(\.y).max() ?? 0) + 4
            image.drawText(String(label.prefix(60)), x: x, y: y, scale: max(1, image.width / 600), color: text)
        }
        for symbol in scan.symbols {
            mark(symbol.corners.map { (x: $0.x, y: $0.y) }, symbol.text ?? "(binary)", outline: (0, 220, 0), text: (255, 0, 0))
        }
        for plate in scan.plates where plate.corners.count == 4 {
            mark(plate.corners.map { (x: $0[0], y: $0[1]) }, plate.text, outline: (0, 120, 255), text: (255, 0, 255))
        }
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
