import ArgumentParser
import Foundation
import Seer

struct ChargerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "charger",
        abstract: "What to do at a charger: from its typed ID, a code's payload, or a photo of its code.",
        discussion: """
            INPUT is a typed ID (six digits, 100000–999999), a photo file (- for standard input), or with \
            --payload the text a charger \
            QR Code holds (the ID alone or inside a URL, as a query parameter or a path segment).
            Actions: Begin charging (Available); Charger occupied (Preparing, Charging, SuspendedEVSE, \
            SuspendedEV, Finishing, Reserved); Charger out of order (Faulted); Charger not available \
            (Unavailable); No charger found (unknown ID).
            JSON: {"chargerID","action","message","status","location","serial"}.
            Exit codes: 0 answered (including No charger found), 1 no valid charger ID, 64 usage error.
            """)

    @Argument(help: "A typed charger ID or a photo of a charger code.")
    var input: String?

    @Option(name: .long, help: "The payload of a charger QR Code.")
    var payload: String?

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    var format: OutputFormat { output.format }

    func validate() throws {
        if (input == nil) == (payload == nil) { throw ValidationError("Give a charger ID or photo, or --payload TEXT.") }
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let database = engine.storeOrExit(format: format)
        do {
            let resolution: ChargerResolution
            if let payload {
                resolution = try engine.resolveCharger(payload: payload, store: database)
            } else if input == "-" {
                resolution = try engine.resolveCharger(
                    photo: try StandardInput.shared.bytes(), file: "-", store: database)
            } else if let input, FileManager.default.fileExists(atPath: input) {
                resolution = try engine.resolveCharger(photo: input, store: database)
            } else {
                resolution = try engine.resolveCharger(typed: input ?? "", store: database)
            }
            switch format {
            case .json: Console.jsonLine(resolution)
            case .text:
                var line = "\(resolution.chargerID): \(resolution.message)"
                if let status = resolution.status { line += " (\(status.rawValue))" }
                if let location = resolution.location { line += " — \(location)" }
                Console.out(line)
            }
        } catch {
            Failures.exit(error, file: input ?? payload ?? "-", format: format)
        }
    }
}
