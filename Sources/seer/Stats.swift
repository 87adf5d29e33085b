import ArgumentParser
import Foundation
import Seer

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Totals of saved scans by verdict, by category and per day.",
        discussion: """
            JSON: {"total","reported","byVerdict":[{"key","count"}],"byCategory":[…],"perDay":[…]}; "reported" \
            counts the scans reported as counterfeit (seer report). A failure: {"file":"","error":{"code","message"}}.
            Exit codes: 0 printed, 1 the store failed (a damaged row included: the message names it), 64 usage error.
            """)

    @OptionGroup var filters: HistoryFilters
    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let search = filters.search, search.count > Engine.Limits().searchCharacters {
            throw ValidationError("--search has at most \(Engine.Limits().searchCharacters) characters.")
        }
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let format = output.format
        let stats: Statistics
        do {
            stats = try engine.statistics(filters.query(), store: engine.store())
        } catch {
            Failures.exit(error, file: "", format: format)
        }
        switch format {
        case .json: Console.jsonLine(stats)
        case .text:
            Console.out("total \(stats.total)")
            Console.out("reported \(stats.reported)")
            for (title, counts) in [("by verdict", stats.byVerdict), ("by category", stats.byCategory), ("per day", stats.perDay)] {
                Console.out(title + ":")
                for count in counts { Console.out("  \(count.key.padding(toLength: 14, withPad: " ", startingAt: 0)) \(count.count)") }
            }
        }
    }
}
