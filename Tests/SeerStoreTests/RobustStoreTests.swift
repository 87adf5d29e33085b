import Foundation
import GRDB
import Seer
import SeerStore
import SeerTestSupport
import SeerVerify
import Testing

/// The store never crashes on what a database holds, and imports are strict.
@Suite struct RobustStoreTests {
    func imported(_ kind: StoreKind) throws -> TemporaryStore {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry([("registry.json", try Data1.json(Data1.registry))])
        return temporary
    }

    /// Writes straight into the database, as a bug or another tool might.
    func damage(_ temporary: TemporaryStore, _ sql: String) throws {
        try temporary.damage(sql)
    }

    static let damages: [(String, String)] = [
        ("UPDATE scan SET verdict = 'bogus' WHERE id = 2", "verdict"),
        ("UPDATE scan SET reasons = 'not json' WHERE id = 2", "reasons"),
        ("UPDATE scan SET reasons = '[\"nonsense\"]' WHERE id = 2", "reasons"),
        ("UPDATE scan SET time = 'yesterday' WHERE id = 2", "time"),
        ("UPDATE scan SET mode = 'x' WHERE id = 2", "mode"),
        ("UPDATE scan SET format = 'gif' WHERE id = 2", "format"),
        ("UPDATE scan SET device = x'00ff' WHERE id = 2", "device"),
    ]

