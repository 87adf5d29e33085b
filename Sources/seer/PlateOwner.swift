import ArgumentParser
import Foundation
import Seer

/// `--country CC` and `--region` for the owner commands: the owner's country (ISO 3166) and the
/// plate grammar region. `--region GB`, as these commands once took a country, still means
/// `--country GB` (with a note on standard error).
struct OwnerOptions: ParsableArguments {
    @Option(name: .long, help: "Only owners registered in this country (ISO 3166-1 alpha-2, e.g. GB, DE).", transform: parseCountry)
    var country: Country?

    @OptionGroup var regionOption: RegionOption

    func validate() throws { _ = try resolved() }

    func resolved() throws -> (country: Country?, region: PlateRegion?) {
        let (region, legacyCountry) = try regionOption.parsed(allowCountry: true)
        if let legacyCountry {
            if let country, country != legacyCountry {
                throw ValidationError("--region \(regionOption.region) names a country other than --country \(country).")
            }
            return (legacyCountry, nil)
        }
        return (country, region)
    }

    /// Says once, on standard error, that `--region CC` is now `--country CC`.
    func noteLegacy() {
        if (try? regionOption.parsed(allowCountry: true).country) != nil, let country = Country(rawValue: regionOption.region) {
            Console.err("seer: note: --region \(regionOption.region) is taken as --country \(country); --region is the plate grammar region (us, eu, br, auto)")
        }
    }
}

struct PlateResolve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Find the registered owner of a plate: an opaque recipient id, never a name or an email.",
        discussion: """
            PLATE is the plate as typed (checked as `seer plate normalize` checks it), or --photo PATH reads \
            the top plate of a photo (- for standard input; its other candidate readings are tried too; the \
            plate read is shown on standard error).
            Exact match on the canonical plate (A–Z, 0–9) first, then the reader's alternative candidates, \
            then confusion variants from the plate grammar (swaps such as O/0, I/1, B/8 that give a valid \
            plate there: the region given, else the owner country's, else every region).
            JSON: {"status":"resolved|ambiguous|notRegistered","recipient","plate","viaVariant","candidates"}; \
            a photo that cannot be read or holds no plate: {"file","error":{"code","message"}}.
            Exit codes: 0 resolved, 2 ambiguous, not registered or no plate in the photo, 1 the photo or the \
            store could not be read, 64 usage error.
            """)

    @Argument(help: "The plate as read or typed.")
    var plate: String?

    @Option(name: .long, help: "Read the plate from this photo instead (the top plate found; - for standard input).")
    var photo: String?

    @OptionGroup var owner: OwnerOptions

    @Option(name: .long, help: "An alternative reading (repeatable), best first.")
    var candidate: [String] = []

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if (plate == nil) == (photo == nil) { throw ValidationError("Give a plate or --photo PATH.") }
        if let plate { try validateTypedPlate(plate) }
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let format = output.format
        owner.noteLegacy()
        let (country, region) = try owner.resolved()
        let database = engine.storeOrExit(format: format)
        let resolution: PlateResolution
        do {
            if let photo {
                let input = Input(name: photo)
                let plates = try engine.readPlates(try input.bytes(limit: engine.configuration.decode.byteLimit), region: region ?? country?.plateRegion)
                guard let top = plates.first else {
                    Failures.print(FileFailure(file: photo, code: "noPlate", message: "No plate was found in the photo."), format: format)
                    throw ExitCode(2)
                }
                let others = top.candidates.dropFirst().map(\.text) + candidate
                Console.err("seer: \(photo): read \(top.text)\(others.isEmpty ? "" : " (or \(others.joined(separator: ", ")))")")
                resolution = try engine.resolvePlate(top.text, country: country, region: region, candidates: others, store: database)
            } else {
                resolution = try engine.resolvePlate(plate ?? "", country: country, region: region, candidates: candidate, store: database)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Failures.exit(error, file: photo ?? plate ?? "", format: format)
        }
        switch format {
        case .json: Console.jsonLine(resolution)
        case .text:
            switch resolution.status {
            case .resolved:
                Console.out("resolved: recipient \(resolution.recipient ?? "") (plate \(resolution.plate ?? "")\(resolution.viaVariant ? ", via a confusion variant" : ""))")
            case .ambiguous: Console.out("ambiguous: \(resolution.candidates.joined(separator: ", "))")
            case .notRegistered: Console.out("notRegistered")
            }
        }
        if resolution.status != .resolved { throw ExitCode(2) }
    }
}

struct PlateMessage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Leave a message for a plate's owner: a preset or a custom text of at most 140 characters.",
        discussion: """
            The plate is checked as `seer plate normalize` checks it. The sender learns only that the message \
            was delivered. Presets: blocking, damage, lights, tow, window.
            JSON: {"status":"delivered"}, or {"file","error":{"code","message"}} (file: the plate).
            Exit codes: 0 delivered, 1 not delivered (bad text, plate not registered or ambiguous), 64 usage error.
            """)

    @Argument(help: "The plate.")
    var plate: String

    @Option(name: .long, help: "A preset message id.")
    var preset: String?

    @Option(name: .long, help: "A custom text (at most 140 characters).")
    var text: String?

    @OptionGroup var owner: OwnerOptions
    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if (preset == nil) == (text == nil) { throw ValidationError("Give either --preset ID or --text TEXT.") }
        try validateTypedPlate(plate)
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        owner.noteLegacy()
        let (country, region) = try owner.resolved()
        do {
            let receipt = try engine.sendPlateMessage(
                to: plate, country: country, region: region, preset: preset, text: text, at: Date().timeIntervalSince1970,
                store: try engine.store())
            switch output.format {
            case .json: Console.jsonLine(receipt)
            case .text: Console.out(receipt.status)
            }
        } catch {
            Failures.exit(error, file: plate, format: output.format)
        }
    }
}

struct PlateInbox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox", abstract: "Show a recipient's messages, newest first.",
        discussion: #"JSON: one {"id","recipient","text","preset","sentAt"} per line. Exit codes: 0 shown, 1 the store failed."#)

    @Argument(help: "The recipient id.")
    var recipient: String

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let messages: [InboxMessage]
        do {
            messages = try engine.store().inbox(recipient: recipient)
        } catch {
            Failures.exit(error, file: "", format: output.format)
        }
        let formatter = ISO8601DateFormatter()
        for message in messages {
            switch output.format {
            case .json: Console.jsonLine(message)
            case .text: Console.out("\(formatter.string(from: Date(timeIntervalSince1970: message.sentAt)))  \(message.text)")
            }
        }
    }
}
