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
        let made = Self.make(brandKey)
        keys.withLock {
            if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
            $0[name] = made
        }
        return made
    }

    private static func make(_ brandKey: BrandKey) -> Key? {
        guard let raw = Base64URL.decode(brandKey.publicKey) else { return nil }
        switch brandKey.algorithm {
        case .ed25519:
            return (try? Ed25519.PublicKey(rawRepresentation: raw)).map(Key.ed25519)
        case .es256:
            switch raw.count {
            case 64: return (try? P256.PublicKey(rawRepresentation: raw)).map(Key.p256)
            case 65: return (try? P256.PublicKey(x963Representation: raw)).map(Key.p256)
            default: return nil
            }
        }
    }
}
