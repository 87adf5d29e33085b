import Foundation
import GRDB
import SeerVerify

/// The embedded store: one SQLite file in WAL mode, migrated on open, with FTS5 search over the history.
public final class SQLiteStore: SeerStore {
    let pool: any DatabaseWriter
    /// The database file.
    public let path: String
    /// Whether the store was opened read-only (it can be read; saving anything is a `readOnly` error).
    public let isReadOnly: Bool
    /// Tries of a write while another process holds the database, each waiting up to the busy
    /// timeout (5 s).
    let busyRetries = 6

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    /// A database that cannot be opened for writing (a read-only file or folder) is opened read-only.
    public convenience init(path: String) throws {
        try self.init(path: path, readOnly: false)
    }

    /// Opens the database at `path`; with `readOnly` (or when it cannot be written) only for reading.
    ///
    /// - Parameter maximumPages: a size limit in database pages (for tests of a full disk).
    package init(path: String, readOnly: Bool, maximumPages: Int? = nil) throws {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        if let maximumPages {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(maximumPages)") }
        }
        func openForReading() throws -> any DatabaseWriter {
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError(code: "cannotOpen", message: "Cannot open the database \(path): there is no such file.")
            }
            var readOnly = configuration
            readOnly.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: readOnly)
            guard try queue.read({ db in try Self.migrator.hasCompletedMigrations(db) }) else {
                throw StoreError(
                    code: "readOnly", message: "The database \(path) is read-only and was made by an older Seer: open it once with write access.")
            }
            return queue
        }
        do {
            if readOnly {
                pool = try openForReading()
                isReadOnly = true
                return
            }
            do {
                let directory = (path as NSString).deletingLastPathComponent
                if !directory.isEmpty {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                }
                let writable = try DatabasePool(path: path, configuration: configuration)
                try Self.migrator.migrate(writable)
                pool = writable
                isReadOnly = false
            } catch {
                // Not writable here (a read-only file, folder or file system): read what is there.
                guard FileManager.default.fileExists(atPath: path), let reader = try? openForReading() else { throw error }
                pool = reader
                isReadOnly = true
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(code: "cannotOpen", message: "Cannot open the database \(path): \(error.message ?? "\(error)")")
        } catch {
            throw StoreError(code: "cannotOpen", message: "Cannot open the database \(path): \(error.localizedDescription)")
        }
        // Scans a writer left unindexed when it stopped.
        try guarded("Opening the database") { try indexWaitingScans() }
    }

    /// Runs a database access, turning every failure into a ``StoreError`` that says what was being
    /// done (import errors and typed plate errors pass through as they are).
    func guarded<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as ImportError {
            throw error
        } catch let error as PlateTextError {
            throw error
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL:
                throw StoreError(
                    code: "diskFull", message: "\(what) failed: the disk holding \(path) is full (nothing of this step was saved).")
            case .SQLITE_READONLY:
                throw StoreError(code: "readOnly", message: "\(what) failed: the database \(path) is read-only.")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw StoreError(code: "busy", message: "\(what) failed: another program kept the database \(path) busy.")
            default:
                throw StoreError(code: "database", message: "\(what) failed in \(path): \(error.message ?? "\(error.resultCode)")")
            }
        } catch {
            throw StoreError(code: "database", message: "\(what) failed in \(path): \(error)")
        }
    }

    /// The schema, as named ordered steps.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-registry") { db in
            try db.execute(
                sql: """
                    CREATE TABLE brand (
                        id TEXT PRIMARY KEY, name TEXT NOT NULL, requiresSignature INTEGER);
                    CREATE TABLE brandKey (
                        kid TEXT PRIMARY KEY, brand TEXT NOT NULL REFERENCES brand(id) ON DELETE CASCADE,
                        algorithm TEXT NOT NULL, publicKey TEXT NOT NULL, status TEXT NOT NULL);
                    CREATE INDEX brandKey_brand ON brandKey(brand);
                    CREATE TABLE product (
                        gtin TEXT PRIMARY KEY, name TEXT NOT NULL, brand TEXT NOT NULL REFERENCES brand(id),
                        category TEXT NOT NULL, markets TEXT NOT NULL);
                    CREATE TABLE serial (
                        gtin TEXT NOT NULL REFERENCES product(gtin), serial TEXT NOT NULL, status TEXT NOT NULL,
                        PRIMARY KEY (gtin, serial)) WITHOUT ROWID;
                    CREATE TABLE plateOwner (
                        id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, plate TEXT NOT NULL,
                        canonicalPlate TEXT NOT NULL, region TEXT NOT NULL);
                    CREATE INDEX plateOwner_plate ON plateOwner(canonicalPlate);
                    CREATE TABLE charger (
                        id TEXT PRIMARY KEY, serial TEXT NOT NULL, location TEXT NOT NULL, status TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("v2-history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE scan (
                        id INTEGER PRIMARY KEY, time REAL NOT NULL, device TEXT, mode TEXT NOT NULL, sourceFile TEXT,
                        symbology TEXT, payload TEXT NOT NULL, format TEXT, gtin TEXT, serial TEXT, lot TEXT,
                        expiry TEXT, productName TEXT, brand TEXT, category TEXT, verdict TEXT NOT NULL,
                        reasons TEXT NOT NULL, notes TEXT, latitude REAL, longitude REAL, country TEXT, batchID TEXT);
                    CREATE INDEX scan_time ON scan(time);
                    CREATE INDEX scan_item ON scan(gtin, serial, time);
                    CREATE INDEX scan_category ON scan(category, time);
                    CREATE VIRTUAL TABLE scanSearch USING fts5(
                        payload, device, sourceFile, symbology, gtin, serial, lot, productName, brand, category,
                        verdict, reasons, notes, country, mode, format, expiry, batchID,
                        content='scan', content_rowid='id', tokenize="unicode61 tokenchars '-_'", prefix='1 2 3');
                    CREATE VIRTUAL TABLE scanSearchVocab USING fts5vocab(scanSearch, row);
                    CREATE TRIGGER scan_ai AFTER INSERT ON scan BEGIN
                        INSERT INTO scanSearch(rowid, payload, device, sourceFile, symbology, gtin, serial, lot,
                            productName, brand, category, verdict, reasons, notes, country, mode, format, expiry, batchID)
                        VALUES (new.id, new.payload, new.device, new.sourceFile, new.symbology, new.gtin, new.serial,
                            new.lot, new.productName, new.brand, new.category, new.verdict, new.reasons, new.notes,
                            new.country, new.mode, new.format, new.expiry, new.batchID);
                    END;
                    CREATE TRIGGER scan_ad AFTER DELETE ON scan BEGIN
                        INSERT INTO scanSearch(scanSearch, rowid, payload, device, sourceFile, symbology, gtin, serial,
                            lot, productName, brand, category, verdict, reasons, notes, country, mode, format, expiry,
                            batchID)
                        VALUES ('delete', old.id, old.payload, old.device, old.sourceFile, old.symbology, old.gtin,
                            old.serial, old.lot, old.productName, old.brand, old.category, old.verdict, old.reasons,
                            old.notes, old.country, old.mode, old.format, old.expiry, old.batchID);
                    END;
                    CREATE TABLE recentSearch (text TEXT PRIMARY KEY, usedAt REAL NOT NULL);
                    CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("v3-inbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE inbox (
                        id INTEGER PRIMARY KEY, recipient TEXT NOT NULL REFERENCES plateOwner(id),
                        text TEXT NOT NULL, preset TEXT, sentAt REAL NOT NULL);
                    CREATE INDEX inbox_recipient ON inbox(recipient, sentAt);
                    """)
        }
        migrator.registerMigration("v4-statistics") { db in
            // Covering indexes, so totals by verdict and by day read an index instead of every row.
            try db.execute(
                sql: """
                    CREATE INDEX scan_verdict ON scan(verdict, category);
                    """)
        }
        migrator.registerMigration("v5-reports") { db in
            try db.execute(
                sql: """
                    CREATE TABLE report (
                        id INTEGER PRIMARY KEY, scan INTEGER NOT NULL REFERENCES scan(id),
                        reason TEXT, reportedAt REAL NOT NULL);
                    CREATE INDEX report_scan ON report(scan);
                    """)
        }
        migrator.registerMigration("v6-batches") { db in
            try db.execute(
                sql: """
                    CREATE TABLE batchRun (
                        id TEXT PRIMARY KEY, key TEXT NOT NULL, startedAt REAL NOT NULL, processed INTEGER NOT NULL,
                        finished INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX batchRun_key ON batchRun(key, finished, startedAt);
                    CREATE INDEX scan_batch ON scan(batchID);
                    """)
        }
        migrator.registerMigration("v7-apikeys") { db in
            // `seer serve` made this table on its own before it was a step: a file that has it keeps it.
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS apiKey (
                        id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, name TEXT, recipient TEXT,
                        createdAt REAL NOT NULL, revokedAt REAL);
                    """)
        }
        migrator.registerMigration("v8-search-groups") { db in
            try db.execute(sql: SearchIndex.migration)
        }
        migrator.registerMigration("v9-partial-indexes") { db in
            // A scan of no product (no GTIN, no category) or of no batch adds nothing to these indexes:
            // a save writes fewer pages. Lookups by an equal value (`gtin = ?`, `batchID = ?`) still use them.
            try db.execute(
                sql: """
                    DROP INDEX scan_item;
                    CREATE INDEX scan_item ON scan(gtin, serial, time) WHERE gtin IS NOT NULL;
                    DROP INDEX scan_category;
                    CREATE INDEX scan_category ON scan(category, time) WHERE category IS NOT NULL;
                    DROP INDEX scan_batch;
                    CREATE INDEX scan_batch ON scan(batchID) WHERE batchID IS NOT NULL;
                    """)
        }
        return migrator
    }

    /// The names of the migrations applied, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Self.migrator.appliedMigrations(db) }
    }

    /// The journal mode (`wal`).
    public func journalMode() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    // MARK: Registry import

    public func importRegistry(_ files: [(name: String, data: Data)]) throws -> ImportSummary {
        var decoded: [(name: String, file: RegistryFile)] = []
        for (name, data) in files {
            decoded.append((name, try Self.decode(name: name, data: data)))
        }
        return try guarded("Importing the registry") {
            try pool.write { db in
                try RegistryImporter(db: db, files: decoded).run()
            }
        }
    }

    /// Decodes one registry file strictly: unknown keys anywhere and values of the wrong type are
    /// ``ImportError``s naming the file, the record and the field.
    static func decode(name: String, data: Data) throws -> RegistryFile {
        try RegistrySchema.check(name: name, data: data)
        do {
            return try JSONDecoder().decode(RegistryFile.self, from: data)
        } catch let error as DecodingError {
            let (path, message): ([CodingKey], String)
            switch error {
            case .typeMismatch(let type, let context): (path, message) = (context.codingPath, "expected \(type): \(context.debugDescription)")
            case .valueNotFound(_, let context): (path, message) = (context.codingPath, "missing value")
            case .keyNotFound(let key, let context): (path, message) = (context.codingPath + [key], "missing field")
            case .dataCorrupted(let context):
                (path, message) = (context.codingPath, context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription)
            @unknown default: (path, message) = ([], "\(error)")
            }
            var record: String?
            var field: String?
            if path.count >= 2, let index = path[1].intValue {
                record = "\(path[0].stringValue)[\(index)]"
                let rest = path.dropFirst(2).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                if !rest.isEmpty { field = rest.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") }
            } else if let first = path.first {
                record = first.stringValue
            }
            throw ImportError(file: name, record: record, field: field, message: message)
        } catch {
            throw ImportError(file: name, record: nil, field: nil, message: "not valid JSON: \(error)")
        }
    }

    // MARK: Verification

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool
    ) throws -> [Verification] {
        let batchID = mode == .batch && save ? UUID().uuidString.lowercased() : nil
        let work = { (db: Database) throws -> [Verification] in
            let lookup = DatabaseLookup(db: db)
            var batch = DuplicateTracker(reason: .duplicateInBatch)
            var photos: [String: DuplicateTracker] = [:]
            var results: [Verification] = []
            results.reserveCapacity(inputs.count)
            var lastSaved: Int64?
            for input in inputs {
                var duplicate: Reason?
                if mode == .batch { duplicate = batch.check(input.payload) }
                if duplicate == nil, let file = input.sourceFile {
                    duplicate = photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
                }
                var result = try verifier.verify(input.payload, context: context, registry: lookup, history: lookup, duplicate: duplicate)
                result.source = input.sourceFile
                result.symbology = input.symbology
                result.line = input.line
                if save {
                    var record = ScanRecord(
                        result, context: context, mode: mode, sourceFile: input.sourceFile, symbology: input.symbology,
                        batchID: batchID)
                    try Self.insert(&record, db)
                    result.scanID = record.id
                    lastSaved = record.id
                }
                results.append(result)
            }
            if let lastSaved { try SearchIndex.saved(through: lastSaved, db) }
            return results
        }
        return try guarded("Verifying") { save ? try writeRetrying(work) : try pool.read(work) }
    }

    // MARK: Batch runs

    public func beginBatch(key: String, resume: Bool, at time: Double) throws -> BatchProgress {
        try guarded("Starting a batch") {
            try writeRetrying { db in
                if resume,
                    let row = try Row.fetchOne(
                        db, sql: "SELECT id, processed FROM batchRun WHERE key = ? AND finished = 0 ORDER BY startedAt DESC LIMIT 1",
                        arguments: [key])
                {
                    let id: String = try row.required("id", of: "A batch run")
                    var progress = BatchProgress(id: id, key: key, processed: try row.required("processed", of: "Batch \(id)"), resumed: true)
                    for saved in try Row.fetchAll(db, sql: "SELECT gtin, serial, sourceFile FROM scan WHERE batchID = ? ORDER BY id", arguments: [id]) {
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
                try db.execute(
                    sql: "INSERT INTO batchRun(id, key, startedAt, processed, finished) VALUES (?, ?, ?, 0, 0)", arguments: [id, key, time])
                return BatchProgress(id: id, key: key, processed: 0, resumed: false)
            }
        }
    }

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, verifier: Verifier, progress: inout BatchProgress
    ) throws -> [Verification] {
        let start = progress
        let (results, next) = try guarded("Saving a batch") {
            try writeRetrying { db -> ([Verification], BatchProgress) in
                var progress = start
                let lookup = DatabaseLookup(db: db)
                var results: [Verification] = []
                for input in inputs {
                    var duplicate = progress.batch.check(input.payload)
                    if duplicate == nil, let file = input.sourceFile {
                        duplicate = progress.photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
                    }
                    var result = try verifier.verify(input.payload, context: context, registry: lookup, history: lookup, duplicate: duplicate)
                    result.source = input.sourceFile
                    result.symbology = input.symbology
                    result.line = input.line
                    var record = ScanRecord(
                        result, context: context, mode: .batch, sourceFile: input.sourceFile, symbology: input.symbology, batchID: progress.id)
                    try Self.insert(&record, db)
                    result.scanID = record.id
                    results.append(result)
                }
                if let last = results.last?.scanID { try SearchIndex.saved(through: last, db) }
                progress.processed += inputs.count
                try db.execute(sql: "UPDATE batchRun SET processed = ? WHERE id = ?", arguments: [progress.processed, progress.id])
                return (results, progress)
            }
        }
        progress = next
        return results
    }

    public func finishBatch(_ progress: BatchProgress) throws {
        try guarded("Finishing a batch") {
            try writeRetrying { db in try db.execute(sql: "UPDATE batchRun SET finished = 1 WHERE id = ?", arguments: [progress.id]) }
        }
    }

    /// A write transaction, taken at once (`BEGIN IMMEDIATE`) and retried while another process holds
    /// the database: each try waits up to the busy timeout, and a busy database is retried for
    /// ``busyRetries`` tries before it is an error.
    func writeRetrying<T>(_ body: (Database) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try pool.writeWithoutTransaction { db in try Self.immediateTransaction(db, body) }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                attempt += 1
                if attempt >= busyRetries { throw error }
            }
        }
    }

    /// `body` in a transaction taken at once (`BEGIN IMMEDIATE`), committed when it returns and rolled
    /// back when it or the commit throws. Both statements are prepared once per connection (GRDB's
    /// `inTransaction` parses them on every call; parsing the `BEGIN` alone was about a fifth of the
    /// cost of saving one scan).
    static func immediateTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
            throw error
        }
    }

    public func record(_ scans: [ScanRecord]) throws {
        try guarded("Saving scans") {
            try pool.write { db in
                // Many scans at once: indexed in the same transaction.
                let through = try SearchIndex.indexedThrough(db)
                for var scan in scans {
                    let copied = scan.id.map { $0 <= through } ?? false
                    try Self.insert(&scan, db)
                    if copied, let id = scan.id { try SearchIndex.indexOne(id, db) }
                }
                try SearchIndex.indexWaiting(db)
            }
        }
    }

    // MARK: History

    /// The FTS5 query for user text: each word a quoted prefix, all required.
    static func matchExpression(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }

    func filters(_ query: HistoryQuery, db: Database) throws -> (sql: [String], arguments: StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        switch query.result {
        case .all: break
        case .success: clauses.append("scan.verdict = 'authentic'")
        case .failed: clauses.append("scan.verdict <> 'authentic'")
        }
        if let category = query.category {
            clauses.append("scan.category = ? COLLATE NOCASE")
            _ = arguments.append(contentsOf: [category])
        }
        if let device = query.device {
            clauses.append("scan.device = ?")
            _ = arguments.append(contentsOf: [device])
        }
        if let since = try Self.since(query, db: db) {
            clauses.append("scan.time >= ?")
            _ = arguments.append(contentsOf: [since])
        }
        return (clauses, arguments)
    }

    static func since(_ query: HistoryQuery, db: Database) throws -> Double? {
        let period = try query.period ?? (try setting("history.period", db: db)).flatMap(Period.init(rawValue:)) ?? .all
        return period.seconds.map { query.now - $0 }
    }

    /// The full-text part of a query: the words, narrowed by the filters the index also holds (the
    /// SQL clauses stay for exactness), and the lowest row id the period allows.
    func searchTerms(_ query: HistoryQuery, db: Database) throws -> (match: String, minimumID: Int64)? {
        guard let search = query.search, var match = Self.matchExpression(search) else { return nil }
        match = "(" + match + ")"
        if let category = query.category, let phrase = Self.phrase(category) { match += " AND category : " + phrase }
        switch query.result {
        case .all: break
        case .success: match += " AND verdict : authentic"
        case .failed: match += " NOT verdict : authentic"
        }
        var minimumID: Int64 = 0
        if let since = try Self.since(query, db: db) {
            minimumID = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM scan INDEXED BY scan_time WHERE time >= ?", arguments: [since]) ?? Int64.max
        }
        return (match, minimumID)
    }

    static func phrase(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        guard !words.isEmpty else { return nil }
        return "\"" + words.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public func history(_ query: HistoryQuery) throws -> HistoryPage {
        try guarded("Reading the history") {
            func read(_ db: Database) throws -> HistoryPage {
                var (clauses, arguments) = try filters(query, db: db)
                let limit = max(1, query.limit)
                var sql: String
                if let terms = try searchTerms(query, db: db) {
                    // FTS5 yields rowids in descending order natively, so a page stops early.
                    sql = "SELECT scan.* FROM scanSearch CROSS JOIN scan ON scan.id = scanSearch.rowid WHERE scanSearch MATCH ? AND scanSearch.rowid >= ?"
                    arguments = StatementArguments([terms.match]) + StatementArguments([terms.minimumID]) + arguments
                    for clause in clauses { sql += " AND " + clause }
                    sql += " ORDER BY scanSearch.rowid DESC"
                } else {
                    sql = "SELECT scan.* FROM scan"
                    if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
                    sql += " ORDER BY scan.id DESC"
                }
                sql += " LIMIT ? OFFSET ?"
                _ = arguments.append(contentsOf: [limit + 1, max(0, query.offset)])
                var scans = try ScanRecord.fetchAll(db, sql: sql, arguments: arguments)
                let hasMore = scans.count > limit
                if hasMore { scans.removeLast() }
                return HistoryPage(scans: scans, hasMore: hasMore, nextOffset: hasMore ? max(0, query.offset) + limit : nil)
            }
            return try query.search != nil ? searching(read) : pool.read(read)
        }
    }

    public func scan(id: Int64) throws -> ScanDetails? {
        try guarded("Reading scan #\(id)") {
            try pool.read { db in
                guard let scan = try ScanRecord.fetchOne(db, sql: "SELECT * FROM scan WHERE id = ?", arguments: [id]) else { return nil }
                let reports = try Row.fetchAll(
                    db, sql: "SELECT id, scan, reason, reportedAt FROM report WHERE scan = ? ORDER BY id", arguments: [id]
                ).map { row in
                    guard let reportedAt = try? row.decode(Double.self, forColumn: "reportedAt"),
                        let reportID = try? row.decode(Int64.self, forColumn: "id")
                    else {
                        throw StoreError(code: "damagedRow", message: "A report on scan #\(id) in the database is damaged.")
                    }
                    var report = CounterfeitReport(scan: id, reason: try? row.decode(String?.self, forColumn: "reason"), reportedAt: reportedAt)
                    report.id = reportID
                    return report
                }
                return ScanDetails(scan: scan, reports: reports)
            }
        }
    }

    public func report(scanID: Int64, reason: String?, at time: Double) throws -> CounterfeitReport {
        try guarded("Reporting scan #\(scanID)") {
            try pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM scan WHERE id = ?", arguments: [scanID]) == true else {
                    throw StoreError(code: "notFound", message: "There is no scan #\(scanID).")
                }
                var report = CounterfeitReport(scan: scanID, reason: reason, reportedAt: time)
                try report.insert(db)
                return report
            }
        }
    }

    public func addUser(_ owner: PlateOwner) throws {
        try guarded("Adding a user") {
            try pool.write { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM plateOwner WHERE id = ?", arguments: [owner.id]) == true {
                    throw StoreError(code: "duplicate", message: "The recipient id \(owner.id) is taken.")
                }
                try db.execute(
                    sql: "INSERT INTO plateOwner(id, name, email, plate, canonicalPlate, region) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [owner.id, owner.name, owner.email, owner.plate, PlateText.canonical(owner.plate), owner.country.rawValue])
            }
        }
    }

    public func userExists(id: String) throws -> Bool {
        try guarded("Looking up a user") {
            try pool.read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM plateOwner WHERE id = ?", arguments: [id]) == true }
        }
    }

    public func suggestions(prefix: String, limit: Int) throws -> [String] {
        let lowered = prefix.lowercased().trimmingCharacters(in: .whitespaces)
        guard !lowered.isEmpty else { return [] }
        return try guarded("Reading search suggestions") {
            try searching { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT term FROM scanSearchVocab WHERE term >= ? AND term < ?
                        ORDER BY doc DESC, term LIMIT ?
                        """,
                    arguments: [lowered, lowered + "\u{10FFFF}", limit])
            }
        }
    }

    public func rememberSearch(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        try guarded("Remembering a search") { try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recentSearch(text, usedAt) VALUES (?, ?)
                    ON CONFLICT(text) DO UPDATE SET usedAt = excluded.usedAt
                    """,
                arguments: [trimmed, Date().timeIntervalSince1970])
            // Keep the newest 50.
            try db.execute(
                sql: "DELETE FROM recentSearch WHERE text NOT IN (SELECT text FROM recentSearch ORDER BY usedAt DESC, rowid DESC LIMIT 50)")
        } }
    }

    public func recentSearches(limit: Int) throws -> [String] {
        try guarded("Reading recent searches") {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT text FROM recentSearch ORDER BY usedAt DESC, rowid DESC LIMIT ?", arguments: [limit])
                    .compactMap { try? $0.decode(String.self, atIndex: 0) }
            }
        }
    }

    public func statistics(_ query: HistoryQuery) throws -> Statistics {
        try guarded("Counting scans") {
            func read(_ db: Database) throws -> Statistics {
                var (clauses, arguments) = try filters(query, db: db)
                var from = "scan"
                if let terms = try searchTerms(query, db: db) {
                    from = "scanSearch CROSS JOIN scan ON scan.id = scanSearch.rowid"
                    clauses.insert("scanSearch MATCH ? AND scanSearch.rowid >= ?", at: 0)
                    arguments = StatementArguments([terms.match]) + StatementArguments([terms.minimumID]) + arguments
                }
                let whereSQL = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
                func counts(_ key: String, order: String, valid: (String) -> Bool) throws -> [Statistics.Count] {
                    try Row.fetchAll(
                        db, sql: "SELECT \(key) AS k, COUNT(*) AS n FROM \(from)\(whereSQL) GROUP BY k ORDER BY \(order)",
                        arguments: arguments
                    ).map { row in
                        guard let key = try? row.decode(String.self, forColumn: "k"), valid(key),
                            let count = try? row.decode(Int.self, forColumn: "n")
                        else { throw try Self.damage(db) }
                        return Statistics.Count(key: key, count: count)
                    }
                }
                let byVerdict = try counts("scan.verdict", order: "n DESC, k") { Verdict(rawValue: $0) != nil }
                let reported =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(DISTINCT scan.id) FROM \(from) JOIN report ON report.scan = scan.id\(whereSQL)",
                        arguments: arguments) ?? 0
                return Statistics(
                    total: byVerdict.reduce(0) { $0 + $1.count }, reported: reported, byVerdict: byVerdict,
                    byCategory: try counts("COALESCE(scan.category, 'uncategorised')", order: "n DESC, k") { _ in true },
                    perDay: try counts("date(scan.time, 'unixepoch')", order: "k") { _ in true })
            }
            return try query.search != nil ? searching(read) : pool.read(read)
        }
    }

    /// The error for the first damaged scan: one whose verdict, time or category cannot be counted
    /// (or, failing that, any row that does not read as a scan).
    static func damage(_ db: Database) throws -> StoreError {
        let verdicts = Verdict.allCases.map { "'\($0.rawValue)'" }.joined(separator: ",")
        let suspect = try Row.fetchOne(
            db,
            sql: """
                SELECT * FROM scan WHERE verdict IS NULL OR verdict NOT IN (\(verdicts))
                    OR typeof(time) NOT IN ('integer', 'real') OR date(time, 'unixepoch') IS NULL
                    OR (category IS NOT NULL AND typeof(category) <> 'text') ORDER BY id LIMIT 1
                """)
        if let suspect {
            do {
                _ = try ScanRecord(row: suspect)
            } catch let error as StoreError {
                return error
            }
            let id = (try? suspect.decode(Int64.self, forColumn: "id")).map(String.init) ?? "?"
            return StoreError(code: "damagedRow", message: "Scan #\(id) in the database is damaged: its time or category cannot be counted.")
        }
        return StoreError(code: "damagedRow", message: "A scan in the database is damaged and cannot be counted.")
    }

    // MARK: Plates, messages, chargers, settings

    public func charger(id: String) throws -> Charger? {
        try guarded("Looking up charger \(id)") { try pool.read { db in try DatabaseLookup(db: db).charger(id: id) } }
    }

    public func resolvePlate(
        _ text: String, country: Country?, region: PlateRegion?, candidates: [String], resolver: PlateResolver
    ) throws -> PlateResolution {
        try guarded("Looking up a plate") {
            try pool.read { db in
                try resolver.resolve(text, country: country, region: region, candidates: candidates, in: DatabaseLookup(db: db))
            }
        }
    }

    public func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt {
        try guarded("Delivering a message") { try pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM plateOwner WHERE id = ?", arguments: [recipient]) == true else {
                throw StoreError(code: "unknownRecipient", message: "No recipient \(recipient).")
            }
            var message = InboxMessage(recipient: recipient, text: text, preset: preset, sentAt: time)
            try message.insert(db)
        } }
        return DeliveryReceipt()
    }

    public func inbox(recipient: String) throws -> [InboxMessage] {
        try guarded("Reading the inbox") {
            try pool.read { db in
                try InboxMessage.fetchAll(
                    db, sql: "SELECT * FROM inbox WHERE recipient = ? ORDER BY sentAt DESC, id DESC", arguments: [recipient])
            }
        }
    }

    public func setting(_ key: String) throws -> String? {
        try guarded("Reading a setting") { try pool.read { db in try Self.setting(key, db: db) } }
    }

    static func setting(_ key: String, db: Database) throws -> String? {
        (try? Row.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])).flatMap { try? $0.decode(String.self, atIndex: 0) }
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try guarded("Saving a setting") {
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value])
            }
        }
    }
}

extension Row {
    /// The column's value, or a ``StoreError`` `damagedRow` naming `record` and the column when it is
    /// missing or of another type.
    func required<T: DatabaseValueConvertible>(_ column: String, of record: @autoclosure () -> String) throws -> T {
        guard let value = try optional(column, of: record()) as T? else {
            throw StoreError(code: "damagedRow", message: "\(record()) in the database is damaged: its \(column) is missing.")
        }
        return value
    }

    /// The column's value, nil when NULL, or a ``StoreError`` when it is of another type.
    func optional<T: DatabaseValueConvertible>(_ column: String, of record: @autoclosure () -> String) throws -> T? {
        do {
            return try decode(T?.self, forColumn: column)
        } catch {
            throw StoreError(code: "damagedRow", message: "\(record()) in the database is damaged: its \(column) is not valid.")
        }
    }
}

/// Registry and history reads inside one database access, with cached statements. A damaged row is
/// a ``StoreError`` `damagedRow` naming it.
struct DatabaseLookup<SQL: SQLAccess>: RegistryLookup, ScanHistoryLookup, PlateDirectory {
    let db: SQL

    func key(id: String) throws -> (key: BrandKey, brand: String)? {
        guard let row = try db.row("SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE kid = ?", [id.sqlValue]) else { return nil }
        return (try Self.brandKey(row), try row.required("brand", of: "Key \(id)"))
    }

    static func brandKey(_ row: Row) throws -> BrandKey {
        let kid: String = try row.required("kid", of: "A brand key")
        let record = "Key \(kid)"
        guard let algorithm = SignatureAlgorithm(rawValue: try row.required("algorithm", of: record)),
            let status = KeyStatus(rawValue: try row.required("status", of: record))
        else {
            throw StoreError(code: "damagedRow", message: "\(record) in the database is damaged: it has an unknown algorithm or status.")
        }
        return BrandKey(kid: kid, algorithm: algorithm, publicKey: try row.required("publicKey", of: record), status: status)
    }

    func brand(id: String) throws -> Brand? {
        guard let row = try db.row("SELECT id, name, requiresSignature FROM brand WHERE id = ?", [id.sqlValue]) else { return nil }
        let keys = try db.rows("SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE brand = ? ORDER BY kid", [id.sqlValue])
            .map { try Self.brandKey($0) }
        let record = "Brand \(id)"
        return Brand(
            id: id, name: try row.required("name", of: record), requiresSignature: try row.optional("requiresSignature", of: record),
            keys: keys)
    }

    func product(gtin: String) throws -> Product? {
        guard let row = try db.row("SELECT gtin, name, brand, category, markets FROM product WHERE gtin = ?", [gtin.sqlValue]) else { return nil }
        let record = "Product \(gtin)"
        let markets = (try row.required("markets", of: record) as String).split(separator: ",").map(String.init)
        return Product(
            gtin: gtin, name: try row.required("name", of: record), brand: try row.required("brand", of: record),
            category: try row.required("category", of: record), markets: markets)
    }

    func serial(gtin: String, serial: String) throws -> SerialRecord? {
        guard let row = try db.row("SELECT status FROM serial WHERE gtin = ? AND serial = ?", [gtin.sqlValue, serial.sqlValue]) else { return nil }
        let status: String = try row.required("status", of: "Serial \(serial)")
        guard let parsed = SerialStatus(rawValue: status) else {
            throw StoreError(code: "damagedRow", message: "Serial \(serial) in the database is damaged: its status '\(status.prefix(40))' is unknown.")
        }
        return SerialRecord(gtin: gtin, serial: serial, status: parsed)
    }

    func priorScans(gtin: String, serial: String, since time: Double) throws -> [PriorScan] {
        let sql = "SELECT id, time, device, country, latitude, longitude FROM scan WHERE gtin = ? AND serial = ? AND time >= ? ORDER BY time, id"
        return try db.rows(sql, [gtin.sqlValue, serial.sqlValue, time.sqlValue]).map { row in
            let record = "Scan #\((try? row.decode(Int64.self, forColumn: "id")).map(String.init) ?? "?")"
            return PriorScan(
                time: try row.required("time", of: record), device: try row.optional("device", of: record),
                country: try row.optional("country", of: record), latitude: try row.optional("latitude", of: record),
                longitude: try row.optional("longitude", of: record))
        }
    }

    func recipients(forPlates plates: [String], country: Country?) throws -> [String: [String]] {
        guard !plates.isEmpty else { return [:] }
        var result: [String: [String]] = [:]
        // SQLite limits bound parameters; 500 plates per query is well inside it.
        for start in stride(from: 0, to: plates.count, by: 500) {
            let chunk = Array(plates[start..<min(plates.count, start + 500)])
            var sql = "SELECT canonicalPlate, id FROM plateOwner WHERE canonicalPlate IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            var arguments = chunk.map(\.sqlValue)
            if let country {
                sql += " AND region = ?"
                arguments.append(country.rawValue.sqlValue)
            }
            sql += " ORDER BY id"
            for row in try db.rows(sql, arguments) {
                guard let plate = try? row.decode(String.self, forColumn: "canonicalPlate"), let id = try? row.decode(String.self, forColumn: "id")
                else { throw StoreError(code: "damagedRow", message: "A registered plate owner in the database is damaged.") }
                result[plate, default: []].append(id)
            }
        }
        return result
    }

    func charger(id: String) throws -> Charger? {
        guard let row = try db.row("SELECT * FROM charger WHERE id = ?", [id.sqlValue]) else { return nil }
        let record = "Charger \(id)"
        guard let status = ChargerStatus(rawValue: try row.required("status", of: record)) else {
            throw StoreError(code: "damagedRow", message: "\(record) in the database is damaged: its status is unknown.")
        }
        return Charger(
            id: id, serial: try row.required("serial", of: record), location: try row.required("location", of: record), status: status)
    }
}

// MARK: API keys

extension SQLiteStore: APIKeyStorage {
    public func insertAPIKey(_ info: APIKeyInfo, hash: String) throws {
        try guarded("Saving the key") { try pool.write { db in try APIKeyTable.insert(info, hash: hash, db: db) } }
    }

    public func apiKey(hash: String) throws -> APIKeyInfo? {
        try guarded("Checking the key") { try pool.read { db in try APIKeyTable.find(hash: hash, db: db) } }
    }

    public func apiKeys() throws -> [APIKeyInfo] {
        try guarded("Listing the keys") { try pool.read { db in try APIKeyTable.all(db: db) } }
    }

    public func revokeAPIKey(id: String, at time: Double) throws -> APIKeyInfo {
        try guarded("Revoking the key") { try pool.write { db in try APIKeyTable.revoke(id: id, at: time, db: db) } }
    }

    public func bindAPIKey(id: String, recipient: String) throws {
        try guarded("Binding the key") { try pool.write { db in try APIKeyTable.bind(id: id, recipient: recipient, db: db) } }
    }
}
