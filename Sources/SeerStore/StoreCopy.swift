import Foundation
import GRDB

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

extension PostgresStore {
    /// The tables a history holds, parents first, with their columns (ids kept, so reports and
    /// inbox messages still point at their rows).
    static let copiedTables: [(table: String, columns: [String], ordered: String)] = [
        ("brand", ["id", "name", "requiresSignature"], "id"),
        ("brandKey", ["kid", "brand", "algorithm", "publicKey", "status"], "kid"),
        ("product", ["gtin", "name", "brand", "category", "markets"], "gtin"),
        ("serial", ["gtin", "serial", "status"], "gtin, serial"),
        ("plateOwner", ["id", "name", "email", "plate", "canonicalPlate", "region"], "id"),
        ("charger", ["id", "serial", "location", "status"], "id"),
        (
            "scan",
            [
                "id", "time", "device", "mode", "sourceFile", "symbology", "payload", "format", "gtin", "serial", "lot", "expiry",
                "productName", "brand", "category", "verdict", "reasons", "notes", "latitude", "longitude", "country", "batchID",
            ], "id"
        ),
        ("report", ["id", "scan", "reason", "reportedAt"], "id"),
        ("inbox", ["id", "recipient", "text", "preset", "sentAt"], "id"),
        ("recentSearch", ["text", "usedAt"], "usedAt, rowid"),
        ("setting", ["key", "value"], "key"),
        ("batchRun", ["id", "key", "startedAt", "processed", "finished"], "id"),
        ("apiKey", ["id", "hash", "role", "name", "recipient", "createdAt", "revokedAt"], "id"),
    ]

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
                    let rows: [Row] = try source.pool.read { db in
                        if table == "scan" {
                            return try Row.fetchAll(
                                db, sql: "SELECT * FROM scan WHERE id > ? ORDER BY id LIMIT ?", arguments: [lastKey, page])
                        }
                        return try Row.fetchAll(
                            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table) ORDER BY \(ordered) LIMIT ? OFFSET ?",
                            arguments: [page, offset])
                    }
                    if rows.isEmpty { break }
                    offset += rows.count
                    if table == "scan" {
                        let scans = try rows.map(ScanRecord.init(row:))
                        lastKey = scans.last?.id ?? lastKey
                        try Self.insertScans(scans, session: session)
                    } else {
                        try Self.insertRows(table: table, columns: columns, rows: rows, session: session)
                    }
                    copied += rows.count
                }
                summary.tables.append(.init(table: table, rows: copied))
            }
            for table in ["scan", "report", "inbox"] { try Self.resetIdentity(table, session: session) }
            return summary
        }
    }

    /// Inserts rows as they are, many per statement.
    static func insertRows(table: String, columns: [String], rows: [Row], session: PostgresSession) throws {
        let perStatement = max(1, 30_000 / columns.count)
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            var arguments: [DatabaseValue] = []
            arguments.reserveCapacity(chunk.count * columns.count)
            for row in chunk {
                for column in columns { arguments.append(row[column] as DatabaseValue) }
            }
            try session.execute(
                "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES "
                    + Array(repeating: tuple, count: chunk.count).joined(separator: ", "), arguments)
        }
    }

    /// Inserts scans (with their ids when they have them), many per statement.
    static func insertScans(_ scans: [ScanRecord], session: PostgresSession) throws {
        let columns = copiedTables.first { $0.table == "scan" }!.columns
        let rows = scans.map { scan -> Row in
            let reasons = scan.reasonsJSON
            let values: [String: (any DatabaseValueConvertible)?] = [
                "id": scan.id, "time": scan.time, "device": scan.device, "mode": scan.mode.rawValue, "sourceFile": scan.sourceFile,
                "symbology": scan.symbology, "payload": scan.payload, "format": scan.format?.rawValue, "gtin": scan.gtin,
                "serial": scan.serial, "lot": scan.lot, "expiry": scan.expiry, "productName": scan.productName, "brand": scan.brand,
                "category": scan.category, "verdict": scan.verdict.rawValue, "reasons": reasons, "notes": scan.notes,
                "latitude": scan.latitude, "longitude": scan.longitude, "country": scan.country, "batchID": scan.batchID,
            ]
            return Row(values)
        }
        let withIDs = scans.allSatisfy { $0.id != nil }
        try insertRows(table: "scan", columns: withIDs ? columns : Array(columns.dropFirst()), rows: rows, session: session)
    }
}
