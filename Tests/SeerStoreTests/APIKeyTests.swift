import Foundation
@testable import SeerPostgres
@testable import SeerStore
import Synchronization
import Testing

extension TemporaryStore {
    /// Rows read straight from the database (what is really kept).
    func rawRows(_ sql: String) throws -> [SQLRow] {
        switch kind {
        case .sqlite: try sqlite.backend.read { db in try db.rows(sql, []) }
        case .postgres: try (store as! PostgresStore).backend.read { session in try session.rows(sql, []) }
        }
    }

    /// The store's key table.
    var keyStorage: any APIKeyStorage { store as! any APIKeyStorage }
}

/// API keys kept in the store (table `apiKey`): the same on SQLite and PostgreSQL.
@Suite struct APIKeyTests {
    @Test(arguments: StoreKind.testable) func createKeepsOnlyTheHashAndAuthenticateFindsTheKey(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let keys = APIKeyStore(storage: temporary.keyStorage)
        let (key, info) = try keys.create(role: .device, name: "till-1", at: 1_795_000_000)
        // seer_<8 hex id>_<32 random bytes, base64url>
        let parts = key.split(separator: "_", maxSplits: 2)
        #expect(parts.count == 3 && parts[0] == "seer" && parts[1] == Substring(info.id))
        #expect(info.id.count == 8 && info.id.allSatisfy(\.isHexDigit))
        #expect(parts[2].count == 43)
        #expect(info == APIKeyInfo(id: info.id, role: .device, name: "till-1", recipient: nil, createdAt: 1_795_000_000, revokedAt: nil))
        #expect(info.device == "till-1")

        // The table holds the key's SHA-256 and never the key.
        let rows = try temporary.rawRows("SELECT id, hash, role, name, recipient, createdAt, revokedAt FROM apiKey")
        #expect(rows.count == 1)
        let hash: String = try #require(rows.first?.get("hash"))
        #expect(hash == APIKeyStore.hash(key) && hash.count == 64)
        // Lower-case hexadecimal SHA-256, as databases made by earlier versions hold it.
        #expect(APIKeyStore.hash("seer_abc") == "4bb28b4efa2cfc77b4b6a7d3f978edbea4466172011033727a465ac8cda2f19c")
        let cells = rows.flatMap { row in row.values.map { "\($0)" } }
        #expect(!cells.contains { $0.contains(String(parts[2])) })

        #expect(try keys.authenticate(key) == info)
        #expect(keys.remembered(key) == info, "a key that passed is remembered")
        // Another process on the same database knows the key.
        let other = APIKeyStore(storage: try temporary.reopen() as! any APIKeyStorage)
        #expect(other.remembered(key) == nil)
        #expect(try other.authenticate(key) == info)
        // Wrong keys: another secret, another shape, too long.
        #expect(try keys.authenticate("seer_\(info.id)_" + String(repeating: "A", count: 43)) == nil)
        #expect(try keys.authenticate(String(key.dropFirst())) == nil)
        #expect(try keys.authenticate(key + String(repeating: "x", count: 200)) == nil)
        #expect(try keys.authenticate("") == nil)
    }

    @Test(arguments: StoreKind.testable) func listShowsEveryKeyOldestFirstWithoutTheKeys(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let keys = APIKeyStore(storage: temporary.keyStorage)
        let admin = try keys.create(role: .admin, name: "ops", at: 300)
        let device = try keys.create(role: .device, name: nil, at: 100)
        let user = try keys.create(role: .user, name: "alex", recipient: "rcp-1", at: 200)
        try keys.revoke(id: user.info.id, at: 400)
        var revoked = user.info
        revoked.revokedAt = 400
        #expect(try keys.list() == [device.info, revoked, admin.info])
        #expect(device.info.device == device.info.id, "a device key without a name scans as its id")
        // The same list through another process.
        #expect(try (temporary.reopen() as! any APIKeyStorage).apiKeys() == [device.info, revoked, admin.info])
        let json = String(decoding: try JSONEncoder().encode(try keys.list()), as: UTF8.self)
        #expect(![admin.key, device.key, user.key].contains { json.contains($0) })
    }

