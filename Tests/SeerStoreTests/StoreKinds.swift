import Foundation
import GRDB
@testable import SeerPostgres
@testable import SeerStore
import Testing

/// The two implementations every store test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds this run tests: PostgreSQL when `SEER_TEST_POSTGRES` names a server
    /// (`scripts/postgres run -- swift test`; `scripts/test` does it), with a note when it does not.
    static let testable: [StoreKind] = {
        if TestPostgres.serverURL != nil { return [.sqlite, .postgres] }
        FileHandle.standardError.write(Data("note: \(TestPostgres.skipNote)\n".utf8))
        return [.sqlite]
    }()
}

/// The test server: `SEER_TEST_POSTGRES`, a URL whose user may create databases.
enum TestPostgres {
    static let serverURL: String? = {
        let url = ProcessInfo.processInfo.environment["SEER_TEST_POSTGRES"] ?? ""
        return url.isEmpty ? nil : url
    }()

    static var installed: Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.isEmpty == false
    }

    static var skipNote: String {
        installed
            ? "the PostgreSQL store tests are skipped: no test server (run `scripts/postgres run -- swift test`, as scripts/test does)"
            : "the PostgreSQL store tests are skipped: PostgreSQL is not installed (apt-get install postgresql, or scripts/setup)"
    }

    static let admin: PostgresConnections? = serverURL.flatMap { url in
        try? PostgresConnections(location: try PostgresLocation(url: url), logger: .init(label: "seer.test"))
    }

    /// A new empty database on the test server, and its URL.
    static func createDatabase() throws -> (name: String, url: String) {
        guard let serverURL, let admin else { throw StoreError(code: "cannotOpen", message: skipNote) }
        let name = "seer_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.with { session in try session.run("CREATE DATABASE \(name)") }
        var components = try #require(URLComponents(string: serverURL))
        components.path = "/" + name
        return (name, try #require(components.string))
    }

    static func dropDatabase(_ name: String) {
        try? admin?.with { session in try session.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }
}

/// A fresh store of one kind: a database file in a temporary directory, or a database of its own on
/// the test server; removed afterwards.
final class TemporaryStore {
    let kind: StoreKind
    let directory: String
    let store: any SeerStore
    /// The PostgreSQL database's name and URL.
    let postgres: (name: String, url: String)?

    init(_ kind: StoreKind = .sqlite) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seer-store-\(UUID().uuidString)").path
        switch kind {
        case .sqlite:
            store = try SQLiteStore(path: directory + "/nested/seer.sqlite")
            postgres = nil
        case .postgres:
            let database = try TestPostgres.createDatabase()
            postgres = database
            store = try PostgresStore(url: database.url)
        }
    }

    /// The SQLite store (tests of what only a file has: its path, read-only files, a full disk).
    var sqlite: SQLiteStore { store as! SQLiteStore }

    /// Another store on the same database (another process, as far as the database can tell).
    func reopen() throws -> any SeerStore {
        switch kind {
        case .sqlite: try SQLiteStore(path: sqlite.path)
        case .postgres: try PostgresStore(url: postgres!.url)
        }
    }

    /// Writes straight into the database, as a bug or another tool might.
    func damage(_ sql: String) throws {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: sqlite.path)
            try queue.write { db in try db.execute(sql: sql) }
        case .postgres:
            try (store as! PostgresStore).backend.read { session in try session.run(sql) }
        }
    }

    deinit {
        if let postgres {
            (store as? PostgresStore)?.close()
            TestPostgres.dropDatabase(postgres.name)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite struct StoreKindTests {
    @Test(.enabled(if: TestPostgres.serverURL != nil, Comment(rawValue: TestPostgres.skipNote)))
    func postgresStoreMigratesOnceWithNamedSteps() throws {
        let temporary = try TemporaryStore(.postgres)
        let store = try #require(temporary.store as? PostgresStore)
        #expect(try store.appliedMigrations() == ["v1-registry", "v2-history", "v3-inbox", "v4-statistics", "v5-reports", "v6-batches", "v7-apikeys"])
        // Opening again migrates nothing again; two processes opening at once wait for each other.
        let again = try PostgresStore(url: try #require(temporary.postgres).url)
        #expect(try again.appliedMigrations().count == 7)
        again.close()
    }

    @Test func postgresURLsParse() throws {
        let full = try PostgresLocation(url: "postgres://ann:s%40cret@db.example:6543/seer?sslmode=require")
        #expect(full.user == "ann" && full.password == "s@cret" && full.host == "db.example" && full.port == 6543)
        #expect(full.database == "seer" && full.tls == .require)
        #expect(full.description == "postgres://ann@db.example:6543/seer", "no password in messages")
        let short = try PostgresLocation(url: "postgresql://seer@localhost")
        #expect(short.port == 5432 && short.database == "seer" && short.tls == .disable && !short.isUnixSocket)
        let socket = try PostgresLocation(url: "postgres://seer@/db?host=/run/postgresql")
        #expect(socket.isUnixSocket && socket.host == "/run/postgresql")
        #expect(PostgresLocation.isURL("POSTGRES://x@y/z") && !PostgresLocation.isURL("/tmp/seer.sqlite"))
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://db.example/seer") }
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://a@b/c?sslmode=verify-full") }
    }

    @Test func placeholdersAreNumberedOutsideQuotedText() {
        #expect(PostgresSession.numbered("SELECT ? , '?' , \"a?\" , ?") == "SELECT $1 , '?' , \"a?\" , $2")
        #expect(PostgresSession.numbered("SELECT 1") == "SELECT 1")
    }

    @Test func anUnreachableServerIsACannotOpenError() throws {
        #expect {
            _ = try PostgresStore(url: "postgres://seer@127.0.0.1:1/none")
        } throws: { ($0 as? StoreError)?.code == "cannotOpen" }
    }
}
