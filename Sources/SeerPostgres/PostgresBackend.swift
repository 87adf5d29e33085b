import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SeerStore

/// Connections to one PostgreSQL database, kept open between calls. Callers block on the answers:
/// the store's interface is synchronous and is never called on one of NIO's event loops.
final class PostgresConnections: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    private let idle = NIOLockedValueBox<[PostgresConnection]>([])
    private let opened = NIOLockedValueBox(0)
    /// Connections kept open when idle; more are opened while more threads are in calls.
    let keepIdle = 16

    init(location: PostgresLocation, logger: Logger) throws(StoreError) {
        self.location = location
        self.logger = logger
        var configuration: PostgresConnection.Configuration
        if location.isUnixSocket {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: location.host + "/.s.PGSQL.\(location.port)", username: location.user, password: location.password,
                database: location.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            do {
                switch location.tls {
                case .disable: tls = .disable
                case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            } catch {
                throw StoreError(code: "cannotOpen", message: "Cannot set up TLS for \(location): \(error)")
            }
            configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(10)
        self.configuration = configuration
    }

    deinit {
        close()
    }

    /// Runs `body` on a connection of its own, opened if none is idle.
    func with<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(PostgresSession(connection: connection, logger: logger))
    }

    private func acquire() throws -> PostgresConnection {
        while let connection = idle.withLockedValue({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = opened.withLockedValue { count in
            count += 1
            return count
        }
        do {
            return try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration, id: id, logger: logger
            ).wait()
        } catch {
            throw StoreError(code: "cannotOpen", message: "Cannot connect to \(location): \(PostgresSession.describe(error))")
        }
    }

    private func release(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLockedValue { idle in
            guard idle.count < keepIdle else { return false }
            idle.append(connection)
            return true
        }
        if !kept {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
    }

    /// Closes the idle connections.
    func close() {
        let connections = idle.withLockedValue { idle in
            defer { idle = [] }
            return idle
        }
        for connection in connections { let closing: EventLoopFuture<Void> = connection.close(); try? closing.wait() }
    }
}

/// One connection's statements: `?` placeholders become `$1`, `$2`…; rows come back as the store
/// reads them (columns by name, case ignored).
public struct PostgresSession: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a statement and returns its rows (a statement with no arguments is sent as it is).
    func query(_ sql: String, _ arguments: [SQLValue] = []) throws -> [PostgresRow] {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
        }
        let query = PostgresQuery(unsafeSQL: arguments.isEmpty ? sql : Self.numbered(sql), binds: bindings)
        return try connection.query(query, logger: logger).wait().rows
    }

    /// Runs a statement given as it is (no placeholders).
    func run(_ sql: String) throws {
        _ = try query(sql)
    }

    public func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        _ = try query(sql, arguments)
    }

    public func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let result = try query(sql, arguments)
        guard let first = result.first else { return [] }
        let columns = SQLRow.columns(first.map(\.columnName))
        return try result.map { row in SQLRow(columns: columns, values: try row.map(Self.value)) }
    }

    public func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        guard let id = try rows(sql + " RETURNING id", arguments).first?.get("id", as: Int64.self) else {
            throw StoreError(code: "database", message: "A saved row got no id.")
        }
        return id
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    /// `?` placeholders (outside quoted text) numbered as PostgreSQL wants them.
    static func numbered(_ sql: String) -> String {
        guard sql.contains("?") else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if character == quote {
                quote = nil
            } else if quote == nil, character == "'" || character == "\"" {
                quote = character
            } else if quote == nil, character == "?" {
                number += 1
                result += "$\(number)"
                continue
            }
            result.append(character)
        }
        return result
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(buffer.readBytes(length: buffer.readableBytes) ?? [])
        default: return .text(try cell.decode(String.self))
        }
    }

    /// The SQLSTATE of a server error, e.g. `40P01`.
    static func state(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// What went wrong, in the server's words where it gave some.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.detail].map { " (\($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

/// The shared store: one PostgreSQL database that any number of Seer processes (CLI runs, service
/// replicas) read and write at once, with the same schema steps, records and queries as
/// ``SQLiteStore`` (see ``SQLStore`` for where the two differ).
public typealias PostgresStore = SQLStore<PostgresDatabase>

/// A PostgreSQL database under the store: connections kept open between calls, transactions
/// retried whole when the server gives them up for a deadlock or a serialization failure.
public final class PostgresDatabase: SQLBackend {
    let connections: PostgresConnections
    /// Where the database is.
    public let location: PostgresLocation
    /// Tries of a transaction that met a deadlock or a serialization failure.
    let retries = 8
    public var dialect: SQLDialect { .postgres }
    public var isReadOnly: Bool { false }

    /// Connects to the database at `location` and migrates it to the current schema.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public init(location: PostgresLocation, logger: Logger) throws {
        self.location = location
        connections = try PostgresConnections(location: location, logger: logger)
        do {
            try migrate()
        } catch {
            let message = (error as? StoreError)?.message ?? storeError(error, doing: "Migrating \(location)").message
            throw StoreError(code: "cannotOpen", message: message)
        }
    }

    public func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try connections.with(body)
    }

    public func write<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try connections.with { session in try session.transaction { try body(session) } }
            } catch where ["40001", "40P01"].contains(PostgresSession.state(error)) && attempt + 1 < retries {
                attempt += 1
                usleep(UInt32.random(in: 1_000...20_000) * UInt32(attempt))
            }
        }
    }

    public func storeError(_ error: any Error, doing what: String) -> StoreError {
        let detail = PostgresSession.describe(error)
        switch PostgresSession.state(error) {
        case "53100": return StoreError(code: "diskFull", message: "\(what) failed: the disk of \(location) is full (nothing of this step was saved).")
        case "25006": return StoreError(code: "readOnly", message: "\(what) failed: the database \(location) is read-only.")
        case "40001", "40P01", "55P03", "57014": return StoreError(code: "busy", message: "\(what) failed: other writers kept \(location) busy (\(detail)).")
        case "22P02", "22003", "22021": return StoreError(code: "damagedRow", message: "\(what) failed: a row in \(location) is damaged (\(detail)).")
        default: return StoreError(code: "database", message: "\(what) failed in \(location): \(detail)")
        }
    }

    /// Applies the steps not yet applied, one process at a time (an advisory lock), in one transaction.
    func migrate() throws {
        try write { session in
            try session.run("SELECT pg_advisory_xact_lock(5365657201)")
            try session.run(
                "CREATE TABLE IF NOT EXISTS seerMigration (seq BIGINT GENERATED ALWAYS AS IDENTITY, name TEXT PRIMARY KEY, appliedAt DOUBLE PRECISION NOT NULL)"
            )
            let applied = Set(try session.rows("SELECT name FROM seerMigration", []).compactMap { $0.get("name", as: String.self) })
            for migration in Schema.migrations where !applied.contains(migration.name) {
                guard let statements = migration.statements(.postgres) else { continue }
                for statement in statements { try session.run(statement) }
                try session.execute("INSERT INTO seerMigration(name, appliedAt) VALUES (?, ?)", [.text(migration.name), .real(Date().timeIntervalSince1970)])
            }
        }
    }
}

extension SQLStore where Backend == PostgresDatabase {
    /// Connects to the database at `url` (`postgres://user@host:port/database`) and migrates it to
    /// the current schema.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public convenience init(url: String, logger: Logger = Logger(label: "seer.store")) throws {
        try self.init(location: try PostgresLocation(url: url), logger: logger)
    }

    /// Connects to the database at `location` and migrates it to the current schema.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public convenience init(location: PostgresLocation, logger: Logger = Logger(label: "seer.store")) throws {
        self.init(backend: try PostgresDatabase(location: location, logger: logger))
    }

    /// Where the database is.
    public var location: PostgresLocation { backend.location }

    /// Closes the connections kept open (the store can still be used: it connects again).
    public func close() {
        backend.connections.close()
    }

    /// The names of the migrations applied, in order.
    public func appliedMigrations() throws -> [String] {
        try read("Reading the schema version") { session in
            try session.rows("SELECT name FROM seerMigration ORDER BY seq", []).compactMap { $0.get("name", as: String.self) }
        }
    }
}
