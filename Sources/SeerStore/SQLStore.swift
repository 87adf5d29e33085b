import Foundation
import SeerVerify

/// The store, written once over a SQL database: ``SQLiteStore`` (one file, embedded) and
/// `PostgresStore` (module `SeerPostgres`: one database shared by any number of processes).
///
/// The databases differ in a handful of places, each named by ``SQLDialect``:
/// - Full-text search. SQLite: an FTS5 index over every text field, written in groups
///   (``SearchIndex``). PostgreSQL: a stored `tsvector` of the same words, plus the category and
///   verdict as tokens of their own, with a GIN index; a page of search results is looked for first
///   among the newest scans (a frequent word fills it there), else through the index.
/// - Saving a verification. SQLite takes the database for the transaction (`BEGIN IMMEDIATE`) and
///   saves each scan as it goes. PostgreSQL takes a transaction-scoped advisory lock on each item
///   (GTIN and serial) a call reads the history of, in one order, so two processes verifying one
///   item one after the other each see the other's scan and never wait on each other in a cycle;
///   it reads the items' serials and history in two statements and saves the scans in one.
/// - Rows a write refers to are read `FOR KEY SHARE` on PostgreSQL, so they cannot go meanwhile.
public final class SQLStore<Backend: SQLBackend>: SeerStore {
    /// The database.
    public let backend: Backend
    var dialect: SQLDialect { backend.dialect }

    /// A store over `backend` (already migrated).
    public init(backend: Backend) {
        self.backend = backend
    }

    // MARK: Access

