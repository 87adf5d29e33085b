import ArgumentParser
import Foundation
import Seer

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report the product of a saved scan as counterfeit.",
        discussion: """
            ID is the scan's id (JSON "scanID" of seer verify, "id" in seer history). The report is stored \
            with the scan, shown by seer history --id ID, and counted by seer stats as "reported". A scan \
            may be reported more than once. The reason has at most 500 characters.
            JSON: {"id","scan","reason","reportedAt"}; a failure: {"file":"ID","error":{"code","message"}} \
            (notFound for an unknown scan).
            Exit codes: 0 reported, 1 no such scan, a bad reason or the store failed, 64 usage error.
            """)

    @Argument(help: "The scan's id.")
    var id: Int64

    @Option(name: .long, help: "Why the product is thought counterfeit.")
    var reason: String?

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if id <= 0 { throw ValidationError("A scan id is a positive number.") }
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        do {
            let report = try engine.reportCounterfeit(scanID: id, reason: reason, at: Date().timeIntervalSince1970, store: engine.store())
            switch output.format {
            case .json: Console.jsonLine(report)
            case .text: Console.out("reported scan #\(id) as counterfeit")
            }
        } catch {
            Failures.exit(error, file: String(id), format: output.format)
        }
    }
}
