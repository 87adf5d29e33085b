import ArgumentParser
import Foundation
import Seer

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Totals of saved scans by verdict, by category and per day.",
        discussion: #"JSON: {"total","byVerdict":[{"key","count"}],"byCategory":[…],"perDay":[…]}."#)

    @OptionGroup var filters: HistoryFilters

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func run() throws {
        let database = try store.open(Engine())
        let stats = try database.statistics(filters.query())
        switch format {
        case .json: Console.jsonLine(stats)
        case .text:
            Console.out("total \(stats.total)")
            for (title, counts) in [("by verdict", stats.byVerdict), ("by category", stats.byCategory), ("per day", stats.perDay)] {
                Console.out(title + ":")
                for count in counts { Console.out("  \(count.key.padding(toLength: 14, withPad: " ", startingAt: 0)) \(count.count)") }
            }
        }
    }
}
