import Foundation
import GRDB
import Seer
@testable import SeerPostgres
@testable import SeerStore
import SeerVerify
import Testing

/// The one list of schema steps: files made before it open, and a new file has the same schema.
@Suite struct SchemaTests {
    /// The statements of `Fixtures/schema-v9.sql`: the SQLite schema as its steps were written
    /// before the store was written once, with rows saved between the steps.
    static func fixture(_ name: String) throws -> String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return try String(contentsOf: folder.appendingPathComponent("Fixtures/" + name), encoding: .utf8)
    }

    /// The schema of a SQLite file as `sqlite_master` holds it, white space folded.
    static func schema(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || IFNULL(sql, '') FROM sqlite_master ORDER BY type, name")
                .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ").replacingOccurrences(of: "( ", with: "(") }
        }
    }

    /// What the fixtures saved reads, searches and counts, and the next scan gets the next id.
    static func readsWhatWasSaved(_ store: some SeerStore & APIKeyStorage) throws {
        #expect(try store.history(HistoryQuery(search: "old", limit: 100)).scans.count == 40)
        #expect(try store.statistics(HistoryQuery()).total == 40)
        #expect(try store.scan(id: 3)?.reports.map(\.reason) == ["fake"])
        #expect(try store.recentSearches(limit: 5) == ["old"])
        #expect(try store.apiKeys().map(\.id) == ["0a0b0c0d"])
        let saved = try store.verify(
            [ScanInput(payload: "https://example.com/new", sourceFile: "a.jpg")], context: ScanContext(time: 1_800_001_000), mode: .single,
            verifier: Verifier(), save: true)
        #expect(saved.first?.scanID == 41)
    }

    @Test func aFileMadeByTheEarlierStepsOpensAsItIsAndReads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seer-schema-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = directory + "/old.sqlite"
        try DatabaseQueue(path: old).write { db in try db.execute(sql: try Self.fixture("schema-v9.sql")) }
        let before = try Self.schema(old)

        let store = try SQLiteStore(path: old)
        #expect(
            try store.appliedMigrations() == [
                "v1-registry", "v2-history", "v3-inbox", "v4-statistics", "v5-reports", "v6-batches", "v7-apikeys", "v8-search-groups",
                "v9-partial-indexes",
            ])
        #expect(try Self.schema(old) == before, "opening migrates nothing")
        // What the earlier version saved reads, searches and counts.
        try Self.readsWhatWasSaved(store)
        #expect(try store.history(HistoryQuery(search: "new")).scans.map(\.id) == [41])
        try store.checkSearchIndex()

        // A file made now has the schema the earlier steps made, statement for statement.
        let fresh = try SQLiteStore(path: directory + "/new.sqlite")
        #expect(try Self.schema(fresh.path) == before)
    }

    /// The schema of a PostgreSQL database: every column and index.
    static func schema(_ store: PostgresStore) throws -> [String] {
        try store.backend.read { session in
            let columns = try session.rows(
                """
                SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
                    || ' ' || COALESCE(generation_expression, '') AS line
                FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
                """, [])
            let indexes = try session.rows("SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname", [])
            return (columns + indexes).compactMap { $0.get("line", as: String.self) }
        }
    }

    @Test(.enabled(if: TestPostgres.serverURL != nil, Comment(rawValue: TestPostgres.skipNote)))
    func aPostgreSQLDatabaseMadeByTheEarlierStepsOpensAsItIsAndReads() throws {
        let old = try TestPostgres.createDatabase()
        defer { TestPostgres.dropDatabase(old.name) }
        let connections = try PostgresConnections(location: try PostgresLocation(url: old.url), logger: .init(label: "seer.test"))
        try connections.with { session in
            for statement in try Self.fixture("postgres-v7.sql").components(separatedBy: "\n\n") where !statement.hasPrefix("--") {
                try session.run(statement)
            }
        }
        connections.close()
        let store = try PostgresStore(url: old.url)
        defer { store.close() }
        let before = try Self.schema(store)
        #expect(try store.appliedMigrations() == ["v1-registry", "v2-history", "v3-inbox", "v4-statistics", "v5-reports", "v6-batches", "v7-apikeys"])
        try Self.readsWhatWasSaved(store)
        #expect(try store.suggestions(prefix: "ol", limit: 3).first?.hasPrefix("old") == true)

        // A database made now has the schema the earlier steps made, column for column.
        let fresh = try TemporaryStore(.postgres)
        #expect(try Self.schema(fresh.store as! PostgresStore) == before)
    }

    @Test func anEngineWithoutPostgreSQLRefusesAPostgresURLByName() throws {
        var configuration = Engine.Configuration()
        configuration.store = .named("postgres://seer:secret@db.example/seer")
        guard case .sqlite = configuration.store else {
            Issue.record("without schemes a URL is no store of its own")
            return
        }
        #expect {
            _ = try Engine(configuration: configuration).store()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == "unsupportedStore" && error.message.contains("SeerPostgres") && !error.message.contains("secret")
        }
        // With the PostgreSQL module's scheme the URL is a store it opens, named without its password.
        guard case .opened(let opener) = Engine.StoreLocation.named("postgres://seer:secret@db.example/seer", schemes: [.postgres]) else {
            Issue.record("the scheme takes a postgres URL")
            return
        }
        #expect(opener.description == "postgres://seer@db.example:5432/seer")
        guard case .sqlite(let path) = Engine.StoreLocation.named("/tmp/seer.sqlite", schemes: [.postgres]) else {
            Issue.record("a path is a SQLite file")
            return
        }
        #expect(path == "/tmp/seer.sqlite")
    }
}