    /// Runs a database access, turning every failure into a ``StoreError`` that says what was being
    /// done (import errors and typed plate errors pass through as they are).
    package func guarded<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error where error is StoreError || error is ImportError || error is PlateTextError {
            throw error
        } catch {
            throw backend.storeError(error, doing: what)
        }
    }

    package func read<T>(_ what: String, _ body: (Backend.Connection) throws -> T) throws -> T {
        try guarded(what) { try backend.read(body) }
    }

    package func write<T>(_ what: String, _ body: (Backend.Connection) throws -> T) throws -> T {
        try guarded(what) { try backend.write(body) }
    }

    /// A read that searches the history. On SQLite, in one read when no scan waits to be indexed
    /// (the usual case), else after indexing those that wait; a store opened read-only searches the
    /// scans indexed when the file was last written.
    func searching<T>(_ what: String, when searches: Bool = true, _ body: (Backend.Connection) throws -> T) throws -> T {
        guard searches, dialect == .sqlite else { return try read(what, body) }
        return try guarded(what) {
            let first = try backend.read { db -> T? in try backend.isReadOnly || SearchIndex.waiting(db) == 0 ? body(db) : nil }
            if let first { return first }
            try backend.write { db in try SearchIndex.indexWaiting(db) }
            return try backend.read(body)
        }
    }

    /// Indexes the scans a SQLite writer left waiting, so that a search that follows sees them all.
    func indexWaitingScans() throws {
        guard dialect == .sqlite, !backend.isReadOnly, try backend.read({ db in try SearchIndex.waiting(db) }) > 0 else { return }
        try backend.write { db in try SearchIndex.indexWaiting(db) }
    }

    // MARK: Registry import

    public func importRegistry(_ files: [(name: String, data: Data)]) throws -> ImportSummary {
        let decoded = try files.map { (name: $0.name, file: try RegistryImporter.decode(name: $0.name, data: $0.data)) }
        return try write("Importing the registry") { db in try RegistryImporter(db: db, files: decoded).run() }
    }

    // MARK: Verification

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool
    ) throws -> [Verification] {
        let batchID = save && mode == .batch ? UUID().uuidString.lowercased() : nil
        func run(_ db: Backend.Connection) throws -> [Verification] {
            try verifyAll(inputs, context: context, mode: mode, verifier: verifier, save: save, batchID: batchID, progress: nil, db).results
        }
        return try save ? write("Verifying", run) : read("Verifying", run)
    }

    /// Verifies `inputs` in the caller's read or transaction and, with `save`, saves a scan of each.
    /// Repeats are flagged by `progress`'s trackers when given (returned with what the call saw),
    /// else by the call's own.
    func verifyAll(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool, batchID: String?,
        progress: BatchProgress?, _ db: Backend.Connection
    ) throws -> (results: [Verification], seen: BatchProgress) {
        let lookup = DatabaseLookup(db: db)
        if dialect == .postgres {
            var items: [(gtin: String, serial: String)] = []
            for input in inputs {
                guard case .product(let code) = PayloadParser.parse(input.payload), let serial = code.serial else { continue }
                items.append((code.gtin, serial))
            }
            if save { try lockItems(items, db) }
            try lookup.prefetch(items, since: context.time - verifier.configuration.windowSeconds)
        }
        // Repeats: within the run (`progress`), else within the call; a photo's repeats always.
        var seen = progress ?? BatchProgress(id: "", key: "", processed: 0, resumed: false)
        let batchRepeats = progress != nil || mode == .batch
        var results: [Verification] = []
        results.reserveCapacity(inputs.count)
        var pending: [ScanRecord] = []
        var lastSaved: Int64?
        for input in inputs {
            var duplicate = batchRepeats ? seen.batch.check(input.payload) : nil
            if duplicate == nil, let file = input.sourceFile {
                duplicate = seen.photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
            }
            var result = try verifier.verify(input.payload, context: context, registry: lookup, history: lookup, duplicate: duplicate)
            result.source = input.sourceFile
            result.symbology = input.symbology
            result.line = input.line
            if save {
                let record = ScanRecord(
                    result, context: context, mode: mode, sourceFile: input.sourceFile, symbology: input.symbology, batchID: batchID)
                if dialect == .postgres {
                    pending.append(record)
                    if let gtin = record.gtin, let serial = record.serial {
                        let scan = PriorScan(time: record.time, device: record.device, country: record.country, latitude: record.latitude, longitude: record.longitude)
                        lookup.saved(gtin: gtin, serial: serial, scan)
                    }
                } else {
                    result.scanID = try db.insert(Schema.insertScan, record.values)
                    lastSaved = result.scanID
                }
            }
            results.append(result)
        }
        if !pending.isEmpty {
            // Saved at once; ids come in the order the rows were written.
            let ids = try insertMany("scan", Array(Schema.scanColumns.dropFirst()), pending.map { Array($0.values.dropFirst()) }, returningIDs: true, db)
            for (index, id) in zip(results.indices, ids) { results[index].scanID = id }
        }
        if let lastSaved { try SearchIndex.saved(through: lastSaved, db) }
        return (results, seen)
    }

    /// Takes PostgreSQL's advisory locks for the items a call verifies, in one order.
    func lockItems(_ items: [(gtin: String, serial: String)], _ db: Backend.Connection) throws {
        let keys = Set(items.map { Self.itemLock(gtin: $0.gtin, serial: $0.serial) })
        guard !keys.isEmpty else { return }
        let list = keys.sorted().map(String.init).joined(separator: ",")
        try db.execute("SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(ARRAY[\(list)]::bigint[]) AS k ORDER BY k) AS items", [])
    }

    /// A 64-bit key for an item (FNV-1a of GTIN and serial); a collision only makes two items wait
    /// for each other.
    static func itemLock(gtin: String, serial: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (gtin + "\u{1D}" + serial).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Inserts rows many per statement; with `returningIDs`, their new ids in the order written.
    package func insertMany(_ table: String, _ columns: [String], _ rows: [[SQLValue]], returningIDs: Bool, _ db: Backend.Connection) throws -> [Int64] {
        let perStatement = max(1, 30_000 / columns.count)
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        var ids: [Int64] = []
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            let sql = "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES " + Array(repeating: tuple, count: chunk.count).joined(separator: ", ")
            guard returningIDs else {
                try db.execute(sql, Array(chunk.joined()))
                continue
            }
            // One statement draws its ids from the sequence in the order it writes the rows.
            let chunkIDs = try db.rows(sql + " RETURNING id", Array(chunk.joined())).map { row -> Int64 in try row.required("id", of: "A saved scan") }
            guard chunkIDs.count == chunk.count else { throw StoreError(code: "database", message: "Saved rows got no ids.") }
            ids += chunkIDs.sorted()
        }
        return ids
    }

    // MARK: Batch runs

    public func beginBatch(key: String, resume: Bool, at time: Double) throws -> BatchProgress {
        try write("Starting a batch") { db in
            if resume,
                let row = try db.row(
                    "SELECT id, processed FROM batchRun WHERE key = ? AND finished = 0 ORDER BY startedAt DESC LIMIT 1\(dialect.forUpdate)", [.text(key)])
            {
                let id: String = try row.required("id", of: "A batch run")
                var progress = BatchProgress(id: id, key: key, processed: try row.required("processed", of: "Batch \(id)"), resumed: true)
                for saved in try db.rows("SELECT gtin, serial, sourceFile FROM scan WHERE batchID = ? ORDER BY id", [.text(id)]) {
                    guard let gtin = try saved.optional("gtin", of: "A scan of batch \(id)") as String?,
                        let serial = try saved.optional("serial", of: "A scan of batch \(id)") as String?
                    else { continue }
                    progress.batch.remember(gtin: gtin, serial: serial)
                    if let file = try saved.optional("sourceFile", of: "A scan of batch \(id)") as String? {
                        progress.photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].remember(gtin: gtin, serial: serial)
                    }
                }
                return progress
            }
            let id = UUID().uuidString.lowercased()
            try db.execute("INSERT INTO batchRun(id, key, startedAt, processed, finished) VALUES (?, ?, ?, 0, 0)", [.text(id), .text(key), .real(time)])
            return BatchProgress(id: id, key: key, processed: 0, resumed: false)
        }
    }

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, verifier: Verifier, progress: inout BatchProgress
    ) throws -> [Verification] {
        let start = progress
        let (results, seen) = try write("Saving a batch") { db in
            let verified = try verifyAll(
                inputs, context: context, mode: .batch, verifier: verifier, save: true, batchID: start.id, progress: start, db)
            try db.execute("UPDATE batchRun SET processed = ? WHERE id = ?", [.integer(Int64(start.processed + inputs.count)), .text(start.id)])
            return verified
        }
        progress = seen
        progress.processed += inputs.count
        return results
    }

    public func finishBatch(_ progress: BatchProgress) throws {
        try write("Finishing a batch") { db in try db.execute("UPDATE batchRun SET finished = 1 WHERE id = ?", [.text(progress.id)]) }
    }

    public func record(_ scans: [ScanRecord]) throws {
        try write("Saving scans") { db in
            guard dialect == .sqlite else {
                // Scans with ids keep them; the others get new ones, many per statement.
                try insertScans(scans.filter { $0.id != nil }, db)
                try insertScans(scans.filter { $0.id == nil }, db)
                if scans.contains(where: { $0.id != nil }) { try resetIdentity("scan", db) }
                return
            }
            // Many scans at once: indexed in the same transaction.
            let through = try SearchIndex.indexedThrough(db)
            for scan in scans {
                let id = try db.insert(Schema.insertScan, scan.values)
                if let given = scan.id, given <= through { try SearchIndex.indexOne(id, db) }
            }
            try SearchIndex.indexWaiting(db)
        }
    }

    /// Inserts scans (with their ids when they all have them), many per statement.
    package func insertScans(_ scans: [ScanRecord], _ db: Backend.Connection) throws {
        let withIDs = scans.allSatisfy { $0.id != nil }
        _ = try insertMany(
            "scan", withIDs ? Schema.scanColumns : Array(Schema.scanColumns.dropFirst()),
            scans.map { withIDs ? $0.values : Array($0.values.dropFirst()) }, returningIDs: false, db)
    }

    /// Moves a PostgreSQL table's id sequence past its highest id (after rows were saved with their own ids).
    package func resetIdentity(_ table: String, _ db: Backend.Connection) throws {
        try db.execute(
            "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), GREATEST((SELECT MAX(id) FROM \(table)), 1), (SELECT MAX(id) IS NOT NULL FROM \(table)))",
            [])
    }

    // MARK: History

    /// The words of user text as both search indexes split them.
    static func words(_ text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// A lexeme quoted for a PostgreSQL text-search query.
    static func quoted(_ lexeme: String) -> String {
        "'" + lexeme.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The search expression for user text (each word a prefix, all required), narrowed by the
    /// filters the index also holds (the SQL clauses stay for exactness); nil when it has no words.
    func searchExpression(_ query: HistoryQuery) -> String? {
        let words = Self.words(query.search ?? "")
        guard !words.isEmpty else { return nil }
        let authentic: String
        var expression: String
        switch dialect {
        case .sqlite:
            expression = "(" + words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ") + ")"
            let category = Self.words(query.category ?? "")
            if !category.isEmpty { expression += " AND category : \"" + category.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            authentic = "verdict : authentic"
        case .postgres:
            expression = "(" + words.map { Self.quoted($0.lowercased()) + ":*" }.joined(separator: " & ") + ")"
            if let category = query.category { expression += " & " + Self.quoted("#c=" + category.lowercased()) }
            authentic = Self.quoted("#v=authentic")
        }
        let (and, not) = dialect == .sqlite ? (" AND ", " NOT ") : (" & ", " & !")
        switch query.result {
        case .all: break
        case .success: expression += and + authentic
        case .failed: expression += not + authentic
        }
        return expression
    }

    /// What a query selects from: the tables, the WHERE clause (or nothing) with its arguments, and
    /// whether it searches.
    func selection(_ query: HistoryQuery, _ db: Backend.Connection) throws -> (from: String, whereSQL: String, arguments: [SQLValue], searches: Bool) {
        var (from, clauses, arguments) = ("scan", [String](), [SQLValue]())
        let period = try query.period ?? (try setting("history.period", db)).flatMap(Period.init(rawValue:)) ?? .all
        let since = period.seconds.map { query.now - $0 }
        let expression = searchExpression(query)
        if let expression, dialect == .sqlite {
            from = "scanSearch CROSS JOIN scan ON scan.id = scanSearch.rowid"
            var minimumID: Int64 = 0
            if let since { minimumID = try db.value("SELECT MIN(id) FROM scan INDEXED BY scan_time WHERE time >= ?", [.real(since)]) ?? .max }
            clauses.append("scanSearch MATCH ? AND scanSearch.rowid >= ?")
            arguments += [.text(expression), .integer(minimumID)]
        } else if let expression {
            clauses.append("scan.search @@ ?::tsquery")
            arguments.append(.text(expression))
        }
        switch query.result {
        case .all: break
        case .success: clauses.append("scan.verdict = 'authentic'")
        case .failed: clauses.append("scan.verdict <> 'authentic'")
        }
        if let category = query.category {
            clauses.append(dialect.categoryEquals)
            arguments.append(.text(category))
        }
        if let device = query.device {
            clauses.append("scan.device = ?")
            arguments.append(.text(device))
        }
        if let since {
            clauses.append("scan.time >= ?")
            arguments.append(.real(since))
        }
        return (from, clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "), arguments, expression != nil)
    }

    /// Scans a PostgreSQL search first looks among: the newest this many.
    static var searchWindow: Int { 5_000 }

    public func history(_ query: HistoryQuery) throws -> HistoryPage {
        let limit = max(1, query.limit)
        let offset = max(0, query.offset)
        let rows = try searching("Reading the history", when: query.search != nil) { db -> [SQLRow] in
            let (from, whereSQL, arguments, searches) = try selection(query, db)
            // SQLite's FTS5 yields rowids newest first by itself, so a page ordered by them stops
            // early; ordered by scan.id, every match would be sorted first.
            let order = searches && dialect == .sqlite ? "scanSearch.rowid" : "scan.id"
            let rest = whereSQL + " ORDER BY \(order) DESC LIMIT ? OFFSET ?"
            let page = arguments + [.integer(Int64(limit + 1)), .integer(Int64(offset))]
            let select = "SELECT \(Schema.scanSelect) FROM "
            guard searches, dialect == .postgres else { return try db.rows(select + from + rest, page) }
            // The newest scans first: when they hold the whole page (and one more), it is the page,
            // whatever older scans match.
            let newest = try db.rows(select + "(SELECT * FROM scan ORDER BY id DESC LIMIT \(Self.searchWindow)) AS scan" + rest, page)
            if newest.count > limit { return newest }
            // Rare words: through the index, then sorted (walking the whole table newest first,
            // which the planner may prefer for words it guesses to be common, is what the first look
            // already did).
            return try db.transaction {
                try db.execute("SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)", [])
                return try db.rows(select + from + rest, page)
            }
        }
        var scans = try rows.map(ScanRecord.init(row:))
        let hasMore = scans.count > limit
        if hasMore { scans.removeLast() }
        return HistoryPage(scans: scans, hasMore: hasMore, nextOffset: hasMore ? offset + limit : nil)
    }

    public func scan(id: Int64) throws -> ScanDetails? {
        try read("Reading scan #\(id)") { db in
            guard let row = try db.row("SELECT \(Schema.scanSelect) FROM scan WHERE id = ?", [.integer(id)]) else { return nil }
            let reports = try db.rows("SELECT id, scan, reason, reportedAt FROM report WHERE scan = ? ORDER BY id", [.integer(id)]).map { row in
                guard let reportedAt = row.get("reportedAt", as: Double.self), let reportID = row.get("id", as: Int64.self) else {
                    throw StoreError.damaged("A report on scan #\(id) in the database is damaged.")
                }
                var report = CounterfeitReport(scan: id, reason: row.get("reason"), reportedAt: reportedAt)
                report.id = reportID
                return report
            }
            return ScanDetails(scan: try ScanRecord(row: row), reports: reports)
        }
    }

    public func report(scanID: Int64, reason: String?, at time: Double) throws -> CounterfeitReport {
        try write("Reporting scan #\(scanID)") { db in
            guard try db.exists("SELECT 1 FROM scan WHERE id = ?\(dialect.keyShare)", [.integer(scanID)]) else {
                throw StoreError(code: "notFound", message: "There is no scan #\(scanID).")
            }
            var report = CounterfeitReport(scan: scanID, reason: reason, reportedAt: time)
            report.id = try db.insert("INSERT INTO report(scan, reason, reportedAt) VALUES (?, ?, ?)", [.integer(scanID), reason.sqlValue, .real(time)])
            return report
        }
    }

    public func suggestions(prefix: String, limit: Int) throws -> [String] {
        let lowered = prefix.lowercased().trimmingCharacters(in: .whitespaces)
        guard !lowered.isEmpty else { return [] }
        return try searching("Reading search suggestions") { db in
            switch dialect {
            case .sqlite:
                return try db.rows(
                    "SELECT term FROM scanSearchVocab WHERE term >= ? AND term < ? ORDER BY doc DESC, term LIMIT ?",
                    [.text(lowered), .text(lowered + "\u{10FFFF}"), .integer(Int64(limit))]
                ).compactMap { $0.get("term") }
            case .postgres:
                // Terms of the newest scans' search vectors: suggestions follow what is being scanned
                // now without reading the whole history.
                let pattern = lowered.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_") + "%"
                return try db.rows(
                    """
                    SELECT term, count(*) AS docs FROM (
                        SELECT unnest(tsvector_to_array(search)) AS term FROM (
                            SELECT search FROM scan ORDER BY id DESC LIMIT \(Self.searchWindow)) AS newest) AS terms
                    WHERE term LIKE ? AND term NOT LIKE '#%' GROUP BY term ORDER BY docs DESC, term COLLATE "C" LIMIT ?
                    """, [.text(pattern), .integer(Int64(limit))]
                ).compactMap { $0.get("term") }
            }
        }
    }

    public func rememberSearch(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        try write("Remembering a search") { db in
            try db.execute(
                "INSERT INTO recentSearch(text, usedAt) VALUES (?, ?) ON CONFLICT (text) DO UPDATE SET usedAt = excluded.usedAt",
                [.text(trimmed), .real(Date().timeIntervalSince1970)])
            // Keep the newest 50.
            let order = dialect.insertionOrder
            try db.execute("DELETE FROM recentSearch WHERE text NOT IN (SELECT text FROM recentSearch ORDER BY usedAt DESC, \(order) DESC LIMIT 50)", [])
        }
    }

    public func recentSearches(limit: Int) throws -> [String] {
        try read("Reading recent searches") { db in
            try db.rows("SELECT text FROM recentSearch ORDER BY usedAt DESC, \(dialect.insertionOrder) DESC LIMIT ?", [.integer(Int64(limit))])
                .compactMap { $0.get("text") }
        }
    }

    public func statistics(_ query: HistoryQuery) throws -> Statistics {
        try searching("Counting scans", when: query.search != nil) { db in
            let (from, whereSQL, arguments, _) = try selection(query, db)
            func counts(_ key: String, order: String, valid: (String) -> Bool) throws -> [Statistics.Count] {
                let sql = "SELECT \(dialect.byteOrdered(key)) AS k, COUNT(*) AS n FROM \(from)\(whereSQL) GROUP BY k ORDER BY \(order)"
                return try db.rows(sql, arguments).map { row in
                    guard let key = row.get("k", as: String.self), valid(key), let count = row.get("n", as: Int.self) else { throw try damage(db) }
                    return Statistics.Count(key: key, count: count)
                }
            }
            let byVerdict = try counts("scan.verdict", order: "n DESC, k") { Verdict(rawValue: $0) != nil }
            let reported: Int = try db.value("SELECT COUNT(DISTINCT scan.id) FROM \(from) JOIN report ON report.scan = scan.id\(whereSQL)", arguments) ?? 0
            return Statistics(
                total: byVerdict.reduce(0) { $0 + $1.count }, reported: reported, byVerdict: byVerdict,
                byCategory: try counts("COALESCE(scan.category, 'uncategorised')", order: "n DESC, k") { _ in true },
                perDay: try counts(dialect.day, order: "k") { _ in true })
        }
    }

    /// The error for the first damaged scan: one whose verdict, time or category cannot be counted
    /// (or, failing that, any row that does not read as a scan).
    func damage(_ db: Backend.Connection) throws -> StoreError {
        let verdicts = Verdict.allCases.map { "'\($0.rawValue)'" }.joined(separator: ",")
        let types =
            dialect == .postgres ? ""
            : " OR typeof(time) NOT IN ('integer', 'real') OR date(time, 'unixepoch') IS NULL OR (category IS NOT NULL AND typeof(category) <> 'text')"
        let sql = "SELECT \(Schema.scanSelect) FROM scan WHERE verdict IS NULL OR verdict NOT IN (\(verdicts))\(types) ORDER BY id LIMIT 1"
        guard let suspect = try db.row(sql, []) else { return StoreError.damaged("A scan in the database is damaged and cannot be counted.") }
        do {
            _ = try ScanRecord(row: suspect)
        } catch let error as StoreError {
            return error
        }
        let id = suspect.get("id", as: Int64.self).map(String.init) ?? "?"
        return StoreError.damaged("Scan #\(id) in the database is damaged: its verdict, time or category cannot be counted.")
    }

    // MARK: Plates, messages, chargers, settings

    public func addUser(_ owner: PlateOwner) throws {
        try write("Adding a user") { db in
            let inserted = try db.row(
                "INSERT INTO plateOwner(id, name, email, plate, canonicalPlate, region) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
                [.text(owner.id), .text(owner.name), .text(owner.email), .text(owner.plate), .text(PlateText.canonical(owner.plate)), .text(owner.country.rawValue)])
            if inserted == nil { throw StoreError(code: "duplicate", message: "The recipient id \(owner.id) is taken.") }
        }
    }

    public func userExists(id: String) throws -> Bool {
        try read("Looking up a user") { db in try db.exists("SELECT 1 FROM plateOwner WHERE id = ?", [.text(id)]) }
    }

    public func charger(id: String) throws -> Charger? {
        try read("Looking up charger \(id)") { db in try DatabaseLookup(db: db).charger(id: id) }
    }

    public func resolvePlate(
        _ text: String, country: Country?, region: PlateRegion?, candidates: [String], resolver: PlateResolver
    ) throws -> PlateResolution {
        try read("Looking up a plate") { db in
            try resolver.resolve(text, country: country, region: region, candidates: candidates, in: DatabaseLookup(db: db))
        }
    }

    public func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt {
        try write("Delivering a message") { db in
            guard try db.exists("SELECT 1 FROM plateOwner WHERE id = ?\(dialect.keyShare)", [.text(recipient)]) else {
                throw StoreError(code: "unknownRecipient", message: "No recipient \(recipient).")
            }
            try db.execute(
                "INSERT INTO inbox(recipient, text, preset, sentAt) VALUES (?, ?, ?, ?)", [.text(recipient), .text(text), preset.sqlValue, .real(time)])
        }
        return DeliveryReceipt()
    }

    public func inbox(recipient: String) throws -> [InboxMessage] {
        try read("Reading the inbox") { db in
            try db.rows("SELECT id, recipient, text, preset, sentAt FROM inbox WHERE recipient = ? ORDER BY sentAt DESC, id DESC", [.text(recipient)])
                .map { row in
                    let record = "A message to \(recipient)"
                    var message = InboxMessage(
                        recipient: try row.required("recipient", of: record), text: try row.required("text", of: record),
                        preset: try row.optional("preset", of: record), sentAt: try row.required("sentAt", of: record))
                    message.id = try row.optional("id", of: record)
                    return message
                }
        }
    }

    public func setting(_ key: String) throws -> String? {
        try read("Reading a setting") { db in try setting(key, db) }
    }

    func setting(_ key: String, _ db: Backend.Connection) throws -> String? {
        try db.row("SELECT value FROM setting WHERE key = ?", [.text(key)])?.get("value")
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try write("Saving a setting") { db in
            try db.execute("INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [.text(key), .text(value)])
        }
    }
}
