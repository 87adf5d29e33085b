import Foundation
import GRDB
@testable import SeerStore
import SeerVerify
import Testing

/// The SQLite store's write transactions (`SQLiteDatabase.immediateTransaction`): statements prepared
/// once per connection, committed when the body returns, rolled back when it throws.
@Suite struct TransactionTests {
    struct Stop: Error {}

    func scans(_ store: SQLiteStore) throws -> Int {
        try store.backend.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan") ?? -1 }
    }

    func save(_ payload: String, to store: SQLiteStore) throws -> [Verification] {
        try store.verify(
            [ScanInput(payload: payload, sourceFile: "photo.jpg", symbology: "qr")],
            context: ScanContext(time: 1_800_000_000, device: "phone"), mode: .single, verifier: Verifier(), save: true)
    }

    @Test func aWriteThatThrowsLeavesNothingAndTheNextOneCommits() throws {
        let temporary = try TemporaryStore(.sqlite)
        let store = temporary.sqlite
        #expect(try save("https://example.com/first", to: store).first?.scanID != nil)
        #expect(try scans(store) == 1)
        #expect(throws: Stop.self) {
            try store.backend.writeRetrying { db -> Void in
                try db.execute(sql: "DELETE FROM scan")
                #expect(db.isInsideTransaction)
                throw Stop()
            }
        }
        #expect(try scans(store) == 1, "the delete was rolled back")
        let open = store.backend.pool.writeWithoutTransaction { db in db.isInsideTransaction }
        #expect(!open, "no transaction left open")
        // The same prepared statements serve the next transactions.
        for index in 0..<3 { _ = try save("https://example.com/\(index)", to: store) }
        #expect(try scans(store) == 4)
        let reopened = try SQLiteStore(path: store.path)
        #expect(try scans(reopened) == 4, "committed to the file")
    }

    @Test func aSaveIsOneTransactionWithItsResult() throws {
        let temporary = try TemporaryStore(.sqlite)
        let store = temporary.sqlite
        let saved = try store.backend.writeRetrying { db -> Int64 in
            try db.execute(sql: "UPDATE searchIndexState SET indexedThrough = indexedThrough")
            return 7
        }
        #expect(saved == 7)
        let results = try save("https://example.com/item", to: store)
        #expect(results.count == 1)
        let id = try #require(results.first?.scanID)
        #expect(try store.backend.pool.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM scan") } == id)
    }
}
