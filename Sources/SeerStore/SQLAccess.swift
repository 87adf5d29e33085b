import GRDB

/// SQL the two stores share (registry import, registry and history lookups): statements with `?`
/// placeholders, rows read by column name (case is ignored, as PostgreSQL folds unquoted names).
protocol SQLAccess {
    /// Runs a statement that returns no rows.
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws
    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [Row]
}

extension SQLAccess {
    /// The first row, or nil.
    func row(_ sql: String, _ arguments: [DatabaseValue]) throws -> Row? {
        try rows(sql, arguments).first
    }

    /// Whether the query returns a row.
    func exists(_ sql: String, _ arguments: [DatabaseValue]) throws -> Bool {
        try row(sql, arguments) != nil
    }
}

extension Database: SQLAccess {
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    }

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [Row] {
        try Row.fetchAll(try cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }
}

extension Optional where Wrapped: DatabaseValueConvertible {
    /// The value as a bound argument (NULL for nil).
    var sqlValue: DatabaseValue { self?.databaseValue ?? .null }
}

extension DatabaseValueConvertible {
    /// The value as a bound argument.
    var sqlValue: DatabaseValue { databaseValue }
}
