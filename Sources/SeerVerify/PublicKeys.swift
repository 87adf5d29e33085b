import SeerCrypto
import Synchronization

/// Brand keys made into libcrypto keys once, not once per code: every code of a brand is checked
/// with the same few keys, and making a key costs more than the check itself. Keyed by algorithm
/// and encoded key, so a changed or rotated key is a new entry; bounded, emptied when full.
final class PublicKeys: Sendable {
    enum Key: Sendable {
        case ed25519(Ed25519.PublicKey)
        case p256(P256.PublicKey)
    }

    static let shared = PublicKeys(capacity: 256)

    private let capacity: Int
    /// `nil` for a key that is not one (wrong length, not a point on the curve).
    private let keys = Mutex<[String: Key?]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The key `brandKey` holds, or `nil` when it holds none.
    func key(_ brandKey: BrandKey) -> Key? {
        let name = brandKey.algorithm.rawValue + " " + brandKey.publicKey
        if let known = keys.withLock({ $0[name] }) { return known }
        let made = try? Self.make(brandKey).get()
        keys.withLock {
            if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
            $0[name] = made
        }
        return made
    }

    /// The key `brandKey` holds, or why it holds none.
    static func make(_ brandKey: BrandKey) -> Result<Key, KeyProblem> {
        guard let raw = Base64URL.decode(brandKey.publicKey) else { return .failure("not canonical base64url") }
        switch brandKey.algorithm {
        case .ed25519:
            if raw.count != 32 { return .failure("an Ed25519 public key has 32 bytes; got \(raw.count)") }
            guard let key = try? Ed25519.PublicKey(rawRepresentation: raw) else { return .failure("not an Ed25519 public key") }
            return .success(.ed25519(key))
        case .es256:
            let key: P256.PublicKey?
            switch raw.count {
            case 64: key = try? P256.PublicKey(rawRepresentation: raw)
            case 65: key = try? P256.PublicKey(x963Representation: raw)
            default: return .failure("a P-256 public key has 64 (raw) or 65 (X9.63) bytes; got \(raw.count)")
            }
            guard let key else { return .failure("not a point on P-256") }
            return .success(.p256(key))
        }
    }

    /// Why a record's bytes are no key, in words.
    struct KeyProblem: Error, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
        let message: String
        init(stringLiteral message: String) { self.message = message }
        init(stringInterpolation: DefaultStringInterpolation) { message = String(stringInterpolation: stringInterpolation) }
    }
}

extension BrandKey {
    /// Why this record's public key is unusable (not base64url, the wrong length, not a key of its
    /// algorithm), or `nil`: what a registry import reports.
    public var keyProblem: String? {
        if case .failure(let problem) = PublicKeys.make(self) { return problem.message }
        return nil
    }
}
