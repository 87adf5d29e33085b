import Foundation
import SeerCrypto
import SeerVerify
import Synchronization

/// What a key may do. `device` scans, verifies and reads its own device's history; `user` resolves
/// plates, sends messages and reads its own inbox; `admin` imports the registry and manages keys
/// (and may call every route but the inbox).
public enum Role: String, Codable, Sendable, CaseIterable {
    case device, user, admin
}

/// An API key as stored and listed: never the key itself, only its SHA-256.
public struct APIKeyInfo: Codable, Sendable, Equatable {
    /// The key's public id (the part of the key between `seer_` and the second `_`).
    public var id: String
    /// What the key may do.
    public var role: Role
    /// A name for people (for a `device` key, its device: scans made with the key carry it).
    public var name: String?
    /// For a `user` key, the plate owner it acts for (an opaque recipient id), once known.
    public var recipient: String?
    /// When it was made, seconds since 1970.
    public var createdAt: Double
    /// When it was revoked, if it was.
    public var revokedAt: Double?

    /// The device a `device` key scans as: its name, else its id.
    public var device: String { name ?? id }

    /// Creates a record.
    public init(id: String, role: Role, name: String? = nil, recipient: String? = nil, createdAt: Double, revokedAt: Double? = nil) {
        self.id = id
        self.role = role
        self.name = name
        self.recipient = recipient
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// Where API keys are kept: table `apiKey` of the store (schema step `v7-apikeys`), beside the
/// registry and history, so every process on one database (each `seer serve` replica) knows the
/// same keys. ``SQLiteStore`` and `PostgresStore` (module `SeerPostgres`) keep them; ``APIKeyStore`` makes, checks and
/// remembers keys over either.
///
/// The store sees only a key's SHA-256 (lower-case hex), never the key.
public protocol APIKeyStorage: Sendable {
    /// Saves a new key's record and hash.
    /// - Throws: ``StoreError`` (also when the id or the hash is taken).
    func insertAPIKey(_ info: APIKeyInfo, hash: String) throws

    /// The record of the key with this hash, when there is one and it is not revoked.
    func apiKey(hash: String) throws -> APIKeyInfo?

    /// Every key's record (revoked ones too), oldest first.
    func apiKeys() throws -> [APIKeyInfo]

    /// Marks a key revoked (a key revoked before keeps its first time) and returns its record.
    /// - Throws: ``StoreError`` `notFound` when there is no such key.
    func revokeAPIKey(id: String, at time: Double) throws -> APIKeyInfo

    /// Binds a `user` key to the plate owner it acts for; a key already bound keeps its owner.
    func bindAPIKey(id: String, recipient: String) throws
}

extension APIKeyInfo {
    /// A record from its row (a role Seer does not know reads as `device`, the narrowest).
    init(row: SQLRow) throws {
        guard let id = row.get("id", as: String.self) else {
            throw StoreError.damaged("A key in the database is damaged: it has no id.")
        }
        self.init(
            id: id, role: row.get("role", as: String.self).flatMap(Role.init(rawValue:)) ?? .device, name: row.get("name"),
            recipient: row.get("recipient"), createdAt: row.get("createdAt") ?? 0, revokedAt: row.get("revokedAt"))
    }
}

/// The key table's SQL, the same on both databases.
extension SQLStore: APIKeyStorage {
    static var keyColumns: String { "id, role, name, recipient, createdAt, revokedAt" }

    public func insertAPIKey(_ info: APIKeyInfo, hash: String) throws {
        try write("Saving the key") { db in
            try db.execute(
                "INSERT INTO apiKey (id, hash, role, name, recipient, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(info.id), .text(hash), .text(info.role.rawValue), info.name.sqlValue, info.recipient.sqlValue, .real(info.createdAt)])
        }
    }

    public func apiKey(hash: String) throws -> APIKeyInfo? {
        try read("Checking the key") { db in
            try db.row("SELECT \(Self.keyColumns) FROM apiKey WHERE hash = ? AND revokedAt IS NULL", [.text(hash)]).map(APIKeyInfo.init(row:))
        }
    }

    public func apiKeys() throws -> [APIKeyInfo] {
        try read("Listing the keys") { db in try db.rows("SELECT \(Self.keyColumns) FROM apiKey ORDER BY createdAt, id", []).map(APIKeyInfo.init(row:)) }
    }

    public func revokeAPIKey(id: String, at time: Double) throws -> APIKeyInfo {
        try write("Revoking the key") { db in
            try db.execute("UPDATE apiKey SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", [.real(time), .text(id)])
            guard let row = try db.row("SELECT \(Self.keyColumns) FROM apiKey WHERE id = ?", [.text(id)]) else {
                throw StoreError(code: "notFound", message: "There is no key \(id).")
            }
            return try APIKeyInfo(row: row)
        }
    }

    public func bindAPIKey(id: String, recipient: String) throws {
        try write("Binding the key") { db in
            try db.execute("UPDATE apiKey SET recipient = ? WHERE id = ? AND recipient IS NULL", [.text(recipient), .text(id)])
        }
    }
}

/// API keys over a store's key table (``APIKeyStorage``): makes them (`seer_<id>_<secret>`, the
/// store keeping only the SHA-256), checks them, lists and revokes them.
///
/// Keys that passed are remembered for a second (``cacheSeconds``), so a busy client costs no database
/// read per request; revoking through this object takes effect at once, through another process
/// (`seer apikey revoke`, another replica) within that second.
public final class APIKeyStore: Sendable {
    /// The store the keys are kept in.
    public let storage: any APIKeyStorage
    /// How long a key that passed is remembered.
    public static let cacheSeconds = 1.0
    let cache = Mutex<[String: (info: APIKeyInfo, until: ContinuousClock.Instant)]>([:])

    /// Keys kept in `storage` (an open ``SQLiteStore`` or `PostgresStore` (module `SeerPostgres`)).
    public init(storage: any APIKeyStorage) {
        self.storage = storage
    }

    /// Keys kept in the SQLite file at `path` (opened, created and migrated if needed).
    public convenience init(path: String) throws {
        self.init(storage: try SQLiteStore(path: path))
    }

    /// Makes a new key and stores its hash; returns the key (shown once) and what is stored.
    public func create(role: Role, name: String?, recipient: String? = nil, at time: Double = Date().timeIntervalSince1970) throws
        -> (key: String, info: APIKeyInfo)
    {
        var generator = SystemRandomNumberGenerator()
        let id = Self.hex((0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let secret = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let key = "seer_\(id)_\(secret)"
        let info = APIKeyInfo(id: id, role: role, name: name, recipient: recipient, createdAt: time, revokedAt: nil)
        try storage.insertAPIKey(info, hash: Self.hash(key))
        return (key, info)
    }

    /// The key's record when it passed within the last ``cacheSeconds``, without reading the database.
    public func remembered(_ key: String) -> APIKeyInfo? {
        let hash = Self.hash(key)
        return cache.withLock { cache in
            guard let entry = cache[hash], entry.until > .now else { return nil }
            return entry.info
        }
    }

    /// The key's record when the key is known and not revoked.
    public func authenticate(_ key: String) throws -> APIKeyInfo? {
        guard key.hasPrefix("seer_"), key.utf8.count < 200 else { return nil }
        let hash = Self.hash(key)
        let info = try storage.apiKey(hash: hash)
        if let info {
            cache.withLock { cache in
                if cache.count >= 4096 { cache.removeAll() }
                cache[hash] = (info, .now + .milliseconds(Int(Self.cacheSeconds * 1000)))
            }
        }
        return info
    }

    func forget(id: String) {
        cache.withLock { cache in cache = cache.filter { $0.value.info.id != id } }
    }

    /// Every key, oldest first.
    public func list() throws -> [APIKeyInfo] {
        try storage.apiKeys()
    }

    /// Revokes a key by id. - Throws: ``StoreError`` `notFound` when there is no such key.
    @discardableResult
    public func revoke(id: String, at time: Double = Date().timeIntervalSince1970) throws -> APIKeyInfo {
        defer { forget(id: id) }
        return try storage.revokeAPIKey(id: id, at: time)
    }

    /// Binds a `user` key to the plate owner it acts for.
    public func bind(id: String, recipient: String) throws {
        defer { forget(id: id) }
        try storage.bindAPIKey(id: id, recipient: recipient)
    }

    /// A key's SHA-256 as the store keeps it (lower-case hex).
    /// Bytes as lower-case hexadecimal (every request's key is hashed: `String(format:)` per byte
    /// cost more than the hash).
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hash(_ key: String) -> String {
        hex(SHA256.hash(data: Array(key.utf8)))
    }
}
