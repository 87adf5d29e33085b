import ArgumentParser
import Foundation
import Seer

extension ResultFilter: ExpressibleByArgument {}
extension Period: ExpressibleByArgument {}

/// Filters shared by `seer history` and `seer stats`.
struct HistoryFilters: ParsableArguments {
    @Option(name: .long, help: "all, success (authentic) or failed (anything else).")
    var result: ResultFilter = .all

    @Option(name: .long, help: "Only this product category.")
    var category: String?

    @Option(name: .long, help: "day, week, month or all (default: the history.period setting, else all).")
    var period: Period?

    @Option(name: .long, help: "Full-text search over every field; each word matches as a prefix.")
    var search: String?

    func query(limit: Int = 50, offset: Int = 0) -> HistoryQuery {
        HistoryQuery(result: result, category: category, period: period, search: search, limit: limit, offset: offset)
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List saved scans, newest first, with filters and full-text search.",
        discussion: """
            --suggest PREFIX prints search terms starting with PREFIX (live suggestions); --recent prints \
            recent searches; --set-default-period sets the period used when --period is not given.
            JSON: {"scans":[…],"hasMore","nextOffset"}; each scan has every field of the history.
            """)

    @OptionGroup var filters: HistoryFilters

    @Option(name: .long, help: "Page size.")
    var limit: Int = 50

    @Option(name: .long, help: "Rows to skip (from a previous page's nextOffset).")
    var offset: Int = 0

    @Option(name: .long, help: "Print search suggestions for this prefix.")
    var suggest: String?

    @Flag(name: .long, help: "Print recent searches, most recent first.")
    var recent = false

    @Option(name: .long, help: "Make this period the default (day, week, month, all).")
    var setDefaultPeriod: Period?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if limit <= 0 { throw ValidationError("--limit must be positive.") }
        if offset < 0 { throw ValidationError("--offset cannot be negative.") }
    }

    func run() throws {
        let database = try store.open(Engine())
        if let period = setDefaultPeriod {
            try database.setSetting("history.period", period.rawValue)
            Console.err("seer: default history period is now \(period.rawValue)")
            return
        }
        if let suggest {
            let terms = try database.suggestions(prefix: suggest, limit: 10)
            switch format {
            case .json: Console.jsonLine(terms)
            case .text: terms.forEach(Console.out)
            }
            return
        }
        if recent {
            let searches = try database.recentSearches(limit: 20)
            switch format {
            case .json: Console.jsonLine(searches)
            case .text: searches.forEach(Console.out)
            }
            return
        }
        if let search = filters.search { try database.rememberSearch(search) }
        let page = try database.history(filters.query(limit: limit, offset: offset))
        switch format {
        case .json: Console.jsonLine(page)
        case .text:
            let formatter = ISO8601DateFormatter()
            for scan in page.scans {
                var line = "#\(scan.id ?? 0) \(formatter.string(from: Date(timeIntervalSince1970: scan.time))) \(scan.verdict.rawValue)"
                if let name = scan.productName { line += " \(name)" }
                if let serial = scan.serial { line += " serial \(serial)" }
                if !scan.reasons.isEmpty { line += " [" + scan.reasons.map(\.rawValue).joined(separator: ",") + "]" }
                if let source = scan.sourceFile { line += " \(source)" }
                Console.out(line)
            }
            if let next = page.nextOffset { Console.err("seer: more with --offset \(next)") }
        }
    }
}