    @Test(arguments: StoreKind.testable, damages)
    func aDamagedScanIsAnErrorNamingIt(_ kind: StoreKind, _ damaged: (sql: String, column: String)) throws {
        let (sql, column) = damaged
        // In PostgreSQL a text column holds valid text only (x'00ff' is a bit string, stored as its
        // digits): that damage cannot happen there.
        if kind == .postgres && column == "device" { return }
        let temporary = try imported(kind)
        let engine = Engine()
        for serial in ["S1", "S2", "S3"] {
            _ = try engine.verify(payload: try Data1.link(Data1.serum, serial), store: temporary.store)
        }
        do {
            try damage(temporary, sql)
        } catch {
            // PostgreSQL's column types refuse a time that is text or a device that is bytes: that
            // damage cannot happen there.
            #expect(kind == .postgres)
            return
        }
        #expect {
            _ = try temporary.store.history(HistoryQuery())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == "damagedRow" && error.message.contains("Scan #2") && error.message.contains(column)
        }
        #expect {
            _ = try temporary.store.scan(id: 2)
        } throws: { ($0 as? StoreError)?.code == "damagedRow" }
        // The other scans still read one by one.
        #expect(try temporary.store.scan(id: 1)?.scan.serial == "S1")
    }

    @Test(arguments: StoreKind.testable) func statisticsRefuseRowsTheyCannotCount(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        _ = try Engine().verify(payload: try Data1.link(Data1.serum, "S1"), store: temporary.store)
        for sql in ["UPDATE scan SET verdict = 'bogus'", "UPDATE scan SET verdict = 'authentic', time = 'then'", "UPDATE scan SET time = NULL"] {
            // time is NOT NULL in the schema: a write that breaks it fails, which is fine too.
            do { try damage(temporary, sql) } catch { continue }
            #expect {
                _ = try temporary.store.statistics(HistoryQuery())
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == "damagedRow" && error.message.contains("Scan #1")
            }
        }
    }

    @Test(arguments: StoreKind.testable) func aDamagedRegistryRowIsAnErrorToo(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        try damage(temporary, "UPDATE serial SET status = 'eaten' WHERE serial = 'S1'")
        #expect(throws: StoreError.self) { try Engine().verify(payload: try Data1.link(Data1.serum, "S1"), store: temporary.store) }
        // Bytes where text belongs: only SQLite's dynamic types let that happen.
        guard kind == .sqlite else { return }
        try damage(temporary, "UPDATE product SET name = x'ff00' WHERE gtin = '\(Data1.pads)'")
        #expect(throws: StoreError.self) { try Engine().verify(payload: try Data1.link(Data1.pads, "P1", Data1.globex), store: temporary.store) }
    }

    @Test(arguments: [
        (#"{"product":[]}"#, nil as String?, "product", "unknown key"),
        (#"{"products":[{"gtin":"09506000134352","nmae":"x","brand":"acme","category":"c","markets":[]}]}"#, "products[0]", "nmae", "unknown field"),
        (#"{"brands":[{"id":"x","name":"X","keys":[{"kid":"k","algo":"EdDSA"}]}]}"#, "brands[0]", "keys[0].algo", "unknown field"),
        (#"{"products":[{"gtin":9506000134352,"name":"x","brand":"acme","category":"c","markets":[]}]}"#, "products[0]", "gtin", "expected"),
        (#"{"users":[{"id":"r","name":"N","email":"n@example.com","plate":"AB12😀CDE","region":"GB"}]}"#, "users[0]", "plate", "emoji"),
        (#"{"users":[{"id":"r","name":"N","email":"n@example.com","plate":"AB12CDE","region":"United Kingdom"}]}"#, "users[0]", "region", "country"),
        (#"{"chargers":[{"id":"123456","serial":"s","location":"l","status":"Available"},{"id":"123456","serial":"t","location":"m","status":"Faulted"}]}"#, "chargers[1]", "id", "duplicate"),
        (#"{"serials":[{"gtin":"09506000134352","serial":"Z1","status":"active"},{"gtin":"9506000134352","serial":"Z1","status":"recalled"}]}"#, "serials[1]", "serial", "duplicate"),
    ])
    func strictImportRefusesEverything(json: String, record: String?, field: String, words: String) throws {
        for kind in StoreKind.testable { try strictImportRefusesEverything(kind, json: json, record: record, field: field, words: words) }
    }

    func strictImportRefusesEverything(_ kind: StoreKind, json: String, record: String?, field: String, words: String) throws {
        let temporary = try TemporaryStore(kind)
        #expect {
            _ = try temporary.store.importRegistry([("good.json", try Data1.json(Data1.registry)), ("bad.json", Data(json.utf8))])
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.file == "bad.json" && error.record == record && error.field == field
                && (error.message + error.description).contains(words)
        }
        // Nothing was imported, not even the good file.
        #expect(try temporary.store.charger(id: "100001") == nil)
        #expect(try temporary.store.resolvePlate("AB12CDE", country: nil, region: nil, candidates: [], resolver: PlateResolver()).status == .notRegistered)
    }

    @Test(arguments: StoreKind.testable) func duplicatesAcrossFilesOfOneImportAreRefused(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let charger = RegistryFile(chargers: [Charger(id: "123456", serial: "s", location: "l", status: .available)])
        #expect {
            _ = try temporary.store.importRegistry([("a.json", try Data1.json(charger)), ("b.json", try Data1.json(charger))])
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.file == "b.json" && error.message.contains("a.json: chargers[0]")
        }
    }

    @Test(arguments: StoreKind.testable) func categoryFiltersIgnoreCase(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        _ = try Engine().verify(payload: try Data1.link(Data1.serum, "S1"), store: temporary.store)
        #expect(try temporary.store.history(HistoryQuery(category: "COSMETICS")).scans.count == 1)
        #expect(try temporary.store.statistics(HistoryQuery(category: "Cosmetics")).total == 1)
        #expect(try temporary.store.history(HistoryQuery(category: "cosmetics", search: "radiance")).scans.count == 1)
    }

    @Test(arguments: StoreKind.testable) func emptyAndControlPayloadsAreRefusedNotSaved(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let engine = Engine()
        for payload in ["", "   ", "abc\u{0}def", "\u{7}", String(repeating: "x", count: 5000)] {
            #expect(throws: PayloadIssue.self) { try engine.verify(payload: payload, store: temporary.store) }
        }
        // A GS1 element string keeps its group separators.
        _ = try engine.verify(payload: "0109506000134352\u{1D}21S1", store: temporary.store)
        #expect(try temporary.store.statistics(HistoryQuery()).total == 1)
    }

    @Test(arguments: StoreKind.testable) func reportsAreKeptWithTheScanAndCounted(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let engine = Engine()
        let first = try engine.verify(payload: try Data1.link(Data1.serum, "S1"), store: temporary.store)
        let second = try engine.verify(payload: try Data1.link(Data1.serum, "S2"), store: temporary.store)
        let id = try #require(first.scanID)
        #expect(second.scanID == id + 1)
        _ = try engine.reportCounterfeit(scanID: id, reason: "  box misprinted ", at: 1_000, store: temporary.store)
        _ = try engine.reportCounterfeit(scanID: id, reason: nil, at: 2_000, store: temporary.store)
        let details = try engine.scanDetails(id: id, store: temporary.store)
        #expect(details.reports.map(\.reason) == ["box misprinted", nil])
        #expect(details.scan.serial == "S1")
        #expect(try engine.statistics(HistoryQuery(), store: temporary.store).reported == 1)
        #expect(throws: StoreError.self) { try engine.reportCounterfeit(scanID: 999, reason: nil, at: 0, store: temporary.store) }
        #expect(throws: StoreError.self) { try engine.scanDetails(id: 999, store: temporary.store) }
        // The details' JSON holds every field of the scan beside its reports.
        let json = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        for key in ["\"id\"", "\"verdict\"", "\"payload\"", "\"serial\"", "\"reports\"", "\"reportedAt\""] { #expect(json.contains(key)) }
    }

    @Test(arguments: StoreKind.testable) func onboardingValidatesAndNeverReturnsTheEmail(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let engine = Engine()
        let receipt = try engine.addUser(name: "Gil Example", email: "gil@example.com", plate: "gh-17 ab", country: try Country.parse("gb"), store: temporary.store)
        #expect(receipt.plate == "GH17AB" && receipt.country.rawValue == "GB" && receipt.recipient.hasPrefix("rcp-"))
        let json = String(decoding: try JSONEncoder().encode(receipt), as: UTF8.self)
        #expect(!json.contains("gil@") && !json.contains("Gil"))
        let resolved = try engine.resolvePlate("GH17 AB", country: try Country.parse("GB"), store: temporary.store)
        #expect(resolved.status == .resolved && resolved.recipient == receipt.recipient)
        for (name, email, plate) in [("", "a@b.co", "AB12CDE"), ("N", "not-an-email", "AB12CDE"), ("N", "a@b.co", "АB12CDE")] {
            #expect(throws: PayloadIssue.self) {
                try engine.addUser(name: name, email: email, plate: plate, country: try Country.parse("GB"), store: temporary.store)
            }
        }
    }

    @Test(arguments: StoreKind.testable) func limitsBoundQueries(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let engine = Engine()
        #expect(throws: StoreError.self) { try engine.history(HistoryQuery(search: String(repeating: "a", count: 90_000)), store: temporary.store) }
        #expect(throws: StoreError.self) { try engine.history(HistoryQuery(limit: 1_000_000), store: temporary.store) }
        #expect(throws: StoreError.self) { try engine.statistics(HistoryQuery(search: String(repeating: "a ", count: 500)), store: temporary.store) }
    }

    @Test func enginesAreIndependent() throws {
        // No process-wide plate reader: an engine with a wrong tessdata folder fails alone.
        let broken = Engine(configuration: .init(tessdata: "/nonexistent/tessdata"))
        #expect(throws: PlateError.self) { try broken.plateReader() }
        let working = Engine()
        _ = try working.plateReader()
        #expect(throws: PlateError.self) { try broken.plateReader() }
        // Each engine keeps its own store.
        let a = try TemporaryDirectory(), b = try TemporaryDirectory()
        var one = Engine.Configuration(), two = Engine.Configuration()
        one.store = .sqlite(path: a.file("a.sqlite"))
        two.store = .sqlite(path: b.file("b.sqlite"))
        _ = try Engine(configuration: one).store()
        _ = try Engine(configuration: two).store()
        #expect(FileManager.default.fileExists(atPath: a.file("a.sqlite")) && FileManager.default.fileExists(atPath: b.file("b.sqlite")))
    }

    @Test func aReadOnlyDatabaseIsReadable() throws {
        let temporary = try imported(.sqlite)
        _ = try Engine().verify(payload: try Data1.link(Data1.serum, "S1"), store: temporary.store)
        let reader = try SQLiteStore(path: temporary.sqlite.path, readOnly: true)
        #expect(reader.isReadOnly)
        #expect(try reader.history(HistoryQuery()).scans.count == 1)
        #expect(try reader.statistics(HistoryQuery()).total == 1)
        #expect(try reader.resolvePlate("AB12 CDE", country: nil, region: nil, candidates: [], resolver: PlateResolver()).status == .resolved)
        #expect {
            _ = try Engine().verify(payload: try Data1.link(Data1.serum, "S2"), store: reader)
        } throws: { ($0 as? StoreError)?.code == "readOnly" }
        #expect {
            _ = try SQLiteStore(path: temporary.directory + "/none.sqlite", readOnly: true)
        } throws: { ($0 as? StoreError)?.code == "cannotOpen" }
    }

    @Test func aFullDiskIsAClearErrorAndKeepsWhatWasSaved() throws {
        let temporary = try imported(.sqlite)
        let small = try SQLiteStore(path: temporary.sqlite.path, readOnly: false, maximumPages: 60)
        let engine = Engine()
        var saved = 0
        var failure: StoreError?
        for serial in 0..<2_000 {
            do {
                _ = try engine.verify(payload: try Data1.link(Data1.serum, "S\(serial)") + "&pad=" + String(repeating: "x", count: 800), store: small)
                saved += 1
            } catch let error as StoreError {
                failure = error
                break
            }
        }
        let error = try #require(failure, "the limit was never reached")
        #expect(error.code == "diskFull" && error.message.contains("full"))
        #expect(saved > 0)
        #expect(try temporary.store.statistics(HistoryQuery()).total == saved)
    }

    @Test(arguments: StoreKind.testable) func batchSessionsSaveAsTheyGoAndResume(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let engine = Engine()
        let inputs = try (0..<10).map { ScanInput(payload: try Data1.link(Data1.serum, "S\($0 % 4 + 1)"), line: $0 + 1) }
        let key = BatchSession.key(inputs.map(\.payload))
        let first = try BatchSession(engine: engine, store: temporary.store, context: ScanContext(), key: key, resume: true, chunkSize: 3)
        var results: [Verification] = []
        for input in inputs.prefix(7) { results += try first.add(input) }
        // Saved in transactions of three: six saved, the seventh waiting; then the run "dies".
        #expect(results.count == 6)
        #expect(try temporary.store.statistics(HistoryQuery()).total == 6)
        let second = try BatchSession(engine: engine, store: temporary.store, context: ScanContext(), key: key, resume: true, chunkSize: 3)
        #expect(second.alreadySaved == 6 && second.batchID == first.batchID)
        var rest: [Verification] = []
        for input in inputs { rest += try second.add(input) }
        rest += try second.finish()
        #expect(rest.map(\.line) == [7, 8, 9, 10])
        // S1…S4 were seen before the stop: their repeats after it are still duplicates of the batch.
        #expect(rest.allSatisfy { $0.reasons.contains(.duplicateInBatch) })
        // A finished run is not resumed: the same inputs start a new run.
        let third = try BatchSession(engine: engine, store: temporary.store, context: ScanContext(), key: key, resume: true)
        #expect(third.alreadySaved == 0 && third.batchID != first.batchID)
    }
}
