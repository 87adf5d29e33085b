import Foundation
import GRDB
import SeerVerify

/// The embedded store: one SQLite file in WAL mode, migrated on open, with FTS5 search over the history.
public final class SQLiteStore: SeerStore {
    let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw StoreError(code: "cannotOpen", message: "Cannot open the database \(path): \(error.message ?? "\(error)")")
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
        return try pool.write { db in
            try RegistryImporter(db: db, files: decoded).run()
        }
    }

    static func decode(name: String, data: Data) throws -> RegistryFile {
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
            for input in inputs {
                var duplicate: Reason?
                if mode == .batch { duplicate = batch.check(input.payload) }
                if duplicate == nil, let file = input.sourceFile {
                    duplicate = photos[file, default: DuplicateTracker(reason: .duplicateInPhoto)].check(input.payload)
                }
                var result = try verifier.verify(input.payload, context: context, registry: lookup, history: lookup, duplicate: duplicate)
                result.source = input.sourceFile
                result.symbology = input.symbology
                if save {
                    var record = ScanRecord(
                        result, context: context, mode: mode, sourceFile: input.sourceFile, symbology: input.symbology,
                        batchID: batchID)
                    try record.insert(db)
                }
                results.append(result)
            }
            return results
        }
        return save ? try pool.write(work) : try pool.read(work)
    }

    public func record(_ scans: [ScanRecord]) throws {
        try pool.write { db in
            for var scan in scans { try scan.insert(db) }
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
            clauses.append("scan.category = ?")
            _ = arguments.append(contentsOf: [category])
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
        try pool.read { db in
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
    }

    public func suggestions(prefix: String, limit: Int) throws -> [String] {
        let lowered = prefix.lowercased().trimmingCharacters(in: .whitespaces)
        guard !lowered.isEmpty else { return [] }
        return try pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT term FROM scanSearchVocab WHERE term >= ? AND term < ?
                    ORDER BY doc DESC, term LIMIT ?
                    """,
                arguments: [lowered, lowered + "\u{10FFFF}", limit])
        }
    }

    public func rememberSearch(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recentSearch(text, usedAt) VALUES (?, ?)
                    ON CONFLICT(text) DO UPDATE SET usedAt = excluded.usedAt
                    """,
                arguments: [trimmed, Date().timeIntervalSince1970])
            // Keep the newest 50.
            try db.execute(
                sql: "DELETE FROM recentSearch WHERE text NOT IN (SELECT text FROM recentSearch ORDER BY usedAt DESC, rowid DESC LIMIT 50)")
        }
    }

    public func recentSearches(limit: Int) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT text FROM recentSearch ORDER BY usedAt DESC, rowid DESC LIMIT ?", arguments: [limit])
        }
    }

    public func statistics(_ query: HistoryQuery) throws -> Statistics {
        try pool.read { db in
            var (clauses, arguments) = try filters(query, db: db)
            var from = "scan"
            if let terms = try searchTerms(query, db: db) {
                from = "scanSearch CROSS JOIN scan ON scan.id = scanSearch.rowid"
                clauses.insert("scanSearch MATCH ? AND scanSearch.rowid >= ?", at: 0)
                arguments = StatementArguments([terms.match]) + StatementArguments([terms.minimumID]) + arguments
            }
            let whereSQL = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
            func counts(_ key: String, order: String) throws -> [Statistics.Count] {
                try Row.fetchAll(
                    db, sql: "SELECT \(key) AS k, COUNT(*) AS n FROM \(from)\(whereSQL) GROUP BY k ORDER BY \(order)",
                    arguments: arguments
                ).map { Statistics.Count(key: $0["k"], count: $0["n"]) }
            }
            let byVerdict = try counts("scan.verdict", order: "n DESC, k")
            return Statistics(
                total: byVerdict.reduce(0) { $0 + $1.count }, byVerdict: byVerdict,
                byCategory: try counts("COALESCE(scan.category, 'uncategorised')", order: "n DESC, k"),
                perDay: try counts("date(scan.time, 'unixepoch')", order: "k"))
        }
    }

    // MARK: Plates, messages, chargers, settings

    public func charger(id: String) throws -> Charger? {
        try pool.read { db in try DatabaseLookup(db: db).charger(id: id) }
    }

    public func resolvePlate(_ text: String, region: String?, candidates: [String], resolver: PlateResolver) throws -> PlateResolution {
        try pool.read { db in
            try resolver.resolve(text, region: region, candidates: candidates, in: DatabaseLookup(db: db))
        }
    }

    public func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt {
        try pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM plateOwner WHERE id = ?", arguments: [recipient]) == true else {
                throw StoreError(code: "unknownRecipient", message: "No recipient \(recipient).")
            }
            var message = InboxMessage(recipient: recipient, text: text, preset: preset, sentAt: time)
            try message.insert(db)
        }
        return DeliveryReceipt()
    }

    public func inbox(recipient: String) throws -> [InboxMessage] {
        try pool.read { db in
            try InboxMessage.fetchAll(
                db, sql: "SELECT * FROM inbox WHERE recipient = ? ORDER BY sentAt DESC, id DESC", arguments: [recipient])
        }
    }

    public func setting(_ key: String) throws -> String? {
        try pool.read { db in try Self.setting(key, db: db) }
    }

    static func setting(_ key: String, db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }
}

