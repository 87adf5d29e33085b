import ArgumentParser
import Foundation
import Seer
import SeerQR

/// `--db PATH`, shared by every command that uses the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The database file (default: $XDG_DATA_HOME/seer/seer.sqlite or ~/.local/share/seer/seer.sqlite).")
    var db: String?

    func open(_ engine: Engine) throws -> SQLiteStore {
        do {
            return try engine.openStore(path: db)
        } catch let error as StoreError {
            Console.err("seer: \(error.message)")
            throw ExitCode(1)
        }
    }
}

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
            Codes come from photos (PATH…: files, or directories searched recursively), from --payload TEXT \
            (repeatable) or from --payload-file FILE (one payload per line; - for standard input). Each scan is \
            saved in the history unless --no-save. The codes of one photo are one photo: a serial repeated \
            there is flagged duplicateInPhoto; in batch mode repeats of one serial are flagged duplicateInBatch.
            JSON: one object per code per line: {"verdict","reasons","payload","gtin","serial","lot","expiry", \
            "keyID","product":{"name","brand","category"},"format","source","symbology","notes"}.
            Exit codes: 0 every input was verified, 1 an input could not be read, 64 usage error.
            """)

    @Argument(help: "Photos to read codes from (files or directories).")
    var paths: [String] = []

    @Option(
        name: .long,
        help: "Symbologies to read in photos: qr (default), ean13, ean8, upca, upce, code128, code39, i25, databar, databar-exp, or all.")
    var symbologies: String = "qr"

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

    @Option(name: .long, help: "The country of the scan (ISO 3166-1 alpha-2), for market checks.")
    var country: String?

    @Option(name: .long, help: "Clone thresholds as a JSON file (fields of VerifyConfiguration; missing ones keep their defaults).")
    var thresholds: String?

    @Flag(name: .long, help: "Do not save the scans in the history.")
    var noSave = false

    @Option(name: .long, help: "Output format: text or json (JSON Lines).")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if paths.isEmpty && payload.isEmpty && payloadFile == nil {
            throw ValidationError("Give photos, --payload TEXT or --payload-file FILE.")
        }
        if let country, country.count != 2 { throw ValidationError("--country takes a two-letter code such as DE.") }
        _ = try Scan.parseSymbologies(symbologies)
    }

    func run() throws {
        var configuration = Engine.Configuration()
        configuration.codes = CodeReader.Options(symbologies: try Scan.parseSymbologies(symbologies))
        if let thresholds { configuration.verify = try Self.loadThresholds(thresholds) }
        let engine = Engine(configuration: configuration)
        let database = try store.open(engine)
        var failed = false
        var inputs = payload.map { ScanInput(payload: $0, symbology: "text") }
        if let payloadFile {
            let text: String
            if payloadFile == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else if let data = FileManager.default.contents(atPath: payloadFile) {
                text = String(decoding: data, as: UTF8.self)
            } else {
                Console.err("seer: \(payloadFile): cannot read")
                throw ExitCode(1)
            }
            inputs += text.split(whereSeparator: \.isNewline).filter { !$0.isEmpty }.map {
                ScanInput(payload: String($0), symbology: "text")
            }
        }
        for path in Inputs.expand(paths) {
            do {
                let codes = try engine.readCodesForVerification(contentsOf: path)
                if codes.isEmpty { Console.err("seer: \(path): no code found") }
                inputs += codes.map { ScanInput(payload: $0.payload, sourceFile: path, symbology: $0.symbology) }
            } catch let error as ImageError {
                failed = true
                report(FileFailure(file: path, error))
            }
        }
        let context = ScanContext(
            device: device, latitude: location?.latitude, longitude: location?.longitude, country: country?.uppercased())
        let results = try engine.verify(inputs, context: context, mode: mode, store: database, save: !noSave)
        for result in results {
            switch format {
            case .json: Console.jsonLine(result)
            case .text: Console.out(Self.describe(result))
            }
        }
        if failed { throw ExitCode(1) }
    }

    func report(_ failure: FileFailure) {
        switch format {
        case .json: Console.jsonLine(failure)
        case .text: Console.err("seer: \(failure.file): \(failure.error.code): \(failure.error.message)")
        }
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
        if let source = result.source { line += source + ": " }
        line += result.verdict.rawValue.uppercased()
        if !result.reasons.isEmpty { line += " (" + result.reasons.map(\.rawValue).joined(separator: ", ") + ")" }
        if let product = result.product { line += " — \(product.name), \(product.brand)" }
        if let gtin = result.gtin {
            line += " — GTIN \(gtin)"
            if let serial = result.serial { line += " serial \(serial)" }
        }
        for note in result.notes { line += "\n    " + note }
        return line
    }
}
