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
            Exact match on the canonical plate (A–Z, 0–9) first, then the reader's alternative candidates, \
            then confusion variants (0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B, 6/G, 4/A, 7/T).
            JSON: {"status":"resolved|ambiguous|notRegistered","recipient","plate","viaVariant","candidates"}.
            Exit codes: 0 resolved, 2 ambiguous or not registered, 64 usage error.
            """)

    @Argument(help: "The plate as read or typed.")
    var plate: String

    @Option(name: .long, help: "Region (e.g. GB, DE); any region when omitted.")
    var region: String?

    @Option(name: .long, help: "An alternative reading (repeatable), best first.")
    var candidate: [String] = []

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func run() throws {
        let engine = Engine()
        let resolution = try engine.resolvePlate(plate, region: region, candidates: candidate, store: try store.open(engine))
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
