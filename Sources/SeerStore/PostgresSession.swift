import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

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

/// One connection's statements: `?` placeholders become `$1`, `$2`…; rows come back as GRDB rows
/// (columns by name, case ignored), so both stores read records with one set of checks.
struct PostgresSession: SQLAccess {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a statement and returns its rows.
    func query(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [PostgresRow] {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.storage {
            case .null: bindings.appendNull()
            case .int64(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .string(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings)
        return try connection.query(query, logger: logger).wait().rows
    }

    /// Runs a statement given as it is (no placeholders).
    func run(_ sql: String) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        _ = try query(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [Row] {
        try query(sql, arguments).map(Self.row)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try run("BEGIN")
        do {
            let value = try body(self)
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
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// A row as GRDB holds one: integers, doubles, text, bytes or NULL by column name.
    static func row(_ row: PostgresRow) throws -> Row {
        var values: [String: (any DatabaseValueConvertible)?] = [:]
        for cell in row {
            values[cell.columnName] = try value(cell)
        }
        return Row(values)
    }

    static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
        case .float4, .float8: return try cell.decode(Double.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return Data(buffer.readBytes(length: buffer.readableBytes) ?? []).databaseValue
        default: return try cell.decode(String.self).databaseValue
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
