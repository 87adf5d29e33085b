import ArgumentParser
import Foundation
import Seer

extension ResultFilter: ExpressibleByArgument {}
extension Period: ExpressibleByArgument {}

/// Filters shared by `seer history` and `seer stats`.
struct HistoryFilters: ParsableArguments {
    @Option(name: .long, help: "all, success (authentic) or failed (anything else).")
    var result: ResultFilter = .all

    @Option(name: .long, help: "Only this product category (case is ignored).")
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
            --id ID prints one scan with every field and the counterfeit reports made on it (seer report). \
            --suggest PREFIX prints search terms starting with PREFIX (live suggestions); --recent prints \
            recent searches; --set-default-period sets the period used when --period is not given. A search \
            has at most 256 characters and a page at most 1000 scans.
            JSON: {"scans":[…],"hasMore","nextOffset"}; each scan has every field of the history. With --id: \
            the scan's fields and "reports":[{"id","scan","reason","reportedAt"}]. A failure: \
            {"file":"","error":{"code","message"}} (damagedRow names the scan, notFound an unknown id).
            Exit codes: 0 printed, 1 no such scan or the store failed (a damaged row included), 64 usage error.
            """)

    @Option(name: .long, help: "Print this scan with every field and its reports.")
    var id: Int64?

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

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    var format: OutputFormat { output.format }

    func validate() throws {
        if limit <= 0 { throw ValidationError("--limit must be positive.") }
        if offset < 0 { throw ValidationError("--offset cannot be negative.") }
        if let search = filters.search, search.count > Engine.Limits().searchCharacters {
            throw ValidationError("--search has at most \(Engine.Limits().searchCharacters) characters.")
        }
        if limit > Engine.Limits().pageSize { throw ValidationError("--limit is at most \(Engine.Limits().pageSize).") }
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let database = engine.storeOrExit(format: format)
        do {
            try list(engine, database)
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }

    func list(_ engine: Engine, _ database: any SeerStore) throws {
        if let id {
            let details = try engine.scanDetails(id: id, store: database)
            switch format {
            case .json: Console.jsonLine(details)
            case .text: Self.describe(details)
            }
            return
        }
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
        let page = try engine.history(filters.query(limit: limit, offset: offset), store: database)
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

    /// Every field of one scan, one `key: value` a line, then its reports.
    static func describe(_ details: ScanDetails) {
        let scan = details.scan
        let formatter = ISO8601DateFormatter()
        var fields: [(String, String?)] = [
            ("id", scan.id.map(String.init)), ("time", formatter.string(from: Date(timeIntervalSince1970: scan.time))),
            ("verdict", scan.verdict.rawValue), ("reasons", scan.reasons.map(\.rawValue).joined(separator: ", ")),
            ("payload", scan.payload), ("format", scan.format?.rawValue), ("gtin", scan.gtin), ("serial", scan.serial),
            ("lot", scan.lot), ("expiry", scan.expiry), ("productName", scan.productName), ("brand", scan.brand),
            ("category", scan.category), ("mode", scan.mode.rawValue), ("device", scan.device), ("sourceFile", scan.sourceFile),
            ("symbology", scan.symbology), ("country", scan.country), ("latitude", scan.latitude.map { "\($0)" }),
            ("longitude", scan.longitude.map { "\($0)" }), ("batchID", scan.batchID),
        ]
        if let notes = scan.notes { fields.append(("notes", notes.replacingOccurrences(of: "\n", with: " / "))) }
        for (key, value) in fields {
            Console.out("\(key.padding(toLength: 12, withPad: " ", startingAt: 0)) \(value ?? "-")")
        }
        Console.out("reports      \(details.reports.count)")
        for report in details.reports {
            Console.out("  \(formatter.string(from: Date(timeIntervalSince1970: report.reportedAt)))  \(report.reason ?? "(no reason given)")")
        }
    }
}
