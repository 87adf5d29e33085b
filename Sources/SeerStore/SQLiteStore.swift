import Foundation
import GRDB

/// The embedded store: one SQLite file in WAL mode, migrated on open, with FTS5 search over the history.
public typealias SQLiteStore = SQLStore<SQLiteDatabase>

/// A SQLite file under the store (through GRDB): a pool of readers and one writer, write
/// transactions taken at once and retried while another process holds the file.
public final class SQLiteDatabase: SQLBackend {
    let pool: any DatabaseWriter
    /// The database file.
    public let path: String
    /// Whether the file was opened read-only (it can be read; saving anything is a `readOnly` error).
    public let isReadOnly: Bool
    /// Tries of a write while another process holds the database, each waiting up to the busy
    /// timeout (5 s).
    let busyRetries = 6
    public var dialect: SQLDialect { .sqlite }

    /// Opens the database at `path`; with `readOnly` (or when it cannot be written) only for reading.
    ///
    /// - Parameter maximumPages: a size limit in database pages (for tests of a full disk).
    init(path: String, readOnly: Bool, maximumPages: Int? = nil) throws {
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
    }

    /// The schema's steps (``Schema/migrations``), as GRDB records them in `grdb_migrations`.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in Schema.migrations {
            guard let statements = migration.statements(.sqlite) else { continue }
            migrator.registerMigration(migration.name) { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }

    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try pool.read { db in try body(Connection(db: db)) }
    }

    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try writeRetrying { db in try body(Connection(db: db)) }
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

    public func storeError(_ error: any Error, doing what: String) -> StoreError {
        guard let error = error as? DatabaseError else { return StoreError(code: "database", message: "\(what) failed in \(path): \(error)") }
        switch error.resultCode {
        case .SQLITE_FULL:
            return StoreError(code: "diskFull", message: "\(what) failed: the disk holding \(path) is full (nothing of this step was saved).")
        case .SQLITE_READONLY:
            return StoreError(code: "readOnly", message: "\(what) failed: the database \(path) is read-only.")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError(code: "busy", message: "\(what) failed: another program kept the database \(path) busy.")
        default:
            return StoreError(code: "database", message: "\(what) failed in \(path): \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// Statements on one of GRDB's connections, each prepared once per connection.
    public struct Connection: SQLConnection {
        let db: Database

        func statement(_ sql: String, _ arguments: [SQLValue]) throws -> Statement {
            let statement = try db.cachedStatement(sql: sql)
            try statement.setArguments(StatementArguments(arguments.map(Self.bound)))
            return statement
        }

        public func execute(_ sql: String, _ arguments: [SQLValue]) throws {
            try statement(sql, arguments).execute()
        }

        public func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
            let statement = try statement(sql, arguments)
            let columns = SQLRow.columns(statement.columnNames)
            return try Array(Row.fetchCursor(statement).map { row in SQLRow(columns: columns, values: row.databaseValues.map(Self.read)) })
        }

        public func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
            try execute(sql, arguments)
            return db.lastInsertedRowID
        }

        static func bound(_ value: SQLValue) -> DatabaseValue {
            switch value {
            case .null: .null
            case .integer(let integer): integer.databaseValue
            case .real(let real): real.databaseValue
            case .text(let text): text.databaseValue
            case .blob(let bytes): Data(bytes).databaseValue
            }
        }

        static func read(_ value: DatabaseValue) -> SQLValue {
            switch value.storage {
            case .null: .null
            case .int64(let integer): .integer(integer)
            case .double(let real): .real(real)
            case .string(let text): .text(text)
            case .blob(let data): .blob(Array(data))
            }
        }
    }
}

extension SQLStore where Backend == SQLiteDatabase {
    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    /// A database that cannot be opened for writing (a read-only file or folder) is opened read-only.
    public convenience init(path: String) throws {
        try self.init(path: path, readOnly: false)
    }

    /// Opens the database at `path`; with `readOnly` (or when it cannot be written) only for reading.
    ///
    /// - Parameter maximumPages: a size limit in database pages (for tests of a full disk).
    package convenience init(path: String, readOnly: Bool, maximumPages: Int? = nil) throws {
        self.init(backend: try SQLiteDatabase(path: path, readOnly: readOnly, maximumPages: maximumPages))
        // Scans a writer left unindexed when it stopped.
        try guarded("Opening the database") { try indexWaitingScans() }
    }

    /// The database file.
    public var path: String { backend.path }
    /// Whether the store was opened read-only (it can be read; saving anything is a `readOnly` error).
    public var isReadOnly: Bool { backend.isReadOnly }

    /// The names of the migrations applied, in order.
    public func appliedMigrations() throws -> [String] {
        try backend.pool.read { db in try SQLiteDatabase.migrator.appliedMigrations(db) }
    }

    /// The journal mode (`wal`).
    public func journalMode() throws -> String {
        try backend.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// How many scans wait to be indexed.
    package func scansWaitingForIndex() throws -> Int64 {
        try backend.read { db in try SearchIndex.waiting(db) }
    }

    /// Checks the full-text index against the scans (FTS5's `integrity-check`), after indexing the
    /// waiting ones; a mismatch is a ``StoreError``.
    package func checkSearchIndex() throws {
        try guarded("Checking the search index") {
            try indexWaitingScans()
            try backend.write { db in try db.execute("INSERT INTO scanSearch(scanSearch, rank) VALUES ('integrity-check', 1)", []) }
        }
    }
}
