import Foundation
import GRDB
@testable import SeerStore
import SeerVerify
import Testing

/// The SQLite history's full-text index, kept in groups of scans (`SearchIndex`).
@Suite struct SearchIndexTests {
    let now = 1_800_000_000.0

    /// Saves `count` scans, one verification each (as `seer serve` saves a photo's code), with
    /// payloads `…/item/<first + i>x`: every scan has the word `item`, and each a word of its own.
    func save(_ count: Int, from first: Int = 0, to store: SQLiteStore) throws {
        for index in first..<(first + count) {
            _ = try store.verify(
                [ScanInput(payload: "https://example.com/item/\(index)x", sourceFile: "photo-\(index).jpg", symbology: "qr")],
                context: ScanContext(time: now, device: "phone"), mode: .single, verifier: Verifier(), save: true)
        }
    }

    func found(_ text: String, in store: SQLiteStore) throws -> Int {
        try store.history(HistoryQuery(search: text, limit: 1000, now: now)).scans.count
    }

    @Test func savesWaitInGroupsAndEverySearchSeesThemAll() throws {
        let temporary = try TemporaryStore(.sqlite)
        let store = temporary.sqlite
        let group = Int(SearchIndex.group)
        try save(group - 1, to: store)
        #expect(try store.scansWaitingForIndex() == SearchIndex.group - 1, "a group not yet full waits")
        // The group's last save indexes the group in its own transaction.
        try save(1, from: group - 1, to: store)
        #expect(try store.scansWaitingForIndex() == 0)
        try save(5, from: group, to: store)
        #expect(try store.scansWaitingForIndex() == 5)
        // A search indexes what waits first: it finds the newest scan, and the count, and the words.
        #expect(try found("\(group + 4)x", in: store) == 1)
        #expect(try store.scansWaitingForIndex() == 0)
        #expect(try found("item", in: store) == group + 5)
        try save(3, from: group + 5, to: store)
        #expect(try store.statistics(HistoryQuery(search: "item", now: now)).total == group + 8)
        try save(2, from: group + 8, to: store)
        #expect(try store.suggestions(prefix: "\(group + 9)x", limit: 5) == ["\(group + 9)x"])
        try store.checkSearchIndex()
    }

    @Test func aStoreOpenedForWritingIndexesWhatAnotherLeftWaiting() throws {
        let temporary = try TemporaryStore(.sqlite)
        try save(3, to: temporary.sqlite)
        #expect(try temporary.sqlite.scansWaitingForIndex() == 3)
        let again = try SQLiteStore(path: temporary.sqlite.path)
        #expect(try again.scansWaitingForIndex() == 0)
        #expect(try found("2x", in: again) == 1)
        try again.checkSearchIndex()
    }

    @Test func manyScansSavedAtOnceAreIndexedAtOnce() throws {
        let temporary = try TemporaryStore(.sqlite)
        let store = temporary.sqlite
        try save(2, to: store)
        let scans = (0..<100).map { index in
            ScanRecord(
                Verification(verdict: .unknown, reasons: [.unsigned, .unknownProduct], payload: "bulk \(index)x"),
                context: ScanContext(time: now), mode: .batch)
        }
        try store.record(scans)
        #expect(try store.scansWaitingForIndex() == 0)
        #expect(try found("bulk", in: store) == 100)
        // The reasons read back as saved, through the prepared insert.
        let saved = try store.history(HistoryQuery(search: "7x", limit: 5, now: now)).scans
        #expect(saved.map(\.reasons) == [[.unsigned, .unknownProduct]] && saved.map(\.payload) == ["bulk 7x"])
        try store.checkSearchIndex()
    }

    @Test func deletedScansLeaveTheIndexAndReusedIdsAreIndexed() throws {
        let temporary = try TemporaryStore(.sqlite)
        let store = temporary.sqlite
        try save(Int(SearchIndex.group) + 2, to: store)  // a group indexed, two waiting
        let last = Int(SearchIndex.group) + 1
        // Deleting an indexed scan and a waiting one, the newest among them, from outside.
        try temporary.damage("DELETE FROM scan WHERE payload IN ('https://example.com/item/3x', 'https://example.com/item/\(last)x')")
        #expect(try found("3x", in: store) == 0)
        #expect(try found("\(last)x", in: store) == 0)
        try store.checkSearchIndex()
        // Deleting the newest indexed scans lowers the mark, so the ids saved again are indexed.
        try temporary.damage("DELETE FROM scan WHERE id >= 30")
        try save(4, from: 100, to: store)
        #expect(try found("103x", in: store) == 1)
        #expect(try found("item", in: store) == 29 - 1 + 4)
        try store.checkSearchIndex()
    }

    @Test func anOlderDatabaseKeepsItsIndexThroughTheStep() throws {
        // A database made by the steps up to v7, whose insert trigger indexed every scan.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seer-search-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/old.sqlite"
        let queue = try DatabaseQueue(path: path)
        try SQLiteDatabase.migrator.migrate(queue, upTo: "v7-apikeys")
        try queue.write { db in
            for index in 0..<40 {
                try db.execute(
                    sql: "INSERT INTO scan(time, mode, payload, verdict, reasons) VALUES (?, 'single', ?, 'unknown', '[]')",
                    arguments: [now, "old-\(index)"])
            }
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        #expect(try store.appliedMigrations().suffix(2) == ["v8-search-groups", "v9-partial-indexes"])
        #expect(try store.scansWaitingForIndex() == 0)
        #expect(try found("old", in: store) == 40)
        try save(3, to: store)
        #expect(try found("item", in: store) == 3)
        try store.checkSearchIndex()
    }

    @Test func lookupsByItemAndBatchStillUseTheirPartialIndexes() throws {
        let temporary = try TemporaryStore(.sqlite)
        let queue = try DatabaseQueue(path: temporary.sqlite.path)
        func plan(_ sql: String) throws -> String {
            try queue.read { db in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }.joined(separator: "; ") }
        }
        // The clone and duplicate checks' lookup of a product's earlier scans, and a batch's scans.
        #expect(try plan("SELECT id FROM scan WHERE gtin = '1' AND serial = '2' AND time >= 0 ORDER BY time, id").contains("scan_item"))
        #expect(try plan("SELECT gtin FROM scan WHERE batchID = 'b' ORDER BY id").contains("scan_batch"))
        // Scans of no product and of no batch are in neither index.
        try save(3, to: temporary.sqlite)
        let counts = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan INDEXED BY scan_item WHERE gtin IS NOT NULL") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan INDEXED BY scan_batch WHERE batchID IS NOT NULL") ?? -1)
        }
        #expect(counts == (0, 0))
    }
}
