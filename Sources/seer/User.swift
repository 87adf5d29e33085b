import ArgumentParser
import Foundation
import Seer

struct User: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Plate owners: register a user and their plate.",
        subcommands: [Add.self])
}

extension User {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a user (onboarding): name, email, plate and the plate's country.",
            discussion: """
                The plate is checked as seer plate normalize checks it (Cyrillic or Greek look-alike letters, \
                emoji, symbols and control characters refused, saying why); the country is an ISO 3166-1 \
                alpha-2 code; the email must be one address. The user gets a new opaque recipient id: \
                messages to the plate go there. The name and email are stored, never printed back.
                JSON: {"recipient","plate","country"}; a failure: {"file":"","error":{"code","message"}}.
                Exit codes: 0 registered, 1 refused (a bad field) or the store failed, 64 usage error.
                """)

        @Option(name: .long, help: "The user's name.")
        var name: String

        @Option(name: .long, help: "The user's email (never shown to anyone who messages the plate).")
        var email: String

        @Option(name: .long, help: "The plate as written on the car.")
        var plate: String

        @Option(name: .long, help: "The country the plate is registered in (ISO 3166-1 alpha-2, e.g. GB).", transform: parseCountry)
        var country: Country

        @OptionGroup var output: FormatOption
        @OptionGroup var store: StoreOptions

        func validate() throws {
            try validateTypedPlate(plate)
        }

        func run() throws {
            let engine = EngineFactory.make(db: store.db)
            do {
                let receipt = try engine.addUser(name: name, email: email, plate: plate, country: country, store: engine.store())
                switch output.format {
                case .json: Console.jsonLine(receipt)
                case .text: Console.out("registered: recipient \(receipt.recipient) (plate \(receipt.plate), \(receipt.country))")
                }
            } catch {
                Failures.exit(error, file: "", format: output.format)
            }
        }
    }
}
