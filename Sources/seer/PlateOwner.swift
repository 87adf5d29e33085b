import ArgumentParser
import Foundation
import Seer

/// `seer plate resolve`, `seer plate message`, `seer plate inbox`: plate to owner.
struct PlateOwnerCommands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plate", abstract: "Licence plates: find the owner's inbox and leave a message.",
        subcommands: [PlateResolve.self, PlateMessage.self, PlateInbox.self])
}

struct PlateResolve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Find the registered owner of a plate: an opaque recipient id, never a name or an email.",
        discussion: """
            PLATE is the plate as typed, or --photo PATH reads the top plate of a photo (its other candidate \
            readings are tried too; the plate read is shown on standard error).
            Exact match on the canonical plate (A–Z, 0–9) first, then the reader's alternative candidates, \
            then confusion variants from the region's plate grammar (swaps such as O/0, I/1, B/8 that give \
            a valid plate there), or the generic pairs (0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B, 6/G, 4/A, 7/T) when \
            the plate fits no format of the region.
            JSON: {"status":"resolved|ambiguous|notRegistered","recipient","plate","viaVariant","candidates"}; \
            a photo that cannot be read or holds no plate: {"file","error":{"code","message"}}.
            Exit codes: 0 resolved, 2 ambiguous, not registered or no plate in the photo, 1 the photo could \
            not be read, 64 usage error.
            """)

    @Argument(help: "The plate as read or typed.")
    var plate: String?

    @Option(name: .long, help: "Read the plate from this photo instead (the top plate found).")
    var photo: String?

    @Option(name: .long, help: "Region of the registered owner (e.g. GB, DE); any region when omitted. Also picks the plate grammar.")
    var region: String?

    @Option(name: .long, help: "An alternative reading (repeatable), best first.")
    var candidate: [String] = []

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if (plate == nil) == (photo == nil) { throw ValidationError("Give a plate or --photo PATH.") }
    }

    func run() throws {
        let engine = Engine()
        let database = try store.open(engine)
        let resolution: PlateResolution
        if let photo {
            OCRThreads.limitToOnePerWorker()
            let grammarRegion: PlateRegion?
            if case .grammar(let known) = GrammarPlateVariants.plateRegion(for: region) { grammarRegion = known } else { grammarRegion = nil }
            let plates: [PlateReading]
            do {
                plates = try engine.readPlates(contentsOf: photo, region: grammarRegion)
            } catch let error as ImageError {
                fail(FileFailure(file: photo, error), status: 1)
            } catch let error as PlateError {
                fail(FileFailure(file: photo, code: error.code.rawValue, message: error.message), status: 1)
            }
            guard let top = plates.first else {
                fail(FileFailure(file: photo, code: "noPlate", message: "No plate was found in the photo."), status: 2)
            }
            let others = top.candidates.dropFirst().map(\.text) + candidate
            Console.err("seer: \(photo): read \(top.text)\(others.isEmpty ? "" : " (or \(others.joined(separator: ", ")))")")
            resolution = try engine.resolvePlate(top.text, region: region, candidates: others, store: database)
        } else {
            resolution = try engine.resolvePlate(plate ?? "", region: region, candidates: candidate, store: database)
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

    func fail(_ failure: FileFailure, status: Int32) -> Never {
        switch format {
        case .json: Console.jsonLine(failure)
        case .text: Console.err("seer: \(failure.file): \(failure.error.code): \(failure.error.message)")
        }
        Self.exit(withError: ExitCode(status))
    }
}

struct PlateMessage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Leave a message for a plate's owner: a preset or a custom text of at most 140 characters.",
        discussion: """
            The sender learns only that the message was delivered. Presets: blocking, damage, lights, tow, window.
            JSON: {"status":"delivered"}.
            Exit codes: 0 delivered, 1 not delivered (bad text, plate not registered or ambiguous), 64 usage error.
            """)

    @Argument(help: "The plate.")
    var plate: String

    @Option(name: .long, help: "A preset message id.")
    var preset: String?

    @Option(name: .long, help: "A custom text (at most 140 characters).")
    var text: String?

    @Option(name: .long, help: "Region (e.g. GB).")
    var region: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if (preset == nil) == (text == nil) { throw ValidationError("Give either --preset ID or --text TEXT.") }
    }

    func run() throws {
        let engine = Engine()
        do {
            let receipt = try engine.sendPlateMessage(
                to: plate, region: region, preset: preset, text: text, at: Date().timeIntervalSince1970, store: try store.open(engine))
            switch format {
            case .json: Console.jsonLine(receipt)
            case .text: Console.out(receipt.status)
            }
        } catch let issue as PayloadIssue {
            switch format {
            case .json: Console.jsonLine(FileFailure(file: plate, code: issue.code, message: issue.message))
            case .text: Console.err("seer: \(issue.message)")
            }
            throw ExitCode(1)
        }
    }
}

struct PlateInbox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox", abstract: "Show a recipient's messages, newest first.",
        discussion: #"JSON: one {"id","recipient","text","preset","sentAt"} per line."#)

    @Argument(help: "The recipient id.")
    var recipient: String

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func run() throws {
        let messages = try store.open(Engine()).inbox(recipient: recipient)
        let formatter = ISO8601DateFormatter()
        for message in messages {
            switch format {
            case .json: Console.jsonLine(message)
            case .text: Console.out("\(formatter.string(from: Date(timeIntervalSince1970: message.sentAt)))  \(message.text)")
            }
        }
    }
}
