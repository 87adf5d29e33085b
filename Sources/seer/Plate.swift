import ArgumentParser
import Foundation
import Seer

/// `--region us|eu|br|auto`.
enum RegionChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case us, eu, br, auto

    var region: PlateRegion? { PlateRegion(rawValue: rawValue) }
}

/// `seer plate …`: licence-plate commands (reading and grammar here; owner look-up and messages in
/// `PlateOwner.swift`).
struct Plate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plate",
        abstract: "Licence plates: read them from photos, check typed ones, find the owner and leave a message.",
        subcommands: [Read.self, Normalize.self, PlateResolve.self, PlateMessage.self, PlateInbox.self])
}

/// What `seer plate read --format json` prints for one photo.
struct PlateReport: Codable, Sendable {
    var file: String
    var width: Int
    var height: Int
    var orientation: Int
    var plates: [PlateReading]
}

extension Plate {
    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read",
            abstract: "Find and read the licence plates in each photo.",
            discussion: """
                JSON: one object per photo per line, {"file","width","height","orientation","plates":[…]},
                plates most trustworthy first, each {"text","confidence","region","grammar","corners",
                "box","characters","candidates"}; or {"file","error":{"code","message"}} for a photo that
                could not be read. Corners are in the displayed (orientation-applied) photo's pixels.
                Exit codes: 0 a plate was read, 2 no plate in any photo, 1 an input failed, 64 usage error.
                """)

        @Option(name: .long, help: "Region whose grammars decide readings: us, eu, br or auto.")
        var region: RegionChoice = .auto

        @Option(name: .long, help: "Output format: text or json (JSON Lines).")
        var format: OutputFormat = .text

        @Option(name: .long, help: "Photos read in parallel (default: the number of cores).")
        var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

        @Argument(help: "Photos (PNG or JPEG, recognised by content).")
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one photo.") }
            if jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        }

        func run() throws {
            OCRThreads.limitToOnePerWorker()
            let engine = Engine()
            do { _ = try engine.plateReader() } catch let error as PlateError {
                Console.err("seer: \(error)")
                throw ExitCode(1)
            }
            let results = Results(count: files.count)
            let files = self.files, region = region.region
            DispatchQueue.concurrentPerform(iterations: min(jobs, files.count)) { worker in
                var index = worker
                while index < files.count {
                    let file = files[index]
                    do {
                        let image = try engine.decode(contentsOf: file)
                        let plates = try engine.readPlates(in: image, region: region)
                        results.set(index, .success(PlateReport(
                            file: file, width: image.info.width, height: image.info.height,
                            orientation: image.info.orientation.rawValue, plates: plates)))
                    } catch let error as ImageError {
                        results.set(index, .failure(FileFailure(file: file, error)))
                    } catch {
                        results.set(index, .failure(FileFailure(file: file, code: "plateReadFailed", message: "\(error)")))
                    }
                    index += min(jobs, files.count)
                }
            }
            var failed = false, anyPlate = false
            for result in results.all() {
                switch result {
                case .success(let report):
                    if !report.plates.isEmpty { anyPlate = true }
                    switch format {
                    case .json: Console.jsonLine(report)
                    case .text:
                        if report.plates.isEmpty { Console.out("\(report.file): no plate") }
                        for plate in report.plates {
                            let others = plate.candidates.dropFirst().map(\.text).joined(separator: " ")
                            Console.out("\(report.file): \(plate.text) (\(plate.grammar ?? "no grammar"), confidence \(String(format: "%.2f", plate.confidence)))\(others.isEmpty ? "" : " or: \(others)")")
                        }
                    }
                case .failure(let failure):
                    failed = true
                    switch format {
                    case .json: Console.jsonLine(failure)
                    case .text: Console.err("seer: \(failure.file): \(failure.error.code): \(failure.error.message)")
                    }
                case nil: break
                }
            }
            if failed { throw ExitCode(1) }
            if !anyPlate { throw ExitCode(2) }
        }
    }

    struct Normalize: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "normalize",
            abstract: "Check a typed plate: canonical form, the format it matches, confusion variants.",
            discussion: """
                JSON: {"input","canonical","grammar","region","variants"}. Separators and case are
                ignored; O/0, I/1, B/8, … are swapped only where a format demands a letter or a digit.
                Exit codes: 0 the plate matches a format, 2 it matches none, 64 usage error.
                """)

        @Option(name: .long, help: "Region whose grammars apply: us, eu, br or auto.")
        var region: RegionChoice = .auto

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        @Argument(help: "The plate text as typed.")
        var text: String

        func validate() throws {
            if PlateGrammar.clean(text).isEmpty { throw ValidationError("The plate has no letters or digits.") }
        }

        func run() throws {
            let result = Engine().normalizePlate(text, region: region.region)
            switch format {
            case .json: Console.jsonLine(result)
            case .text:
                let variants = result.variants.isEmpty ? "" : " variants: \(result.variants.prefix(10).joined(separator: " "))"
                Console.out("\(result.canonical) \(result.grammar ?? "no grammar")\(variants)")
            }
            if result.grammar == nil { throw ExitCode(2) }
        }
    }
}

/// Per-file results filled in by parallel workers, printed in input order.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Outcome?]

    init(count: Int) { items = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Outcome) {
        lock.lock()
        items[index] = value
        lock.unlock()
    }

    func all() -> [Outcome?] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

/// One photo's outcome.
private enum Outcome: Sendable {
    case success(PlateReport)
    case failure(FileFailure)
}
