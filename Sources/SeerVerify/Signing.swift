import Foundation
import SeerCrypto

/// A brand's private key, for issuing signed codes (demo data, tests, a brand's own tooling).
public struct SigningKey: Sendable {
    /// Raw private key bytes (the key types themselves are not `Sendable`).
    enum Material: Sendable {
        case ed25519([UInt8])
        case es256([UInt8])
    }

    let material: Material
    /// The key id codes will name.
    public let kid: String

    /// A new random Ed25519 key.
    public static func ed25519(kid: String) -> SigningKey {
        // Only a failing random source stops it, which nothing here can recover from.
        guard let key = try? Ed25519.PrivateKey() else { fatalError("Ed25519: no random key from libcrypto") }
        return SigningKey(material: .ed25519(key.seed), kid: kid)
    }

    /// A new random P-256 key.
    public static func es256(kid: String) -> SigningKey {
        guard let key = try? P256.PrivateKey() else { fatalError("P-256: no random key from libcrypto") }
        return SigningKey(material: .es256(key.scalar), kid: kid)
    }

    /// An Ed25519 key from its 32-byte seed (deterministic demo keys).
    public static func ed25519(kid: String, seed: [UInt8]) throws -> SigningKey {
        SigningKey(material: .ed25519(try Ed25519.PrivateKey(seed: seed).seed), kid: kid)
    }

    /// A P-256 key from its 32-byte scalar.
    public static func es256(kid: String, scalar: [UInt8]) throws -> SigningKey {
        SigningKey(material: .es256(try P256.PrivateKey(scalar: scalar).scalar), kid: kid)
    }

    /// The algorithm.
    public var algorithm: SignatureAlgorithm {
        switch material {
        case .ed25519: .ed25519
        case .es256: .es256
        }
    }

    /// The public half as a registry record.
    public func publicKey(status: KeyStatus = .active) -> BrandKey {
        let raw: [UInt8]
        switch material {
        case .ed25519(let bytes): raw = (try? Ed25519.PrivateKey(seed: bytes))?.publicKey.rawRepresentation ?? []
        case .es256(let bytes): raw = (try? P256.PrivateKey(scalar: bytes))?.publicKey.rawRepresentation ?? []
        }
        return BrandKey(kid: kid, algorithm: algorithm, publicKey: Base64URL.encode(raw), status: status)
    }

    /// Signs `message`: Ed25519, or ES256 as raw r‖s.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch material {
        case .ed25519(let bytes): try Ed25519.PrivateKey(seed: bytes).signature(for: message)
        case .es256(let bytes): try P256.PrivateKey(scalar: bytes).signature(for: message)
        }
    }
}

/// Writes product codes in each syntax Seer reads, signed or not.
public enum CodeIssuer {
    /// The GS1 fields of a code.
    public struct Fields: Sendable {
        /// GTIN (8–14 digits).
        public var gtin: String
        /// Serial (21).
        public var serial: String?
        /// Lot (10).
        public var lot: String?
        /// Expiry (17), YYMMDD.
        public var expiry: String?

        /// Creates the fields.
        public init(gtin: String, serial: String? = nil, lot: String? = nil, expiry: String? = nil) {
            self.gtin = gtin
            self.serial = serial
            self.lot = lot
            self.expiry = expiry
        }
    }

    static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// A Digital Link URI; signed (Ed25519 only) when `key` is given.
    public static func digitalLink(_ fields: Fields, base: String = "https://id.example.com", key: SigningKey? = nil) throws -> String {
        var uri = base + "/01/" + fields.gtin
        if let lot = fields.lot { uri += "/10/" + escape(lot) }
        if let serial = fields.serial { uri += "/21/" + escape(serial) }
        var query: [String] = []
        if let expiry = fields.expiry { query.append("17=" + expiry) }
        guard let key else { return query.isEmpty ? uri : uri + "?" + query.joined(separator: "&") }
        guard key.algorithm == .ed25519 else { throw PayloadIssue(code: "unsupported", message: "AI 8030 signatures are Ed25519.") }
        query.append("kid=" + escape(key.kid))
        let message = uri + "?" + query.joined(separator: "&")
        return message + "&8030=" + Base64URL.encode(try key.sign(Array(message.utf8)))
    }

    /// An element string with FNC1 as GS; signed (Ed25519 only, key id in AI 91) when `key` is given.
    public static func elementString(_ fields: Fields, key: SigningKey? = nil) throws -> String {
        let gs = "\u{1D}"
        let gtin = String(repeating: "0", count: max(0, 14 - fields.gtin.count)) + fields.gtin
        var text = "01" + gtin
        if let expiry = fields.expiry { text += "17" + expiry }
        var variable: [String] = []
        if let lot = fields.lot { variable.append("10" + lot) }
        if let serial = fields.serial { variable.append("21" + serial) }
        guard let key else { return text + variable.joined(separator: gs) }
        guard key.algorithm == .ed25519 else { throw PayloadIssue(code: "unsupported", message: "AI 8030 signatures are Ed25519.") }
        variable.append("91" + key.kid)
        let message = text + variable.joined(separator: gs)
        return message + gs + "8030" + Base64URL.encode(try key.sign(Array(message.utf8)))
    }

    /// A compact JWS with claims `gtin`, `serial`, `lot`, `expiry`.
    public static func jws(_ fields: Fields, key: SigningKey) throws -> String {
        struct Header: Encodable {
            var alg: String
            var kid: String
            var typ = "JWT"
        }
        struct Claims: Encodable {
            var gtin: String
            var serial: String?
            var lot: String?
            var expiry: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let header = Base64URL.encode(try encoder.encode(Header(alg: key.algorithm.rawValue, kid: key.kid)))
        let claims = Base64URL.encode(
            try encoder.encode(Claims(gtin: fields.gtin, serial: fields.serial, lot: fields.lot, expiry: fields.expiry)))
        let input = header + "." + claims
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}
