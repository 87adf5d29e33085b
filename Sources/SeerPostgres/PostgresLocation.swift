import Foundation
import Logging
import SeerStore

/// Where a PostgreSQL store is: a `postgres://` (or `postgresql://`) URL, as `--db` and `SEER_DB`
/// take it.
///
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`; the port
/// defaults to 5432 and the database to the user's name. A host that is a folder (URL-encoded, or
/// given as `?host=/path`) is the folder of the server's Unix socket.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// TLS, as libpq's `sslmode` names it.
    public enum TLSMode: String, Sendable, Equatable {
        /// Plain TCP (the default; a server on loopback or a private network).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection.
        case require
    }

    /// The server's host name or address, or the folder of its Unix socket.
    public var host: String
    /// The TCP port (and the Unix socket's number).
    public var port: Int
    /// The user.
    public var user: String
    /// The password, when the server asks for one.
    public var password: String?
    /// The database.
    public var database: String
    /// TLS.
    public var tls: TLSMode

    /// Whether `text` is a PostgreSQL URL rather than a SQLite file's path.
    public static func isURL(_ text: String) -> Bool {
        isPostgresURL(text)
    }

    /// Parses a URL.
    /// - Throws: ``StoreError`` `cannotOpen` naming what is wrong.
    public init(url: String) throws(StoreError) {
        func refuse(_ why: String) -> StoreError {
            StoreError(code: "cannotOpen", message: "The database URL \(Self.redact(url)) \(why).")
        }
        guard Self.isURL(url), let components = URLComponents(string: url) else {
            throw refuse("is not a URL of the form postgres://user@host:port/database")
        }
        let items = components.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }) ?? item("user"), !user.isEmpty else {
            throw refuse("names no user (postgres://user@host/database)")
        }
        self.user = user
        password = components.password.flatMap { $0.removingPercentEncoding } ?? item("password")
        let host = components.percentEncodedHost.flatMap { $0.removingPercentEncoding } ?? ""
        self.host = item("host") ?? (host.isEmpty ? "127.0.0.1" : host)
        port = components.port ?? item("port").flatMap { Int($0) } ?? 5432
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
        guard let tls = TLSMode(rawValue: item("sslmode") ?? "disable") else {
            throw refuse("has an sslmode other than disable, prefer or require")
        }
        self.tls = tls
    }

    /// Whether ``host`` is the folder of a Unix socket.
    public var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The URL without its password (for messages and logs).
    public var description: String {
        let place = isUnixSocket ? "localhost/\(database)?host=\(host)&port=\(port)" : "\(host):\(port)/\(database)"
        return "postgres://\(user)@\(place)"
    }

    /// The URL with any password replaced by `***`.
    static func redact(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "postgres://…"
    }
}

extension StoreOpener {
    /// Connects to the PostgreSQL database at `url` (`postgres://user@host:port/database`) and
    /// migrates it, when an engine first needs its store: `Engine.Configuration.store = .opened(.postgres(url: url))`.
    public static func postgres(url: String) -> StoreOpener {
        let name = (try? PostgresLocation(url: url))?.description ?? PostgresLocation.redact(url)
        return StoreOpener(name) { logger in
            let store = try PostgresStore(url: url, logger: logger)
            logger.debug("store opened", metadata: ["postgres": "\(store.location)"])
            return store
        }
    }
}

extension StoreScheme {
    /// `postgres://` and `postgresql://` URLs: `StoreLocation.named(text, schemes: [.postgres])`.
    public static let postgres = StoreScheme(accepts: { isPostgresURL($0) }, opener: { StoreOpener.postgres(url: $0) })
}
