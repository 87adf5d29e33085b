import Foundation
import GRDB
import Logging
import PostgresNIO
import SeerVerify

/// The shared store: one PostgreSQL database that any number of Seer processes (CLI runs, service
/// replicas) read and write at once. The same schema steps, records and queries as ``SQLiteStore``.
///
/// - Full-text search: a stored `tsvector` of every text field (split as SQLite's index splits:
///   letters, digits, `-` and `_`; lower-cased), plus the category and verdict as tokens of their
///   own (`#c=…`, `#v=…`, which no search word can spell), with a GIN index; each word of a search
///   matches as a prefix. A page of search results is looked for first among the newest scans
///   (a frequent word fills it there), else through the index.
/// - Concurrency: every verification that saves takes a transaction-scoped advisory lock on each
///   item (GTIN and serial) it reads the history of, in one order, before reading it; so two
///   processes verifying the same item one after the other each see the other's scan (clone
///   counters and statistics stay right), and two runs never wait on each other in a cycle.
///   Transactions that still meet a deadlock or serialization failure are retried whole.
public final class PostgresStore: SeerStore {
    let connections: PostgresConnections
    /// Where the database is.
    public let location: PostgresLocation
    /// Tries of a transaction that met a deadlock or a serialization failure.
    let retries = 8

