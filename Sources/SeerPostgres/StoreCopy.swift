import Foundation
import SeerStore

/// What ``PostgresStore/copy(from:)`` moved, table by table.
public struct CopySummary: Sendable, Codable, Equatable {
    /// One table's rows.
    public struct Table: Sendable, Codable, Equatable {
        /// The table.
        public var table: String
        /// Rows copied.
        public var rows: Int
    }

    /// Every table, in the order copied.
    public var tables: [Table]
}

extension SQLStore where Backend == PostgresDatabase {
    /// The tables a history holds, parents first, with their columns (ids kept, so reports and
    /// inbox messages still point at their rows).
    static var copiedTables: [(table: String, columns: [String], ordered: String)] {
        [
            ("brand", ["id", "name", "requiresSignature"], "id"),
            ("brandKey", ["kid", "brand", "algorithm", "publicKey", "status"], "kid"),
            ("product", ["gtin", "name", "brand", "category", "markets"], "gtin"),
            ("serial", ["gtin", "serial", "status"], "gtin, serial"),
            ("plateOwner", ["id", "name", "email", "plate", "canonicalPlate", "region"], "id"),
            ("charger", ["id", "serial", "location", "status"], "id"),
            ("scan", Schema.scanColumns, "id"),
            ("report", ["id", "scan", "reason", "reportedAt"], "id"),
            ("inbox", ["id", "recipient", "text", "preset", "sentAt"], "id"),
            ("recentSearch", ["text", "usedAt"], "usedAt, rowid"),
            ("setting", ["key", "value"], "key"),
            ("batchRun", ["id", "key", "startedAt", "processed", "finished"], "id"),
            ("apiKey", ["id", "hash", "role", "name", "recipient", "createdAt", "revokedAt"], "id"),
        ]
    }

    /// Copies a SQLite store's registry and history into this database, which must hold none yet,
    /// in one transaction (all or nothing). Scans are read with every check ``ScanRecord`` makes: a
    /// damaged row stops the copy and is named.
    /// - Throws: ``StoreError`` (`notEmpty` when this database already holds data).
    public func copy(from source: SQLiteStore) throws -> CopySummary {
        try write("Copying \(source.path) into \(location)") { session in
            for (table, _, _) in Self.copiedTables where try session.exists("SELECT 1 FROM \(table) LIMIT 1", []) {
                throw StoreError(
                    code: "notEmpty", message: "The database \(location) already holds data (table \(table)): copy into an empty database.")
            }
            var summary = CopySummary(tables: [])
            for (table, columns, ordered) in Self.copiedTables {
                var copied = 0
                var lastKey: Int64 = .min
                // Pages of rows; scans by id, so a large history never sits in memory at once.
                let page = 2_000
                var offset = 0
                while true {
                    let rows = try source.backend.read { db in
                        try table == "scan"
                            ? db.rows("SELECT * FROM scan WHERE id > ? ORDER BY id LIMIT ?", [.integer(lastKey), .integer(Int64(page))])
                            : db.rows(
                                "SELECT \(columns.joined(separator: ", ")) FROM \(table) ORDER BY \(ordered) LIMIT ? OFFSET ?",
                                [.integer(Int64(page)), .integer(Int64(offset))])
                    }
                    if rows.isEmpty { break }
                    offset += rows.count
                    if table == "scan" {
                        let scans = try rows.map(ScanRecord.init(row:))
                        lastKey = scans.last?.id ?? lastKey
                        try insertScans(scans, session)
                    } else {
                        _ = try insertMany(table, columns, rows.map { row in columns.map { row[$0] } }, returningIDs: false, session)
                    }
                    copied += rows.count
                }
                summary.tables.append(.init(table: table, rows: copied))
            }
            for table in ["scan", "report", "inbox"] { try resetIdentity(table, session) }
            return summary
        }
    }
}