/// Registry and history reads inside one database access, with cached statements.
struct DatabaseLookup: RegistryLookup, ScanHistoryLookup, PlateDirectory {
    let db: Database

    func key(id: String) throws -> (key: BrandKey, brand: String)? {
        let statement = try db.cachedStatement(sql: "SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE kid = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return (try Self.brandKey(row), row["brand"])
    }

    static func brandKey(_ row: Row) throws -> BrandKey {
        guard let algorithm = SignatureAlgorithm(rawValue: row["algorithm"]), let status = KeyStatus(rawValue: row["status"]) else {
            throw StoreError(code: "corrupt", message: "Key \(row["kid"] as String? ?? "?") has an unknown algorithm or status.")
        }
        return BrandKey(kid: row["kid"], algorithm: algorithm, publicKey: row["publicKey"], status: status)
    }

    func brand(id: String) throws -> Brand? {
        let statement = try db.cachedStatement(sql: "SELECT id, name, requiresSignature FROM brand WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        let keys = try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE brand = ?"),
            arguments: [id]
        ).map(Self.brandKey)
        return Brand(id: row["id"], name: row["name"], requiresSignature: row["requiresSignature"], keys: keys)
    }

    func product(gtin: String) throws -> Product? {
        let statement = try db.cachedStatement(sql: "SELECT gtin, name, brand, category, markets FROM product WHERE gtin = ?")
        guard let row = try Row.fetchOne(statement, arguments: [gtin]) else { return nil }
        let markets = (row["markets"] as String).split(separator: ",").map(String.init)
        return Product(gtin: row["gtin"], name: row["name"], brand: row["brand"], category: row["category"], markets: markets)
    }

    func serial(gtin: String, serial: String) throws -> SerialRecord? {
        let statement = try db.cachedStatement(sql: "SELECT status FROM serial WHERE gtin = ? AND serial = ?")
        guard let status = try String.fetchOne(statement, arguments: [gtin, serial]) else { return nil }
        guard let parsed = SerialStatus(rawValue: status) else {
            throw StoreError(code: "corrupt", message: "Serial \(serial) has an unknown status '\(status)'.")
        }
        return SerialRecord(gtin: gtin, serial: serial, status: parsed)
    }

    func priorScans(gtin: String, serial: String, since time: Double) throws -> [PriorScan] {
        let statement = try db.cachedStatement(
            sql: "SELECT time, device, country, latitude, longitude FROM scan WHERE gtin = ? AND serial = ? AND time >= ? ORDER BY time")
        return try Row.fetchAll(statement, arguments: [gtin, serial, time]).map {
            PriorScan(time: $0["time"], device: $0["device"], country: $0["country"], latitude: $0["latitude"], longitude: $0["longitude"])
        }
    }

    func recipients(forPlates plates: [String], region: String?) throws -> [String: [String]] {
        guard !plates.isEmpty else { return [:] }
        var result: [String: [String]] = [:]
        // SQLite limits bound parameters; 500 plates per query is well inside it.
        for start in stride(from: 0, to: plates.count, by: 500) {
            let chunk = Array(plates[start..<min(plates.count, start + 500)])
            var sql = "SELECT canonicalPlate, id FROM plateOwner WHERE canonicalPlate IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            var arguments = StatementArguments(chunk)
            if let region {
                sql += " AND region = ?"
                _ = arguments.append(contentsOf: [region.uppercased()])
            }
            sql += " ORDER BY id"
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                result[row["canonicalPlate"], default: []].append(row["id"])
            }
        }
        return result
    }

    func charger(id: String) throws -> Charger? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM charger WHERE id = ?", arguments: [id]) else { return nil }
        guard let status = ChargerStatus(rawValue: row["status"]) else {
            throw StoreError(code: "corrupt", message: "Charger \(id) has an unknown status.")
        }
        return Charger(id: row["id"], serial: row["serial"], location: row["location"], status: status)
    }
}
