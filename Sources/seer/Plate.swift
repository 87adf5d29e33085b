import ArgumentParser
import Foundation
import Seer
import Synchronization

/// `seer plate …`: licence-plate commands (reading and grammar here; owner look-up and messages in
/// `PlateOwner.swift`).
struct Plate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plate",
        abstract: "Licence plates: read them from photos, check typed ones, find the owner and leave a message.",
        subcommands: [Read.self, Normalize.self, PlateResolve.self, PlateMessage.self, PlateInbox.self])
}

/// A typed plate checked as `normalize`, `resolve` and `message` all check it: a usage error (64)
/// that says why when it cannot be a plate.
func validateTypedPlate(_ text: String) throws {
    do {
        _ = try PlateText.validate(text)
    } catch {
        throw ValidationError(error.message)
    }
}

extension Plate {
    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read",
            abstract: "Find and read the licence plates in each photo.",
            discussion: """
                PATH is a photo, a directory (every photo below it, recursively) or - for standard input.
                JSON: one object per photo per line, {"file","width","height","orientation","plates":[…]},
                plates most trustworthy first, each {"text","confidence","region","grammar","corners",
                "box","characters","candidates"}; or {"file","error":{"code","message"}} for a photo that
                could not be read. Corners are in the displayed (orientation-applied) photo's pixels.
                Exit codes: 0 a plate was read, 2 no plate in any photo, 1 an input failed, 64 usage error.
                """)

        @OptionGroup var regionOption: RegionOption
        @OptionGroup var output: FormatOption
        @OptionGroup var jobs: JobsOption

        @Option(
            name: .long,
            help: "Plates below this confidence (0–1: the chance the reading is exactly right) are not reported (default \(PlateReader.Options.defaultMinimumConfidence)).")
        var minConfidence: Double?

        @Argument(help: "Photos (PNG, JPEG, HEIC or WebP, recognised by content), directories, or - for standard input.")
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one photo.") }
            _ = try regionOption.parsed(allowCountry: false)
            if let minConfidence, !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1.") }
        }

        func run() throws {
            let minConfidence = self.minConfidence
            let engine = EngineFactory.make { if let minConfidence { $0.plates.minimumConfidence = minConfidence } }
            let format = output.format
            do { _ = try engine.plateReader() } catch { Failures.exit(error, file: "", format: format) }
            let region = try regionOption.parsed(allowCountry: false).region
            let byteLimit = engine.configuration.decode.byteLimit
            let state = Mutex((failed: false, anyPlate: false))
            OrderedRunner.run(Inputs.inputs(files), jobs: jobs.jobs) { _, input -> Result<PlateReport, FileFailure> in
                do {
                    return .success(try engine.plateReport(try input.bytes(limit: byteLimit), file: input.name, region: region))
                } catch {
                    return .failure(FileFailure(file: input.name, error: error))
                }
            } emit: { _, result in
                switch result {
                case .success(let report):
                    if !report.plates.isEmpty { state.withLock { $0.anyPlate = true } }
                    switch format {
                    case .json: Console.jsonLine(report)
                    case .text:
                        if report.plates.isEmpty { Console.out("\(report.file): no plate") }
                        for plate in report.plates {
                            let others = plate.candidates.dropFirst().map(\.text).joined(separator: " ")
                            Console.out(
                                "\(report.file): \(plate.text) (\(plate.label ?? "no grammar"), confidence \(String(format: "%.2f", plate.confidence)))\(others.isEmpty ? "" : " or: \(others)")"
                            )
                        }
                    }
                case .failure(let failure):
                    state.withLock { $0.failed = true }
                    Failures.print(failure, format: format)
                }
            }
            let (failed, anyPlate) = state.withLock { $0 }
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
                ignored, and letters with accents count as their base letter (Ü as U); Cyrillic or Greek
                look-alike letters, emoji, symbols and control characters are refused, saying why.
                O/0, I/1, B/8, … are swapped only where a format demands a letter or a digit.
                Exit codes: 0 the plate matches a format, 2 it matches none, 64 usage error (including a
                text that cannot be a plate).
                """)

        @OptionGroup var regionOption: RegionOption
        @OptionGroup var output: FormatOption

        @Argument(help: "The plate text as typed.")
        var text: String

        func validate() throws {
            try validateTypedPlate(text)
            _ = try regionOption.parsed(allowCountry: false)
        }

        func run() throws {
            let result: PlateNormalization
            do {
                result = try EngineFactory.make().normalizePlate(text, region: try regionOption.parsed(allowCountry: false).region)
            } catch {
                Failures.exit(error, file: text, format: output.format, status: 64)
            }
            switch output.format {
            case .json: Console.jsonLine(result)
            case .text:
                let variants = result.variants.isEmpty ? "" : " variants: \(result.variants.prefix(10).joined(separator: " "))"
                Console.out("\(result.canonical) \(result.grammar ?? "no grammar")\(variants)")
            }
            if result.grammar == nil { throw ExitCode(2) }
        }
    }
}
