import ArgumentParser
import Foundation
import Seer
import SeerQR

/// A latitude,longitude pair from the command line.
struct Location: ExpressibleByArgument {
    var latitude: Double
    var longitude: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        latitude = lat
        longitude = lon
    }
}

extension ScanMode: ExpressibleByArgument {}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify product codes: authentic, counterfeit, suspicious or unknown.",
        discussion: """
            Codes come from photos (PATH…: files, directories searched recursively, or - for standard input), \
            from --payload TEXT (repeatable) or from --payload-file FILE (one payload per line; - for standard \
            input). Each scan is saved in the history unless --no-save. The codes of one photo are one photo: a \
            serial repeated there is flagged duplicateInPhoto; in batch mode repeats of one serial are flagged \
            duplicateInBatch. An empty payload, one with control characters (other than tab, line breaks and \
            the GS1 separator) or one over 4096 bytes is refused: reported, not verified, not saved.
            In batch mode results are saved as they are made, in transactions of 64 scans, and each is printed \
            once it is saved: a run stopped at any point (even killed) lost nothing it printed, and \
            --resume with the same inputs continues after the last saved scan. A database busy with another \
            run is waited for.
            JSON: one object per code per line: {"verdict","reasons","payload","gtin","serial","lot","expiry", \
            "keyID","product":{"name","brand","category"},"format","source","symbology","notes","scanID"}, \
            with "line" (1-based) for each payload from --payload-file; a photo with no code: \
            {"file","reason":"noCode","message"}; a failure: {"file","error":{"code","message"}} (file: the \
            photo, or "FILE:LINE" for a refused payload line).
            Exit codes: 0 every input was verified (photos without a code included), 1 an input could not be \
            read or a payload was refused, 64 usage error.
            """)

    @Argument(help: "Photos to read codes from (files or directories).")
    var paths: [String] = []

    @Option(
        name: .long,
        help: "Symbologies to read in photos: qr, ean13, ean8, upca, upce, code128, code39, i25, databar, databar-exp, datamatrix, or all (default).")
    var symbologies: String = "all"

    @Option(name: .long, help: "A decoded payload to verify (repeatable).")
    var payload: [String] = []

    @Option(name: .long, help: "A file of payloads, one per line (- for standard input).")
    var payloadFile: String?

    @Option(name: .long, help: "single or batch.")
    var mode: ScanMode = .single

    @Option(name: .long, help: "The scanning device's id.")
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: "Where the scan happened: LAT,LON in degrees (negative values allowed).")
    var location: Location?

    @Option(name: .long, help: "The country of the scan (ISO 3166-1 alpha-2), for market checks.", transform: parseCountry)
    var country: Country?

    @Option(name: .long, help: "Clone thresholds as a JSON file (fields of VerifyConfiguration; missing ones keep their defaults).")
    var thresholds: String?

    @Flag(name: .long, help: "Do not save the scans in the history.")
    var noSave = false

    @Flag(name: .long, help: "Batch mode: continue the unfinished run with the same inputs where it stopped.")
    var resume = false

    @Option(name: .long, help: ArgumentHelp("Batch mode: scans saved per transaction.", visibility: .hidden))
    var transactionSize: Int = 64

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions
    @OptionGroup var jobs: JobsOption

    var format: OutputFormat { output.format }

    func validate() throws {
        if paths.isEmpty && payload.isEmpty && payloadFile == nil {
            throw ValidationError("Give photos, --payload TEXT or --payload-file FILE.")
        }
        if resume && (mode != .batch || noSave) { throw ValidationError("--resume continues a saved batch: use it with --mode batch.") }
        if transactionSize < 1 { throw ValidationError("--transaction-size must be at least 1.") }
        if payloadFile == "-" && paths.contains("-") {
            throw ValidationError("Standard input can hold photos or --payload-file, not both.")
        }
        _ = try Scan.parseSymbologies(symbologies)
    }

    func run() throws {
        let symbologies = try Scan.parseSymbologies(symbologies)
        let thresholds = try self.thresholds.map(Self.loadThresholds)
        let engine = EngineFactory.make(db: store.db) { configuration in
            configuration.codes = CodeReader.Options(symbologies: symbologies)
            if let thresholds { configuration.verify = thresholds }
        }
        let format = self.format
        let database = engine.storeOrExit(format: format)
        let context = ScanContext(device: device, latitude: location?.latitude, longitude: location?.longitude, country: country?.rawValue)

        var payloadLines: [(number: Int, text: String)] = []
        var payloadBytes: [UInt8] = []
        if let payloadFile {
            do {
                payloadBytes = try payloadFile == "-" ? StandardInput.shared.bytes() : ImageDecoder.readFile(payloadFile, limit: 64 << 20)
            } catch {
                Failures.exit(FileFailure(file: payloadFile, code: "unreadable", message: "cannot read the payload file"), file: payloadFile, format: format)
            }
            // One payload a line; empty lines are skipped (they are no scan), numbered as in the file.
            for (index, raw) in String(decoding: payloadBytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
                if !line.isEmpty { payloadLines.append((index + 1, String(line))) }
            }
        }
        let photos = Inputs.inputs(paths)

        // Batch runs are saved as they go, in bounded transactions, and can be resumed.
        var session: BatchSession?
        if mode == .batch && !noSave {
            let key = BatchSession.key(
                [context.device ?? "", context.country ?? "", symbologies.map(\.rawValue).sorted().joined(separator: ",")] + payload
                    + ["--payload-file", BatchSession.key([String(decoding: payloadBytes, as: UTF8.self)])] + photos.map(\.name))
            do {
                session = try BatchSession(engine: engine, store: database, context: context, key: key, resume: resume, chunkSize: transactionSize)
            } catch {
                Failures.exit(error, file: "", format: format)
            }
            if let session, session.alreadySaved > 0 {
                Console.err("seer: resuming batch \(session.batchID): \(session.alreadySaved) scans were saved before; going on from there")
            }
        }
        let sink = VerifySink(engine: engine, session: session, format: format)
        for text in payload { sink.take(ScanInput(payload: text, symbology: "text"), file: "--payload") }
        for (number, text) in payloadLines {
            sink.take(ScanInput(payload: text, symbology: "text", line: number), file: "\(payloadFile ?? "-"):\(number)")
        }
        let byteLimit = engine.configuration.decode.byteLimit
        OrderedRunner.run(photos, jobs: jobs.jobs) { _, photo -> Result<[CodeReading], FileFailure> in
            do {
                return .success(try engine.readCodesForVerification(try photo.bytes(limit: byteLimit), file: photo.name))
            } catch {
                return .failure(FileFailure(file: photo.name, error: error))
            }
        } emit: { index, result in
            let photo = photos[index]
            switch result {
            case .success(let codes) where codes.isEmpty:
                switch format {
                case .json: Console.jsonLine(NoCodeFound(file: photo.name))
                case .text: Console.out("\(photo.name): no code found")
                }
            case .success(let codes):
                for code in codes { sink.take(ScanInput(payload: code.payload, sourceFile: photo.name, symbology: code.symbology), file: photo.name) }
            case .failure(let failure):
                sink.failed = true
                Failures.print(failure, format: format)
            }
        }
        do {
            if let session {
                if let error = sink.stopped { throw error }
                sink.print(try session.finish())
            } else {
                sink.print(try engine.verify(sink.inputs, context: context, mode: mode, store: database, save: !noSave))
            }
        } catch {
            Failures.exit(error, file: "", format: format)
        }
        if sink.failed { throw ExitCode(1) }
    }

    static func loadThresholds(_ path: String) throws -> VerifyConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read \(path).") }
        // Start from the defaults and overlay what the file sets.
        let defaults = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(VerifyConfiguration())) as? [String: Any] ?? [:]
        guard let given = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ValidationError("\(path) is not a JSON object.")
        }
        let merged = defaults.merging(given) { $1 }
        do {
            return try JSONDecoder().decode(VerifyConfiguration.self, from: try JSONSerialization.data(withJSONObject: merged))
        } catch {
            throw ValidationError("\(path): \(error)")
        }
    }

    static func describe(_ result: Verification) -> String {
        var line = ""
        if let source = result.source { line += source + ": " } else if let number = result.line { line += "line \(number): " }
        line += result.verdict.rawValue.uppercased()
        if !result.reasons.isEmpty { line += " (" + result.reasons.map(\.rawValue).joined(separator: ", ") + ")" }
        if let product = result.product { line += " — \(product.name), \(product.brand)" }
        if let gtin = result.gtin {
            line += " — GTIN \(gtin)"
            if let serial = result.serial { line += " serial \(serial)" }
        }
        if let id = result.scanID { line += " — scan #\(id)" }
        for note in result.notes { line += "\n    " + note }
        return line
    }
}

/// Where verify's inputs go: checked, then verified at the end (single mode) or as they come (a
/// batch session). Used from one thread at a time (the runner hands results over in order).
final class VerifySink: @unchecked Sendable {
    let engine: Engine
    let session: BatchSession?
    let format: OutputFormat
    var inputs: [ScanInput] = []
    var failed = false
    var stopped: (any Error)?

    init(engine: Engine, session: BatchSession?, format: OutputFormat) {
        self.engine = engine
        self.session = session
        self.format = format
    }

    func take(_ input: ScanInput, file: String) {
        guard stopped == nil else { return }
        do {
            try engine.checkPayload(input.payload)
        } catch {
            failed = true
            Failures.print(error, file: file, format: format)
            return
        }
        guard let session else {
            inputs.append(input)
            return
        }
        do {
            print(try session.add(input))
        } catch {
            stopped = error
        }
    }

    func print(_ results: [Verification]) {
        for result in results {
            switch format {
            case .json: Console.jsonLine(result)
            case .text: Console.out(Verify.describe(result))
            }
        }
    }
}
