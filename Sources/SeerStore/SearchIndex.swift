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
    static let columns = Schema.searched.joined(separator: ", ")

    /// Removes the deleted scan `old` from the index.
    static let remove = """
        INSERT INTO scanSearch(scanSearch, rowid, \(columns))
        VALUES ('delete', old.id, \(Schema.searched.map { "old." + $0 }.joined(separator: ", ")));
        """

    /// The schema step: the insert trigger gives way to the mark (every scan there is indexed by then),
    /// and a delete removes a scan from the index only when it is in it.
    static let migration = [
        "DROP TRIGGER scan_ai",
        "DROP TRIGGER scan_ad",
        "CREATE TABLE searchIndexState (id INTEGER PRIMARY KEY CHECK (id = 1), indexedThrough INTEGER NOT NULL)",
        "INSERT INTO searchIndexState(id, indexedThrough) VALUES (1, (SELECT IFNULL(MAX(id), 0) FROM scan))",
        """
        CREATE TRIGGER scan_ad AFTER DELETE ON scan
        WHEN old.id <= (SELECT indexedThrough FROM searchIndexState) BEGIN
            \(remove)
            UPDATE searchIndexState SET indexedThrough = MIN(indexedThrough, (SELECT IFNULL(MAX(id), 0) FROM scan));
        END
        """,
    ]

    /// The highest scan id in the index.
    static func indexedThrough(_ db: some SQLConnection) throws -> Int64 {
        try db.value("SELECT indexedThrough FROM searchIndexState") ?? 0
    }

    /// How many scans wait to be indexed (an upper bound when ids have gaps).
    static func waiting(_ db: some SQLConnection) throws -> Int64 {
        let last: Int64 = try db.value("SELECT IFNULL(MAX(id), 0) FROM scan") ?? 0
        return max(0, last - (try indexedThrough(db)))
    }

    /// After saving scans up to `last` in this transaction: indexes the waiting scans when a group
    /// is full.
    static func saved(through last: Int64, _ db: some SQLConnection) throws {
        if last - (try indexedThrough(db)) >= group { try indexWaiting(db) }
    }

    /// Indexes every waiting scan, in the caller's write transaction.
    static func indexWaiting(_ db: some SQLConnection) throws {
        let through = try indexedThrough(db)
        let last: Int64 = try db.value("SELECT IFNULL(MAX(id), 0) FROM scan") ?? 0
        guard last > through else { return }
        try db.execute("INSERT INTO scanSearch(rowid, \(columns)) SELECT id, \(columns) FROM scan WHERE id > ? ORDER BY id", [.integer(through)])
        try db.execute("UPDATE searchIndexState SET indexedThrough = ?", [.integer(last)])
    }

    /// Indexes one scan saved with an id of its own at or below the mark (a copied scan).
    static func indexOne(_ id: Int64, _ db: some SQLConnection) throws {
        try db.execute("INSERT INTO scanSearch(rowid, \(columns)) SELECT id, \(columns) FROM scan WHERE id = ?", [.integer(id)])
    }
}