    @Test(arguments: StoreKind.testable) func revokeTakesEffectAtOnceHereAndWithinTheCacheElsewhere(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let keys = APIKeyStore(storage: temporary.keyStorage)
        let other = APIKeyStore(storage: try temporary.reopen() as! any APIKeyStorage)
        let made = try keys.create(role: .device, name: "phone")
        #expect(try keys.authenticate(made.key) != nil)
        #expect(try other.authenticate(made.key) != nil)

        let revoked = try other.revoke(id: made.info.id, at: 500)
        #expect(revoked.revokedAt == 500 && revoked.id == made.info.id)
        // Through the store that revoked it: at once.
        #expect(other.remembered(made.key) == nil)
        #expect(try other.authenticate(made.key) == nil)
        // Through another: the database says no at once; what that process remembered lasts a second at most.
        #expect(try keys.storage.apiKey(hash: APIKeyStore.hash(made.key)) == nil)
        #expect(try keys.authenticate(made.key) == nil)
        Thread.sleep(forTimeInterval: APIKeyStore.cacheSeconds + 0.1)
        #expect(keys.remembered(made.key) == nil)

        // Revoking again keeps the first time; an unknown id is notFound.
        #expect(try keys.revoke(id: made.info.id, at: 900).revokedAt == 500)
        #expect {
            try keys.revoke(id: "00000000")
        } throws: { ($0 as? StoreError)?.code == "notFound" }
        #expect(try keys.list().count == 1)
    }

    @Test(arguments: StoreKind.testable) func bindSetsTheOwnerOnceAndForgetsTheRememberedRecord(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let keys = APIKeyStore(storage: temporary.keyStorage)
        let user = try keys.create(role: .user, name: "alex")
        #expect(try keys.authenticate(user.key)?.recipient == nil)
        try keys.bind(id: user.info.id, recipient: "rcp-7f3a9c")
        #expect(keys.remembered(user.key) == nil, "binding forgets the remembered record")
        #expect(try keys.authenticate(user.key)?.recipient == "rcp-7f3a9c")
        // A bound key keeps its owner.
        try keys.bind(id: user.info.id, recipient: "rcp-other")
        #expect(try keys.authenticate(user.key)?.recipient == "rcp-7f3a9c")
        #expect(try (temporary.reopen() as! any APIKeyStorage).apiKeys().first?.recipient == "rcp-7f3a9c")
        // Binding an unknown id changes nothing.
        try keys.bind(id: "00000000", recipient: "rcp-x")
        #expect(try keys.list().map(\.id) == [user.info.id])
    }

    @Test(arguments: StoreKind.testable) func keysMadeAtOnceByManyThreadsAreAllThere(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let stores = [temporary.keyStorage, try temporary.reopen() as! any APIKeyStorage]
        let made = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let keys = APIKeyStore(storage: stores[index % 2])
            if let key = try? keys.create(role: .device, name: "d\(index)").key { made.withLock { $0.append(key) } }
        }
        let all = made.withLock { $0 }
        #expect(all.count == 40)
        let check = APIKeyStore(storage: stores[1])
        for key in all { #expect(try check.authenticate(key) != nil) }
        #expect(try check.list().count == 40)
    }

    @Test func aSQLiteFileWhoseKeyTableCameBeforeTheSchemaStepKeepsItsKeys() throws {
        let temporary = try TemporaryStore(.sqlite)
        let made = try APIKeyStore(storage: temporary.sqlite).create(role: .admin, name: "ops")
        // As a file from before the step: the table is there (seer serve made it), the step is not.
        try temporary.damage("DELETE FROM grdb_migrations WHERE identifier = 'v7-apikeys'")
        #expect(try !temporary.sqlite.appliedMigrations().contains("v7-apikeys"))
        let reopened = try SQLiteStore(path: temporary.sqlite.path)
        #expect(try reopened.appliedMigrations().contains("v7-apikeys"))
        #expect(try APIKeyStore(path: temporary.sqlite.path).authenticate(made.key) == made.info)
    }

    @Test(.enabled(if: TestPostgres.serverURL != nil, Comment(rawValue: TestPostgres.skipNote)))
    func keysCopyFromSQLiteIntoPostgreSQL() throws {
        let source = try TemporaryStore(.sqlite)
        let keys = APIKeyStore(storage: source.sqlite)
        let live = try keys.create(role: .device, name: "till-1")
        let old = try keys.create(role: .admin, name: "ops")
        try keys.revoke(id: old.info.id)
        let target = try TemporaryStore(.postgres)
        let summary = try (target.store as! PostgresStore).copy(from: source.sqlite)
        #expect(summary.tables.first { $0.table == "apiKey" }?.rows == 2)
        let copied = APIKeyStore(storage: target.keyStorage)
        #expect(try copied.list() == keys.list())
        #expect(try copied.authenticate(live.key) == live.info)
        #expect(try copied.authenticate(old.key) == nil)
    }
}
