import ArgumentParser
import Foundation
import Seer
import SeerBench
import SeerQR

extension TruthFormat: ExpressibleByArgument {}
extension BenchOptions.Read: ExpressibleByArgument {}

/// `--format text|json|csv` for `seer bench`.
enum BenchFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure recognition accuracy and speed on folders of photos with ground truth, peers side by side.",
        discussion: """
            PATH is a folder (every folder below it is a category) or a photo. Ground truth (--truth auto detects \
            it per folder): text (N.png with N.txt, the exact expected text; folders named after 1-D families, \
            ean13-*, upca-*, …, take score_barcodes.py's normalisation rules, falsepositives-* hold no code), \
            boofcv (imageNNN.txt with the corners of every QR code), plates (truth.csv: file,plate_text,x,y,w,h), \
            seer (seer-truth.tsv: FILE<TAB>TEXT, one line per expected code or plate, FILE alone for nothing). \
            Scoring follows ../shared/tools exactly. Peers: zbarimg and zxing-cpp (codes), tesseract (plates), \
            skipped with a note when not installed.
            """)

    @Option(name: .long, help: "What to read: codes (default) or plates.")
    var read: BenchOptions.Read = .codes

    @Option(name: .long, help: "Plate grammar region: us, eu, br or auto; default: each folder's name when it is a region, else auto.")
    var region: String?

    @Option(name: .long, help: "Comma-separated symbologies (as seer scan), or all; default: all for folders named after 1-D families, else qr.")
    var symbologies: String?

    @Option(name: .long, help: "Code reader effort: fast, balanced (default) or thorough.")
    var preset: CodeReader.Preset = .balanced

    @Option(name: .long, help: "Code reader time budget per photo in milliseconds (default by preset).")
    var budget: Int?

    @Option(name: .long, help: "Ground-truth format: auto (default), text, boofcv, plates or seer.")
    var truth: TruthFormat = .auto

    @Option(name: .long, help: "Runs per photo; the fastest is kept (default 1).")
    var `repeat`: Int = 1

    @OptionGroup var jobs: JobsOption

    @Option(name: .long, help: "Also time Seer at these job counts (comma-separated), for throughput against jobs.")
    var throughputJobs: String?

    @Option(name: .long, help: "Peers: auto (every installed one that fits), none, or a list (zbarimg,zxing-cpp,tesseract).")
    var peers: String = "auto"

    @Option(name: .long, help: "Output: text (tables), json (one object) or csv (one row per photo and reader).")
    var format: BenchFormat = .text

    @Option(name: .long, help: "Write a self-contained HTML report (tables, plots, missed and misread photos annotated).")
    var report: String?

    @Argument(help: "Folders of photos with ground truth, or photos.")
    var paths: [String] = []

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one folder of photos with ground truth.") }
        if `repeat` < 1 { throw ValidationError("--repeat must be at least 1.") }
        if let budget, budget < 1 { throw ValidationError("--budget must be positive.") }
        if let region, PlateRegion.parse(region) == nil { throw ValidationError("--region takes us, eu, br or auto; '\(region)' is not one.") }
        if let symbologies { _ = try Scan.parseSymbologies(symbologies) }
        _ = try parsedThroughputJobs()
        do { _ = try Bench.PeerChoice.parse(peers) } catch let e as TruthError { throw ValidationError(e.reason) }
    }

    func parsedThroughputJobs() throws -> [Int] {
        guard let throughputJobs else { return [] }
        return try throughputJobs.split(separator: ",").map {
            guard let n = Int($0.trimmingCharacters(in: .whitespaces)), n >= 1 else {
                throw ValidationError("--throughput-jobs takes job counts such as 1,2.")
            }
            return n
        }
    }

    func run() throws {
        var options = BenchOptions()
        options.read = read
        options.region = region.flatMap { PlateRegion.parse($0) }
        options.symbologies = try symbologies.map(Scan.parseSymbologies)
        options.preset = preset
        options.repeatCount = `repeat`
        options.budgetMilliseconds = budget
        options.jobs = jobs.jobs
        let loaded: (items: [BenchItem], skipped: [String])
        do {
            loaded = try TruthLoader.load(paths, format: truth)
        } catch {
            Console.err("seer: \(error)")
            throw ExitCode(1)
        }
        if loaded.items.isEmpty {
            Console.err("seer: no photos with ground truth under \(paths.joined(separator: " ")) (--truth \(truth.rawValue))")
            throw ExitCode(1)
        }
        let configuration = EngineFactory.make().configuration
        let progress = isatty(2) != 0
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        let result: (report: BenchReport, runner: BenchRunner)
        do {
            result = try Bench.run(
                items: loaded.items, paths: paths, options: options, peers: try Bench.PeerChoice.parse(peers),
                throughputJobs: try parsedThroughputJobs(), skipped: loaded.skipped, configuration: configuration,
                helperSearchPaths: [FileManager.default.currentDirectoryPath, executable],
                progress: { reader, done, total in
                    if progress { BenchCommand.drawProgress(reader, done, total) }
                })
        } catch {
            if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Failures.exit(error, file: "", format: .text)
        }
        if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        switch format {
        case .text: Console.write(TextTables.render(result.report), to: 1)
        case .json: Console.jsonLine(result.report)
        case .csv: Console.write(CSVOutput.render(result.report), to: 1)
        }
        if let report {
            let html = HTMLReport.render(result.report, items: loaded.items, runner: result.runner)
            do {
                try html.write(toFile: report, atomically: true, encoding: .utf8)
            } catch {
                Console.err("seer: cannot write \(report): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            if format == .text { Console.err("wrote \(report)") }
        }
    }

    static func drawProgress(_ reader: String, _ done: Int, _ total: Int) {
        let width = 30
        let filled = done * width / max(1, total)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\u{1B}[K\(reader) [\(bar)] \(done)/\(total)".utf8))
    }
}
