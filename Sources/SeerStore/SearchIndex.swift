import GRDB

/// The full-text index of the history (`scanSearch`), kept in groups.
///
/// Indexing one scan per transaction costs most of a save: FTS5 writes a new segment, with its prefix
/// indexes, on every commit, and merges them as they pile up. So a save leaves its scans for later,
/// and the scans waiting are indexed together:
/// - in the transaction that saves the ``group``-th of them;
/// - before every search (history, statistics, suggestions), so a search always sees every scan
///   saved before it started;
/// - when the database is opened for writing.
///
/// `searchIndexState.indexedThrough` is the highest scan id in the index. A new scan's id is above
/// every id in the table (SQLite's rowid), so the scans above the mark are exactly those waiting;
/// deleting the highest indexed scans lowers the mark, so an id given out again is indexed again.
/// The index and the mark change in the same transaction as the scans.
enum SearchIndex {
    /// Scans indexed together: an index write per this many saves.
    static let group: Int64 = 32

    /// The columns of the index, as in `scan`.
    static let columns =
        "payload, device, sourceFile, symbology, gtin, serial, lot, productName, brand, category, verdict, reasons, notes, country, mode, format, expiry, batchID"

    /// The schema step: the insert trigger gives way to the mark (every scan there is indexed by then),
    /// and a delete removes a scan from the index only when it is in it.
    static let migration = """
        DROP TRIGGER scan_ai;
        DROP TRIGGER scan_ad;
        CREATE TABLE searchIndexState (
            id INTEGER PRIMARY KEY CHECK (id = 1), indexedThrough INTEGER NOT NULL);
        INSERT INTO searchIndexState(id, indexedThrough) VALUES (1, (SELECT IFNULL(MAX(id), 0) FROM scan));
        CREATE TRIGGER scan_ad AFTER DELETE ON scan
        WHEN old.id <= (SELECT indexedThrough FROM searchIndexState) BEGIN
            INSERT INTO scanSearch(scanSearch, rowid, \(columns))
            VALUES ('delete', old.id, old.payload, old.device, old.sourceFile, old.symbology, old.gtin,
                old.serial, old.lot, old.productName, old.brand, old.category, old.verdict, old.reasons,
                old.notes, old.country, old.mode, old.format, old.expiry, old.batchID);
            UPDATE searchIndexState SET indexedThrough = MIN(indexedThrough, (SELECT IFNULL(MAX(id), 0) FROM scan));
        END;
        """

    /// The highest scan id in the index.
    static func indexedThrough(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: "SELECT indexedThrough FROM searchIndexState")) ?? 0
    }

    /// The highest scan id saved.
    static func lastScan(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(id), 0) FROM scan")) ?? 0
    }

    /// How many scans wait to be indexed (an upper bound when ids have gaps).
    static func waiting(_ db: Database) throws -> Int64 {
        max(0, try lastScan(db) - indexedThrough(db))
    }

    /// After saving scans up to `last` in this transaction: indexes the waiting scans when a group
    /// is full.
    static func saved(through last: Int64, _ db: Database) throws {
        if last - (try indexedThrough(db)) >= group { try indexWaiting(db) }
    }

    /// Indexes every waiting scan, in the caller's write transaction.
    static func indexWaiting(_ db: Database) throws {
        let through = try indexedThrough(db)
        let last = try lastScan(db)
        guard last > through else { return }
        try db.execute(
            sql: "INSERT INTO scanSearch(rowid, \(columns)) SELECT id, \(columns) FROM scan WHERE id > ? ORDER BY id",
            arguments: [through])
        try db.execute(sql: "UPDATE searchIndexState SET indexedThrough = ?", arguments: [last])
    }

    /// Indexes one scan saved with an id of its own at or below the mark (a copied scan).
    static func indexOne(_ id: Int64, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO scanSearch(rowid, \(columns)) SELECT id, \(columns) FROM scan WHERE id = ?", arguments: [id])
    }
}

extension SQLiteStore {
    /// Indexes the scans waiting, so that a search that follows sees every scan saved before it.
    func indexWaitingScans() throws {
        guard !isReadOnly else { return }
        guard try pool.read({ db in try SearchIndex.waiting(db) }) > 0 else { return }
        try writeRetrying { db in try SearchIndex.indexWaiting(db) }
    }

    /// A read that searches the index: in one read transaction when no scan waits (the usual case);
    /// else after indexing those that wait. A store opened read-only cannot write the index: it
    /// searches the scans indexed when the database was last written (all but the newest few when
    /// its writer stopped without closing it).
    func searching<T>(_ body: (Database) throws -> T) throws -> T {
        let first = try pool.read { db -> T? in
            try isReadOnly || SearchIndex.waiting(db) == 0 ? body(db) : nil
        }
        if let first { return first }
        try writeRetrying { db in try SearchIndex.indexWaiting(db) }
        return try pool.read(body)
    }

    /// How many scans wait to be indexed.
    package func scansWaitingForIndex() throws -> Int64 {
        try pool.read { db in try SearchIndex.waiting(db) }
    }

    /// Checks the full-text index against the scans (FTS5's `integrity-check`), after indexing the
    /// waiting ones; a mismatch is a ``StoreError``.
    package func checkSearchIndex() throws {
        try guarded("Checking the search index") {
            try indexWaitingScans()
            try pool.write { db in try db.execute(sql: "INSERT INTO scanSearch(scanSearch, rank) VALUES ('integrity-check', 1)") }
        }
    }

    /// Saves a scan with one prepared statement (the record's id, when it has one, is kept) and sets
    /// its id.
    static func insert(_ scan: inout ScanRecord, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO scan(id, time, device, mode, sourceFile, symbology, payload, format, gtin, serial, lot, expiry,
                    productName, brand, category, verdict, reasons, notes, latitude, longitude, country, batchID)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let values: [(any DatabaseValueConvertible)?] = [
            scan.id, scan.time, scan.device, scan.mode.rawValue, scan.sourceFile, scan.symbology, scan.payload,
            scan.format?.rawValue, scan.gtin, scan.serial, scan.lot, scan.expiry, scan.productName, scan.brand,
            scan.category, scan.verdict.rawValue, scan.reasonsJSON, scan.notes, scan.latitude, scan.longitude, scan.country,
            scan.batchID,
        ]
        statement.setUncheckedArguments(StatementArguments(values))
        try statement.execute()
        scan.id = db.lastInsertedRowID
    }
}
