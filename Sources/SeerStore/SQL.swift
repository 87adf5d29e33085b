import Foundation

/// A value bound to a statement or read from a row, in either database.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value a statement can bind.
public protocol SQLValueConvertible {
    /// The value as bound.
    var sqlValue: SQLValue { get }
    /// The value read back, or nil when the column holds something else.
    init?(sqlValue: SQLValue)
}

extension String: SQLValueConvertible {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }
}

extension Int64: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self) }
    /// An integer, or a real number with no fraction.
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(let value): self = value
        case .real(let value): guard let exact = Int64(exactly: value) else { return nil }; self = exact
        default: return nil
        }
    }
}

extension Int: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue: SQLValue) { guard let value = Int64(sqlValue: sqlValue) else { return nil }; self = Int(value) }
}

extension Bool: SQLValueConvertible {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public init?(sqlValue: SQLValue) { guard let value = Int64(sqlValue: sqlValue) else { return nil }; self = value != 0 }
}

extension Double: SQLValueConvertible {
    public var sqlValue: SQLValue { .real(self) }
    /// A real number, or an integer.
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Optional where Wrapped: SQLValueConvertible {
    /// The value as bound (NULL for nil).
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One row of a result: values by column name (looked up without regard to case, as PostgreSQL
/// folds unquoted names).
public struct SQLRow: Sendable {
    /// Column positions by name, as written and lower-cased (shared by a result's rows).
    let columns: [String: Int]
    let values: [SQLValue]

    package init(columns: [String: Int], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The positions of a result's columns by name (the first of two equal names wins).
    package static func columns(_ names: [String]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated().reversed() {
            index[name.lowercased()] = position
            index[name] = position
        }
        return index
    }

    /// The column's value (NULL when there is no such column).
    public subscript(_ column: String) -> SQLValue {
        guard let position = columns[column] ?? columns[column.lowercased()] else { return .null }
        return values[position]
    }

    /// The column's value, nil when NULL, missing or of another type.
    public func get<T: SQLValueConvertible>(_ column: String, as type: T.Type = T.self) -> T? {
        T(sqlValue: self[column])
    }

    /// The column's value, or a ``StoreError`` `damagedRow` naming `record` and the column when it is
    /// missing or of another type.
    func required<T: SQLValueConvertible>(_ column: String, of record: @autoclosure () -> String) throws -> T {
        guard let value = try optional(column, of: record()) as T? else {
            throw StoreError.damaged("\(record()) in the database is damaged: its \(column) is missing.")
        }
        return value
    }

    /// The column's value, nil when NULL, or a ``StoreError`` when it is of another type.
    func optional<T: SQLValueConvertible>(_ column: String, of record: @autoclosure () -> String) throws -> T? {
        let value = self[column]
        if value == .null { return nil }
        guard let typed = T(sqlValue: value) else {
            throw StoreError.damaged("\(record()) in the database is damaged: its \(column) is not valid.")
        }
        return typed
    }
}

extension StoreError {
    /// A row holds what no record can.
    package static func damaged(_ message: String) -> StoreError { StoreError(code: "damagedRow", message: message) }
}

/// Statements on one connection, inside a read or a write transaction of a ``SQLBackend``: `?`
/// placeholders, rows read by column name.
public protocol SQLConnection {
    /// Runs a statement that returns no rows.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws
    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
    /// Runs an `INSERT` of one row into a table with an `id` column and returns the new row's id.
    func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64
    /// Runs `body` in a transaction of its own inside a read (planner settings that last until its end).
    func transaction<T>(_ body: () throws -> T) throws -> T
}

extension SQLConnection {
    /// Runs `body` as it is, for a database whose reads and writes are transactions already.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    /// The first row, or nil.
    package func row(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLRow? {
        try rows(sql, arguments).first
    }

    /// Whether the query returns a row.
    package func exists(_ sql: String, _ arguments: [SQLValue]) throws -> Bool {
        try row(sql, arguments) != nil
    }

    /// The first column of the first row, when it is a `T`.
    package func value<T: SQLValueConvertible>(_ sql: String, _ arguments: [SQLValue] = []) throws -> T? {
        try row(sql, arguments).flatMap { row in row.values.first.flatMap(T.init(sqlValue:)) }
    }
}

/// A database the store runs on: its dialect, reads and write transactions on its connections, and
/// what its errors mean.
public protocol SQLBackend: Sendable {
    associatedtype Connection: SQLConnection
    /// How its SQL differs.
    var dialect: SQLDialect { get }
    /// Whether nothing can be saved (the search index is then read as it is).
    var isReadOnly: Bool { get }
    /// Runs reads on one connection.
    func read<T>(_ body: (Connection) throws -> T) throws -> T
    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws,
    /// tried again whole while the database is busy with other writers.
    func write<T>(_ body: (Connection) throws -> T) throws -> T
    /// A failure of this database while doing `what`, as a ``StoreError``.
    func storeError(_ error: any Error, doing what: String) -> StoreError
}
