import Crypto
import Foundation
import GRDB
import SeerStore
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
}

/// API keys kept hashed in the store's SQLite file (table `apiKey`, beside the store's own tables).
///
/// Keys that passed are remembered for a second (``cacheSeconds``), so a busy client costs no database
/// read per request; revoking through this store takes effect at once, through another process
/// (`seer apikey revoke`) within that second.
public final class APIKeyStore: Sendable {
    let database: any DatabaseWriter
    /// How long a key that passed is remembered.
    public static let cacheSeconds = 1.0
    let cache = Mutex<[String: (info: APIKeyInfo, until: ContinuousClock.Instant)]>([:])

    /// Opens (creating if needed) the key table in the SQLite file at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            database = try DatabasePool(path: path, configuration: configuration)
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS apiKey (
                            id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, name TEXT, recipient TEXT,
                            createdAt REAL NOT NULL, revokedAt REAL)
                        """)
            }
        } catch let error as DatabaseError {
            throw StoreError(code: "cannotOpen", message: "Cannot open the key table in \(path): \(error.message ?? "\(error)")")
        }
    }

    /// Makes a new key and stores its hash; returns the key (shown once) and what is stored.
    public func create(role: Role, name: String?, recipient: String? = nil, at time: Double = Date().timeIntervalSince1970) throws
        -> (key: String, info: APIKeyInfo)
    {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let secret = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let key = "seer_\(id)_\(secret)"
        let info = APIKeyInfo(id: id, role: role, name: name, recipient: recipient, createdAt: time, revokedAt: nil)
        try guarded("Saving the key") {
            try database.write { db in
                try db.execute(
                    sql: "INSERT INTO apiKey (id, hash, role, name, recipient, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [id, Self.hash(key), role.rawValue, name, recipient, time])
            }
        }
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
        let info = try guarded("Checking the key") {
            try database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM apiKey WHERE hash = ? AND revokedAt IS NULL", arguments: [hash]).map(Self.info)
            }
        }
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
        try guarded("Listing the keys") {
            try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM apiKey ORDER BY createdAt, id").map(Self.info) }
        }
    }

    /// Revokes a key by id. - Throws: ``StoreError`` `notFound` when there is no such key.
    @discardableResult
    public func revoke(id: String, at time: Double = Date().timeIntervalSince1970) throws -> APIKeyInfo {
        defer { forget(id: id) }
        return try guarded("Revoking the key") {
            try database.write { db in
                try db.execute(sql: "UPDATE apiKey SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [time, id])
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM apiKey WHERE id = ?", arguments: [id]) else {
                    throw StoreError(code: "notFound", message: "There is no key \(id).")
                }
                return Self.info(row)
            }
        }
    }

    /// Binds a `user` key to the plate owner it acts for.
    public func bind(id: String, recipient: String) throws {
        try guarded("Binding the key") {
            try database.write { db in
                try db.execute(sql: "UPDATE apiKey SET recipient = ? WHERE id = ? AND recipient IS NULL", arguments: [recipient, id])
            }
        }
        forget(id: id)
    }

    static func hash(_ key: String) -> String {
        SHA256.hash(data: Array(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func info(_ row: Row) -> APIKeyInfo {
        APIKeyInfo(
            id: row["id"], role: Role(rawValue: row["role"] ?? "") ?? .device, name: row["name"], recipient: row["recipient"],
            createdAt: row["createdAt"] ?? 0, revokedAt: row["revokedAt"])
    }

    func guarded<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(code: "database", message: "\(what) failed: \(error.message ?? "\(error.resultCode)")")
        }
    }
}