    /// Connects to the database at `url` (`postgres://user@host:port/database`) and migrates it to
    /// the current schema.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public convenience init(url: String, logger: Logger = Logger(label: "seer.store")) throws {
        try self.init(location: try PostgresLocation(url: url), logger: logger)
    }

    /// Connects to the database at `location` and migrates it to the current schema.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public init(location: PostgresLocation, logger: Logger = Logger(label: "seer.store")) throws {
        self.location = location
        connections = try PostgresConnections(location: location, logger: logger)
        do {
            try migrate()
        } catch let error as StoreError {
            throw StoreError(code: "cannotOpen", message: error.message)
        }
    }

    /// Closes the connections kept open (the store can still be used: it connects again).
    public func close() {
        connections.close()
    }

    // MARK: Access

    /// Runs an access, turning every failure into a ``StoreError`` that says what was being done
    /// (import errors and typed plate errors pass through as they are).
    func guarded<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as ImportError {
            throw error
        } catch let error as PlateTextError {
            throw error
        } catch {
            let detail = PostgresSession.describe(error)
            switch PostgresSession.state(error) {
            case "53100":
                throw StoreError(code: "diskFull", message: "\(what) failed: the disk of \(location) is full (nothing of this step was saved).")
            case "25006":
                throw StoreError(code: "readOnly", message: "\(what) failed: the database \(location) is read-only.")
            case "40001", "40P01", "55P03", "57014":
                throw StoreError(code: "busy", message: "\(what) failed: other writers kept \(location) busy (\(detail)).")
            case "22P02", "22003", "22021":
                throw StoreError(code: "damagedRow", message: "\(what) failed: a row in \(location) is damaged (\(detail)).")
            default:
                throw StoreError(code: "database", message: "\(what) failed in \(location): \(detail)")
            }
        }
    }

    /// Reads on one connection, each statement on its own.
    func read<T>(_ what: String, _ body: (PostgresSession) throws -> T) throws -> T {
        try guarded(what) { try connections.with(body) }
    }

    /// A transaction, retried whole when PostgreSQL gives it up for a deadlock or a serialization
    /// failure.
    func write<T>(_ what: String, _ body: (PostgresSession) throws -> T) throws -> T {
        try guarded(what) {
            var attempt = 0
            while true {
                do {
                    return try connections.with { session in try session.transaction(body) }
                } catch where ["40001", "40P01"].contains(PostgresSession.state(error)) && attempt + 1 < retries {
                    attempt += 1
                    usleep(UInt32.random(in: 1_000...20_000) * UInt32(attempt))
                }
            }
        }
    }

    // MARK: Schema

    /// The schema, as named ordered steps: the same names and tables as ``SQLiteStore``'s.
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1-registry",
            [
                "CREATE TABLE brand (id TEXT PRIMARY KEY, name TEXT NOT NULL, requiresSignature INTEGER)",
                """
                CREATE TABLE brandKey (
                    kid TEXT PRIMARY KEY, brand TEXT NOT NULL REFERENCES brand(id) ON DELETE CASCADE,
                    algorithm TEXT NOT NULL, publicKey TEXT NOT NULL, status TEXT NOT NULL)
                """,
                "CREATE INDEX brandKey_brand ON brandKey(brand)",
                """
                CREATE TABLE product (
                    gtin TEXT PRIMARY KEY, name TEXT NOT NULL, brand TEXT NOT NULL REFERENCES brand(id),
                    category TEXT NOT NULL, markets TEXT NOT NULL)
                """,
                """
                CREATE TABLE serial (
                    gtin TEXT NOT NULL REFERENCES product(gtin), serial TEXT NOT NULL, status TEXT NOT NULL,
                    PRIMARY KEY (gtin, serial))
                """,
                """
                CREATE TABLE plateOwner (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, plate TEXT NOT NULL,
                    canonicalPlate TEXT NOT NULL, region TEXT NOT NULL)
                """,
                "CREATE INDEX plateOwner_plate ON plateOwner(canonicalPlate)",
                "CREATE TABLE charger (id TEXT PRIMARY KEY, serial TEXT NOT NULL, location TEXT NOT NULL, status TEXT NOT NULL)",
            ]
        ),
        (
            "v2-history",
            [
                """
                CREATE TABLE scan (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, time DOUBLE PRECISION NOT NULL, device TEXT,
                    mode TEXT NOT NULL, sourceFile TEXT, symbology TEXT, payload TEXT NOT NULL, format TEXT, gtin TEXT,
                    serial TEXT, lot TEXT, expiry TEXT, productName TEXT, brand TEXT, category TEXT, verdict TEXT NOT NULL,
                    reasons TEXT NOT NULL, notes TEXT, latitude DOUBLE PRECISION, longitude DOUBLE PRECISION, country TEXT,
                    batchID TEXT,
                    search TSVECTOR GENERATED ALWAYS AS (array_to_tsvector(array_remove(regexp_split_to_array(lower(
                        coalesce(payload, '') || ' ' || coalesce(device, '') || ' ' || coalesce(sourceFile, '') || ' '
                        || coalesce(symbology, '') || ' ' || coalesce(gtin, '') || ' ' || coalesce(serial, '') || ' '
                        || coalesce(lot, '') || ' ' || coalesce(productName, '') || ' ' || coalesce(brand, '') || ' '
                        || coalesce(category, '') || ' ' || coalesce(verdict, '') || ' ' || coalesce(reasons, '') || ' '
                        || coalesce(notes, '') || ' ' || coalesce(country, '') || ' ' || coalesce(mode, '') || ' '
                        || coalesce(format, '') || ' ' || coalesce(expiry, '') || ' ' || coalesce(batchID, '')),
                        '[^[:alnum:]_-]+'), '')
                        || ARRAY['#c=' || lower(coalesce(category, '')), '#v=' || verdict])) STORED)
                """,
                "CREATE INDEX scan_time ON scan(time)",
                "CREATE INDEX scan_item ON scan(gtin, serial, time)",
                "CREATE INDEX scan_category ON scan(category, time)",
                "CREATE INDEX scan_search ON scan USING GIN (search)",
                "CREATE TABLE recentSearch (text TEXT PRIMARY KEY, usedAt DOUBLE PRECISION NOT NULL, seq BIGINT GENERATED ALWAYS AS IDENTITY)",
                "CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        (
            "v3-inbox",
            [
                """
                CREATE TABLE inbox (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, recipient TEXT NOT NULL REFERENCES plateOwner(id),
                    text TEXT NOT NULL, preset TEXT, sentAt DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX inbox_recipient ON inbox(recipient, sentAt)",
            ]
        ),
        ("v4-statistics", ["CREATE INDEX scan_verdict ON scan(verdict, category)"]),
        (
            "v5-reports",
            [
                """
                CREATE TABLE report (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, scan BIGINT NOT NULL REFERENCES scan(id),
                    reason TEXT, reportedAt DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX report_scan ON report(scan)",
            ]
        ),
        (
            "v6-batches",
            [
                """
                CREATE TABLE batchRun (
                    id TEXT PRIMARY KEY, key TEXT NOT NULL, startedAt DOUBLE PRECISION NOT NULL, processed BIGINT NOT NULL,
                    finished INTEGER NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX batchRun_key ON batchRun(key, finished, startedAt)",
                "CREATE INDEX scan_batch ON scan(batchID)",
            ]
        ),
        (
            "v7-apikeys",
            [
                """
                CREATE TABLE apiKey (
                    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, name TEXT, recipient TEXT,
                    createdAt DOUBLE PRECISION NOT NULL, revokedAt DOUBLE PRECISION)
                """
            ]
        ),
    ]

    /// Applies the steps not yet applied, one process at a time (an advisory lock), in one transaction.
    func migrate() throws {
        try write("Migrating \(location)") { session in
            try session.run("SELECT pg_advisory_xact_lock(5365657201)")
            try session.run(
                "CREATE TABLE IF NOT EXISTS seerMigration (seq BIGINT GENERATED ALWAYS AS IDENTITY, name TEXT PRIMARY KEY, appliedAt DOUBLE PRECISION NOT NULL)"
            )
            let applied = Set(try session.rows("SELECT name FROM seerMigration", []).compactMap { try? $0.decode(String.self, forColumn: "name") })
            for (name, statements) in Self.migrations where !applied.contains(name) {
                for statement in statements { try session.run(statement) }
                try session.execute(
                    "INSERT INTO seerMigration(name, appliedAt) VALUES (?, ?)", [name.sqlValue, Date().timeIntervalSince1970.sqlValue])
            }
        }
    }

    /// The names of the migrations applied, in order.
    public func appliedMigrations() throws -> [String] {
        try read("Reading the schema version") { session in
            try session.rows("SELECT name FROM seerMigration ORDER BY seq", []).compactMap { try? $0.decode(String.self, forColumn: "name") }
        }
    }

    // MARK: Registry import

    public func importRegistry(_ files: [(name: String, data: Data)]) throws -> ImportSummary {
        var decoded: [(name: String, file: RegistryFile)] = []
        for (name, data) in files {
            decoded.append((name, try SQLiteStore.decode(name: name, data: data)))
        }
        return try write("Importing the registry") { session in
            try RegistryImporter(db: session, files: decoded).run()
        }
    }

    // MARK: Verification

    /// Takes the advisory locks for the items the payloads name (GTIN and serial), in one order.
    func lockItems(_ inputs: [ScanInput], session: PostgresSession) throws {
        var keys = Set<Int64>()
        for input in inputs {
            guard case .product(let code) = PayloadParser.parse(input.payload), let serial = code.serial else { continue }
            keys.insert(Self.itemLock(gtin: code.gtin, serial: serial))
        }
        guard !keys.isEmpty else { return }
        let list = keys.sorted().map(String.init).joined(separator: ",")
        try session.run("SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(ARRAY[\(list)]::bigint[]) AS k ORDER BY k) AS items")
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

    func verifyAll(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool, batchID: String?,
        progress: inout BatchProgress?, session: PostgresSession
    ) throws -> [Verification] {
        let lookup = CachedLookup(DatabaseLookup(db: session))
        // Serials and prior scans of every item of the call in two statements, not two per code.
        var items: [(gtin: String, serial: String)] = []
        for input in inputs {
            guard case .product(let code) = PayloadParser.parse(input.payload), let serial = code.serial else { continue }
            items.append((code.gtin, serial))
        }
        try lookup.prefetch(items, since: context.time - verifier.configuration.windowSeconds, session: session)
        var batch = DuplicateTracker(reason: .duplicateInBatch)
        var photos: [String: DuplicateTracker] = [:]
        var results: [Verification] = []
        results.reserveCapacity(inputs.count)
        var records: [ScanRecord] = []
        for input in inputs {
            var duplicate: Reason?
            if progress != nil {
                duplicate = progress!.batch.check(input.payload)
                if duplicate == nil, let file = input.sourceFile {
                    duplicate = progress!.photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
                }
            } else {
                if mode == .batch { duplicate = batch.check(input.payload) }
                if duplicate == nil, let file = input.sourceFile {
                    duplicate = photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
                }
            }
            var result = try verifier.verify(input.payload, context: context, registry: lookup, history: lookup, duplicate: duplicate)
            result.source = input.sourceFile
            result.symbology = input.symbology
            result.line = input.line
            if save {
                let record = ScanRecord(
                    result, context: context, mode: mode, sourceFile: input.sourceFile, symbology: input.symbology, batchID: batchID)
                records.append(record)
                if let gtin = record.gtin, let serial = record.serial {
                    lookup.saved(
                        gtin: gtin, serial: serial,
                        PriorScan(
                            time: record.time, device: record.device, country: record.country, latitude: record.latitude,
                            longitude: record.longitude))
                }
            }
            results.append(result)
        }
        // Saved at once; ids come in the order the rows were written.
        let ids = try Self.insertReturningIDs(records, session: session)
        for (index, id) in zip(results.indices.filter { _ in save }, ids) { results[index].scanID = id }
        return results
    }

    /// Saves scans in one statement a few hundred at a time; their new ids in the same order.
    static func insertReturningIDs(_ scans: [ScanRecord], session: PostgresSession) throws -> [Int64] {
        guard !scans.isEmpty else { return [] }
        let columns = copiedTables.first { $0.table == "scan" }!.columns.dropFirst()
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        var ids: [Int64] = []
        ids.reserveCapacity(scans.count)
        for start in stride(from: 0, to: scans.count, by: 500) {
            let chunk = scans[start..<min(scans.count, start + 500)]
            var arguments: [DatabaseValue] = []
            arguments.reserveCapacity(chunk.count * columns.count)
            for scan in chunk {
                let reasons = scan.reasonsJSON
                arguments += [
                    scan.time.sqlValue, scan.device.sqlValue, scan.mode.rawValue.sqlValue, scan.sourceFile.sqlValue,
                    scan.symbology.sqlValue, scan.payload.sqlValue, scan.format?.rawValue.sqlValue ?? .null, scan.gtin.sqlValue,
                    scan.serial.sqlValue, scan.lot.sqlValue, scan.expiry.sqlValue, scan.productName.sqlValue, scan.brand.sqlValue,
                    scan.category.sqlValue, scan.verdict.rawValue.sqlValue, reasons.sqlValue, scan.notes.sqlValue,
                    scan.latitude.sqlValue, scan.longitude.sqlValue, scan.country.sqlValue, scan.batchID.sqlValue,
                ]
            }
            let rows = try session.rows(
                "INSERT INTO scan(\(columns.joined(separator: ", "))) VALUES "
                    + Array(repeating: tuple, count: chunk.count).joined(separator: ", ") + " RETURNING id", arguments)
            // One statement draws its ids from the sequence in the order it writes the rows.
            let chunkIDs = try rows.map { row -> Int64 in try row.required("id", of: "A saved scan") }.sorted()
            guard chunkIDs.count == chunk.count else { throw StoreError(code: "database", message: "Saved scans got no ids.") }
            ids += chunkIDs
        }
        return ids
    }

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool
    ) throws -> [Verification] {
        let batchID = mode == .batch && save ? UUID().uuidString.lowercased() : nil
        var none: BatchProgress?
        if !save {
            return try read("Verifying") { session in
                try verifyAll(inputs, context: context, mode: mode, verifier: verifier, save: false, batchID: nil, progress: &none, session: session)
            }
        }
        return try write("Verifying") { session in
            try lockItems(inputs, session: session)
            return try verifyAll(
                inputs, context: context, mode: mode, verifier: verifier, save: true, batchID: batchID, progress: &none, session: session)
        }
    }

    // MARK: Batch runs

    public func beginBatch(key: String, resume: Bool, at time: Double) throws -> BatchProgress {
        try write("Starting a batch") { session in
            if resume,
                let row = try session.row(
                    "SELECT id, processed FROM batchRun WHERE key = ? AND finished = 0 ORDER BY startedAt DESC LIMIT 1 FOR UPDATE",
                    [key.sqlValue])
            {
                let id: String = try row.required("id", of: "A batch run")
                var progress = BatchProgress(id: id, key: key, processed: try row.required("processed", of: "Batch \(id)"), resumed: true)
                for saved in try session.rows("SELECT gtin, serial, sourceFile FROM scan WHERE batchID = ? ORDER BY id", [id.sqlValue]) {
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
            try session.execute(
                "INSERT INTO batchRun(id, key, startedAt, processed, finished) VALUES (?, ?, ?, 0, 0)", [id.sqlValue, key.sqlValue, time.sqlValue])
            return BatchProgress(id: id, key: key, processed: 0, resumed: false)
        }
    }

    public func verify(
        _ inputs: [ScanInput], context: ScanContext, verifier: Verifier, progress: inout BatchProgress
    ) throws -> [Verification] {
        let start = progress
        let (results, next) = try write("Saving a batch") { session -> ([Verification], BatchProgress) in
            try lockItems(inputs, session: session)
            var progress: BatchProgress? = start
            let results = try verifyAll(
                inputs, context: context, mode: .batch, verifier: verifier, save: true, batchID: start.id, progress: &progress, session: session)
            var next = progress ?? start
            next.processed += inputs.count
            try session.execute("UPDATE batchRun SET processed = ? WHERE id = ?", [next.processed.sqlValue, next.id.sqlValue])
            return (results, next)
        }
        progress = next
        return results
    }

    public func finishBatch(_ progress: BatchProgress) throws {
        try write("Finishing a batch") { session in
            try session.execute("UPDATE batchRun SET finished = 1 WHERE id = ?", [progress.id.sqlValue])
        }
    }

    public func record(_ scans: [ScanRecord]) throws {
        try write("Saving scans") { session in
            // Scans with ids keep them; the others get new ones.
            try Self.insertScans(scans.filter { $0.id != nil }, session: session)
            try Self.insertScans(scans.filter { $0.id == nil }, session: session)
            if scans.contains(where: { $0.id != nil }) { try Self.resetIdentity("scan", session: session) }
        }
    }

    /// Moves a table's id sequence past its highest id (after rows were saved with their own ids).
    static func resetIdentity(_ table: String, session: PostgresSession) throws {
        try session.run(
            "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), GREATEST((SELECT MAX(id) FROM \(table)), 1), (SELECT MAX(id) IS NOT NULL FROM \(table)))"
        )
    }

    // MARK: History

    /// The scan's columns (without the search vector).
    static let scanColumns =
        "scan.id, scan.time, scan.device, scan.mode, scan.sourceFile, scan.symbology, scan.payload, scan.format, scan.gtin, scan.serial, "
        + "scan.lot, scan.expiry, scan.productName, scan.brand, scan.category, scan.verdict, scan.reasons, scan.notes, scan.latitude, "
        + "scan.longitude, scan.country, scan.batchID"

    /// The text-search query for user text: each word a prefix, all required (the words as
    /// SQLite's search takes them, lower-cased as the index holds them).
    static func tsquery(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        guard !words.isEmpty else { return nil }
        return words.map { quoted($0.lowercased()) + ":*" }.joined(separator: " & ")
    }

    /// A lexeme quoted for a text-search query.
    static func quoted(_ lexeme: String) -> String {
        "'" + lexeme.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Scans a search first looks among: the newest this many.
    static let searchWindow = 5_000

    /// The WHERE clauses and their arguments for a query's filters and search. With a search, the
    /// category and result filters are also part of the text-search query (the index narrows by
    /// them too; the SQL clauses stay for exactness).
    func filters(_ query: HistoryQuery, session: PostgresSession) throws -> (clauses: [String], arguments: [DatabaseValue]) {
        var clauses: [String] = []
        var arguments: [DatabaseValue] = []
        if let search = query.search, var terms = Self.tsquery(search) {
            terms = "(" + terms + ")"
            if let category = query.category { terms += " & " + Self.quoted("#c=" + category.lowercased()) }
            switch query.result {
            case .all: break
            case .success: terms += " & " + Self.quoted("#v=authentic")
            case .failed: terms += " & !" + Self.quoted("#v=authentic")
            }
            clauses.append("scan.search @@ ?::tsquery")
            arguments.append(terms.sqlValue)
        }
        switch query.result {
        case .all: break
        case .success: clauses.append("scan.verdict = 'authentic'")
        case .failed: clauses.append("scan.verdict <> 'authentic'")
        }
        if let category = query.category {
            clauses.append("lower(scan.category) = lower(?)")
            arguments.append(category.sqlValue)
        }
        if let device = query.device {
            clauses.append("scan.device = ?")
            arguments.append(device.sqlValue)
        }
        let period = try query.period ?? (try Self.setting("history.period", session: session)).flatMap(Period.init(rawValue:)) ?? .all
        if let seconds = period.seconds {
            clauses.append("scan.time >= ?")
            arguments.append((query.now - seconds).sqlValue)
        }
        return (clauses, arguments)
    }

    public func history(_ query: HistoryQuery) throws -> HistoryPage {
        try read("Reading the history") { session in
            var (clauses, arguments) = try filters(query, session: session)
            let limit = max(1, query.limit)
            let offset = max(0, query.offset)
            let whereSQL = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
            arguments += [(limit + 1).sqlValue, offset.sqlValue]
            var rows: [Row]
            if query.search.flatMap(Self.tsquery) == nil {
                rows = try session.rows("SELECT \(Self.scanColumns) FROM scan\(whereSQL) ORDER BY scan.id DESC LIMIT ? OFFSET ?", arguments)
            } else {
                // The newest scans first: when they hold the whole page (and one more), it is the
                // page, whatever older scans match.
                rows = try session.rows(
                    """
                    SELECT \(Self.scanColumns) FROM (SELECT * FROM scan ORDER BY id DESC LIMIT \(Self.searchWindow)) AS scan\(whereSQL)
                    ORDER BY scan.id DESC LIMIT ? OFFSET ?
                    """, arguments)
                if rows.count <= limit {
                    // Rare words: through the index, then sorted (walking the whole table newest
                    // first, which the planner may prefer for words it guesses to be common, is
                    // what the first look already did).
                    rows = try session.transaction { session in
                        try session.run("SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)")
                        return try session.rows(
                            "SELECT \(Self.scanColumns) FROM scan\(whereSQL) ORDER BY scan.id DESC LIMIT ? OFFSET ?", arguments)
                    }
                }
            }
            var scans = try rows.map(ScanRecord.init(row:))
            let hasMore = scans.count > limit
            if hasMore { scans.removeLast() }
            return HistoryPage(scans: scans, hasMore: hasMore, nextOffset: hasMore ? offset + limit : nil)
        }
    }

    public func scan(id: Int64) throws -> ScanDetails? {
        try read("Reading scan #\(id)") { session in
            guard let row = try session.row("SELECT \(Self.scanColumns) FROM scan WHERE id = ?", [id.sqlValue]) else { return nil }
            let scan = try ScanRecord(row: row)
            let reports = try session.rows("SELECT id, scan, reason, reportedAt FROM report WHERE scan = ? ORDER BY id", [id.sqlValue]).map { row in
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

    public func report(scanID: Int64, reason: String?, at time: Double) throws -> CounterfeitReport {
        try write("Reporting scan #\(scanID)") { session in
            guard try session.exists("SELECT 1 FROM scan WHERE id = ? FOR KEY SHARE", [scanID.sqlValue]) else {
                throw StoreError(code: "notFound", message: "There is no scan #\(scanID).")
            }
            var report = CounterfeitReport(scan: scanID, reason: reason, reportedAt: time)
            let row = try session.row(
                "INSERT INTO report(scan, reason, reportedAt) VALUES (?, ?, ?) RETURNING id", [scanID.sqlValue, reason.sqlValue, time.sqlValue])
            report.id = try row?.decode(Int64.self, forColumn: "id")
            return report
        }
    }

    public func addUser(_ owner: PlateOwner) throws {
        try write("Adding a user") { session in
            let inserted = try session.row(
                """
                INSERT INTO plateOwner(id, name, email, plate, canonicalPlate, region) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING RETURNING id
                """,
                [
                    owner.id.sqlValue, owner.name.sqlValue, owner.email.sqlValue, owner.plate.sqlValue, PlateText.canonical(owner.plate).sqlValue,
                    owner.country.rawValue.sqlValue,
                ])
            if inserted == nil { throw StoreError(code: "duplicate", message: "The recipient id \(owner.id) is taken.") }
        }
    }

    public func userExists(id: String) throws -> Bool {
        try read("Looking up a user") { session in try session.exists("SELECT 1 FROM plateOwner WHERE id = ?", [id.sqlValue]) }
    }

    /// Terms of the newest scans' search vectors: suggestions follow what is being scanned now
    /// without reading the whole history.
    static let suggestionWindow = 5000

    public func suggestions(prefix: String, limit: Int) throws -> [String] {
        let lowered = prefix.lowercased().trimmingCharacters(in: .whitespaces)
        guard !lowered.isEmpty else { return [] }
        let pattern = lowered.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try read("Reading search suggestions") { session in
            try session.rows(
                """
                SELECT term, count(*) AS docs FROM (
                    SELECT unnest(tsvector_to_array(search)) AS term FROM (
                        SELECT search FROM scan ORDER BY id DESC LIMIT \(Self.suggestionWindow)) AS newest) AS terms
                WHERE term LIKE ? AND term NOT LIKE '#%' GROUP BY term ORDER BY docs DESC, term COLLATE "C" LIMIT ?
                """, [pattern.sqlValue, limit.sqlValue]
            ).compactMap { try? $0.decode(String.self, forColumn: "term") }
        }
    }

    public func rememberSearch(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        try write("Remembering a search") { session in
            try session.execute(
                "INSERT INTO recentSearch(text, usedAt) VALUES (?, ?) ON CONFLICT (text) DO UPDATE SET usedAt = excluded.usedAt",
                [trimmed.sqlValue, Date().timeIntervalSince1970.sqlValue])
            // Keep the newest 50.
            try session.execute(
                "DELETE FROM recentSearch WHERE text NOT IN (SELECT text FROM recentSearch ORDER BY usedAt DESC, seq DESC LIMIT 50)", [])
        }
    }

    public func recentSearches(limit: Int) throws -> [String] {
        try read("Reading recent searches") { session in
            try session.rows("SELECT text FROM recentSearch ORDER BY usedAt DESC, seq DESC LIMIT ?", [limit.sqlValue])
                .compactMap { try? $0.decode(String.self, forColumn: "text") }
        }
    }

    public func statistics(_ query: HistoryQuery) throws -> Statistics {
        try read("Counting scans") { session in
            let (clauses, arguments) = try filters(query, session: session)
            let whereSQL = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
            func counts(_ key: String, order: String, valid: (String) -> Bool) throws -> [Statistics.Count] {
                try session.rows("SELECT (\(key)) COLLATE \"C\" AS k, COUNT(*) AS n FROM scan\(whereSQL) GROUP BY k ORDER BY \(order)", arguments).map { row in
                    guard let key = try? row.decode(String.self, forColumn: "k"), valid(key),
                        let count = try? row.decode(Int.self, forColumn: "n")
                    else { throw try Self.damage(session) }
                    return Statistics.Count(key: key, count: count)
                }
            }
            let byVerdict = try counts("scan.verdict", order: "n DESC, k") { Verdict(rawValue: $0) != nil }
            let reported =
                try session.row(
                    "SELECT COUNT(DISTINCT scan.id) AS n FROM scan JOIN report ON report.scan = scan.id\(whereSQL)", arguments
                )?.decode(Int.self, forColumn: "n") ?? 0
            return Statistics(
                total: byVerdict.reduce(0) { $0 + $1.count }, reported: reported, byVerdict: byVerdict,
                byCategory: try counts("COALESCE(scan.category, 'uncategorised')", order: "n DESC, k") { _ in true },
                perDay: try counts("to_char(to_timestamp(scan.time) AT TIME ZONE 'UTC', 'YYYY-MM-DD')", order: "k") { _ in true })
        }
    }

    /// The error for the first scan statistics cannot count (a verdict Seer does not know).
    static func damage(_ session: PostgresSession) throws -> StoreError {
        let verdicts = Verdict.allCases.map { "'\($0.rawValue)'" }.joined(separator: ",")
        if let suspect = try session.row("SELECT \(scanColumns) FROM scan WHERE verdict NOT IN (\(verdicts)) ORDER BY id LIMIT 1", []) {
            do {
                _ = try ScanRecord(row: suspect)
            } catch let error as StoreError {
                return error
            }
            let id = (try? suspect.decode(Int64.self, forColumn: "id")).map(String.init) ?? "?"
            return StoreError(code: "damagedRow", message: "Scan #\(id) in the database is damaged: its verdict cannot be counted.")
        }
        return StoreError(code: "damagedRow", message: "A scan in the database is damaged and cannot be counted.")
    }

    // MARK: Plates, messages, chargers, settings

    public func charger(id: String) throws -> Charger? {
        try read("Looking up charger \(id)") { session in try DatabaseLookup(db: session).charger(id: id) }
    }

    public func resolvePlate(
        _ text: String, country: Country?, region: PlateRegion?, candidates: [String], resolver: PlateResolver
    ) throws -> PlateResolution {
        try read("Looking up a plate") { session in
            try resolver.resolve(text, country: country, region: region, candidates: candidates, in: DatabaseLookup(db: session))
        }
    }

    public func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt {
        try write("Delivering a message") { session in
            guard try session.exists("SELECT 1 FROM plateOwner WHERE id = ? FOR KEY SHARE", [recipient.sqlValue]) else {
                throw StoreError(code: "unknownRecipient", message: "No recipient \(recipient).")
            }
            try session.execute(
                "INSERT INTO inbox(recipient, text, preset, sentAt) VALUES (?, ?, ?, ?)",
                [recipient.sqlValue, text.sqlValue, preset.sqlValue, time.sqlValue])
        }
        return DeliveryReceipt()
    }

    public func inbox(recipient: String) throws -> [InboxMessage] {
        try read("Reading the inbox") { session in
            try session.rows(
                "SELECT id, recipient, text, preset, sentAt FROM inbox WHERE recipient = ? ORDER BY sentAt DESC, id DESC", [recipient.sqlValue]
            ).map { row in
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
        try read("Reading a setting") { session in try Self.setting(key, session: session) }
    }

    static func setting(_ key: String, session: PostgresSession) throws -> String? {
        try session.row("SELECT value FROM setting WHERE key = ?", [key.sqlValue]).flatMap { try? $0.decode(String.self, forColumn: "value") }
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try write("Saving a setting") { session in
            try session.execute(
                "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key.sqlValue, value.sqlValue])
        }
    }
}

// MARK: API keys

extension PostgresStore: APIKeyStorage {
    public func insertAPIKey(_ info: APIKeyInfo, hash: String) throws {
        try write("Saving the key") { session in try APIKeyTable.insert(info, hash: hash, db: session) }
    }

    public func apiKey(hash: String) throws -> APIKeyInfo? {
        try read("Checking the key") { session in try APIKeyTable.find(hash: hash, db: session) }
    }

    public func apiKeys() throws -> [APIKeyInfo] {
        try read("Listing the keys") { session in try APIKeyTable.all(db: session) }
    }

    public func revokeAPIKey(id: String, at time: Double) throws -> APIKeyInfo {
        try write("Revoking the key") { session in try APIKeyTable.revoke(id: id, at: time, db: session) }
    }

    public func bindAPIKey(id: String, recipient: String) throws {
        try write("Binding the key") { session in try APIKeyTable.bind(id: id, recipient: recipient, db: session) }
    }
}

/// Registry reads remembered for the length of one call (a batch reads the same brands, keys and
/// products again and again; each answer is one round trip to the server), and the serials and
/// prior scans of the call's items, read at once and kept up to date with the scans the call saves.
final class CachedLookup<SQL: SQLAccess>: RegistryLookup, ScanHistoryLookup {
    let lookup: DatabaseLookup<SQL>
    var keys: [String: (key: BrandKey, brand: String)?] = [:]
    var brands: [String: Brand?] = [:]
    var products: [String: Product?] = [:]
    var serials: [String: SerialRecord?] = [:]
    /// Scans of the prefetched items since ``historySince``, oldest first.
    var history: [String: [PriorScan]] = [:]
    var historySince = Double.infinity

    init(_ lookup: DatabaseLookup<SQL>) {
        self.lookup = lookup
    }

    static func item(_ gtin: String, _ serial: String) -> String { gtin + "\u{1D}" + serial }

    /// Reads the serial records and the scans since `since` of `items`.
    func prefetch(_ items: [(gtin: String, serial: String)], since: Double, session: PostgresSession) throws {
        var unique: [(gtin: String, serial: String)] = []
        var seen = Set<String>()
        for item in items where seen.insert(Self.item(item.gtin, item.serial)).inserted { unique.append(item) }
        guard !unique.isEmpty else { return }
        for start in stride(from: 0, to: unique.count, by: 500) {
            let chunk = unique[start..<min(unique.count, start + 500)]
            let pairs = Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ", ")
            let arguments = chunk.flatMap { [$0.gtin.sqlValue, $0.serial.sqlValue] }
            for item in chunk { serials[Self.item(item.gtin, item.serial)] = .some(nil) }
            for row in try session.rows("SELECT gtin, serial, status FROM serial WHERE (gtin, serial) IN (\(pairs))", arguments) {
                let gtin: String = try row.required("gtin", of: "A serial")
                let serial: String = try row.required("serial", of: "A serial")
                let status: String = try row.required("status", of: "Serial \(serial)")
                guard let parsed = SerialStatus(rawValue: status) else {
                    throw StoreError(
                        code: "damagedRow", message: "Serial \(serial) in the database is damaged: its status '\(status.prefix(40))' is unknown.")
                }
                serials[Self.item(gtin, serial)] = .some(SerialRecord(gtin: gtin, serial: serial, status: parsed))
            }
            for item in chunk { history[Self.item(item.gtin, item.serial)] = [] }
            for row in try session.rows(
                """
                SELECT id, gtin, serial, time, device, country, latitude, longitude FROM scan
                WHERE (gtin, serial) IN (\(pairs)) AND time >= ? ORDER BY time, id
                """, arguments + [since.sqlValue])
            {
                let record = "Scan #\((try? row.decode(Int64.self, forColumn: "id")).map(String.init) ?? "?")"
                let gtin: String = try row.required("gtin", of: record)
                let serial: String = try row.required("serial", of: record)
                history[Self.item(gtin, serial), default: []].append(
                    PriorScan(
                        time: try row.required("time", of: record), device: try row.optional("device", of: record),
                        country: try row.optional("country", of: record), latitude: try row.optional("latitude", of: record),
                        longitude: try row.optional("longitude", of: record)))
            }
        }
        historySince = since
    }

    /// Adds a scan this call saved to its item's history.
    func saved(gtin: String, serial: String, _ scan: PriorScan) {
        let item = Self.item(gtin, serial)
        guard var scans = history[item] else { return }
        let index = scans.lastIndex { $0.time <= scan.time }.map { $0 + 1 } ?? 0
        scans.insert(scan, at: index)
        history[item] = scans
    }

    func key(id: String) throws -> (key: BrandKey, brand: String)? {
        if let known = keys[id] { return known }
        let found = try lookup.key(id: id)
        keys[id] = .some(found)
        return found
    }

    func brand(id: String) throws -> Brand? {
        if let known = brands[id] { return known }
        let found = try lookup.brand(id: id)
        brands[id] = .some(found)
        return found
    }

    func product(gtin: String) throws -> Product? {
        if let known = products[gtin] { return known }
        let found = try lookup.product(gtin: gtin)
        products[gtin] = .some(found)
        return found
    }

    func serial(gtin: String, serial: String) throws -> SerialRecord? {
        if let known = serials[Self.item(gtin, serial)] { return known }
        return try lookup.serial(gtin: gtin, serial: serial)
    }

    func priorScans(gtin: String, serial: String, since time: Double) throws -> [PriorScan] {
        if time >= historySince, let scans = history[Self.item(gtin, serial)] { return scans.filter { $0.time >= time } }
        return try lookup.priorScans(gtin: gtin, serial: serial, since: time)
    }
}
