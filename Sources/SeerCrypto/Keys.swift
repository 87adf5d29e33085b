import COpenSSL
import CSeerCrypto

/// Why a key or a signature could not be made.
public enum CryptoError: Error, Equatable, Sendable {
    /// The bytes have the wrong length for what they should hold.
    case wrongLength(expected: Int, got: Int)
    /// The bytes have the right length but are no key: a P-256 scalar outside [1, n-1], a point off the curve.
    case invalidKey
    /// libcrypto could not do what was asked (no memory, no random bytes).
    case libraryFailure
}

/// One libcrypto key (`EVP_PKEY`), freed with its owner. A key is never changed once made, and each
/// signature or check makes its own context (`EVP_MD_CTX`), so threads may share it.
final class OwnedKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`; throws `failure` when it is `nil`.
    init(_ pointer: OpaquePointer?, or failure: CryptoError) throws(CryptoError) {
        guard let pointer else { throw failure }
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// `count` bytes written by `body`, which returns 1 on success.
    func bytes(_ count: Int, _ body: (OpaquePointer, UnsafeMutablePointer<UInt8>) -> Int32) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { body(pointer, $0.baseAddress!) }
        guard ok == 1 else { throw .libraryFailure }
        return out
    }
}

/// Throws unless `bytes` has `count` bytes.
func require(_ bytes: [UInt8], count: Int) throws(CryptoError) {
    guard bytes.count == count else { throw .wrongLength(expected: count, got: bytes.count) }
}

/// Ed25519 (RFC 8032): 32-byte seeds and public keys, 64-byte signatures.
public enum Ed25519 {
    /// A private key.
    public struct PrivateKey {
        let key: OwnedKey
        /// The 32-byte seed, which is the key's stored form.
        public let seed: [UInt8]
        /// The public half.
        public let publicKey: PublicKey

        /// A new random key.
        public init() throws(CryptoError) {
            try self.init(key: OwnedKey(seer_ed25519_generate(), or: .libraryFailure))
        }

        /// The key with this 32-byte seed.
        public init(seed: [UInt8]) throws(CryptoError) {
            try require(seed, count: 32)
            try self.init(key: OwnedKey(seed.withUnsafeBufferPointer { seer_ed25519_private($0.baseAddress) }, or: .invalidKey))
        }

        private init(key: OwnedKey) throws(CryptoError) {
            self.key = key
            seed = try key.bytes(32) { seer_ed25519_seed($0, $1) }
            publicKey = try PublicKey(rawRepresentation: key.bytes(32) { seer_ed25519_public_bytes($0, $1) })
        }

        /// The 64-byte signature of `message`.
        public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
            try key.bytes(64) { key, out in
                message.withUnsafeBufferPointer { seer_ed25519_sign(key, $0.baseAddress, $0.count, out) }
            }
        }
    }

    /// A public key.
    public struct PublicKey: Sendable {
        let key: OwnedKey
        /// The 32 bytes.
        public let rawRepresentation: [UInt8]

        /// The key with these 32 bytes.
        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            try require(rawRepresentation, count: 32)
            key = try OwnedKey(rawRepresentation.withUnsafeBufferPointer { seer_ed25519_public($0.baseAddress) }, or: .invalidKey)
            self.rawRepresentation = rawRepresentation
        }

        /// Whether `signature` signs `message`; a signature of the wrong length is not valid. libcrypto's
        /// check takes the same time wherever a signature differs.
        public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            signature.withUnsafeBufferPointer { signature in
                message.withUnsafeBufferPointer { message in
                    seer_ed25519_verify(key.pointer, signature.baseAddress, signature.count, message.baseAddress, message.count) == 1
                }
            }
        }
    }
}

/// ECDSA on P-256 with SHA-256 (ES256): 32-byte scalars, public keys as raw x‖y (64 bytes) or X9.63
/// 04‖x‖y (65 bytes), signatures as raw r‖s (64 bytes).
public enum P256 {
    /// A private key.
    public struct PrivateKey {
        let key: OwnedKey
        /// The 32-byte big-endian scalar, which is the key's stored form.
        public let scalar: [UInt8]
        /// The public half.
        public let publicKey: PublicKey

        /// A new random key.
        public init() throws(CryptoError) {
            try self.init(key: OwnedKey(seer_p256_generate(), or: .libraryFailure))
        }

        /// The key with this 32-byte big-endian scalar, which must lie in [1, n-1].
        public init(scalar: [UInt8]) throws(CryptoError) {
            try require(scalar, count: 32)
            try self.init(key: OwnedKey(scalar.withUnsafeBufferPointer { seer_p256_private($0.baseAddress) }, or: .invalidKey))
        }

        private init(key: OwnedKey) throws(CryptoError) {
            self.key = key
            scalar = try key.bytes(32) { seer_p256_scalar($0, $1) }
            publicKey = try PublicKey(x963Representation: key.bytes(65) { seer_p256_public_bytes($0, $1) })
        }

        /// The signature of SHA-256(`message`) as raw r‖s (64 bytes).
        public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
            try key.bytes(64) { key, out in
                message.withUnsafeBufferPointer { seer_p256_sign(key, $0.baseAddress, $0.count, out) }
            }
        }
    }

    /// A public key: a point on the curve, not the point at infinity (libcrypto's public-key check).
    public struct PublicKey: Sendable {
        let key: OwnedKey
        /// X9.63: 04‖x‖y (65 bytes).
        public let x963Representation: [UInt8]
        /// Raw: x‖y (64 bytes).
        public var rawRepresentation: [UInt8] { Array(x963Representation.dropFirst()) }

        /// The key with this raw x‖y (64 bytes).
        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            try require(rawRepresentation, count: 64)
            try self.init(x963Representation: [0x04] + rawRepresentation)
        }

        /// The key with this X9.63 form, 04‖x‖y (65 bytes; compressed points are not accepted).
        public init(x963Representation: [UInt8]) throws(CryptoError) {
            try require(x963Representation, count: 65)
            key = try OwnedKey(
                x963Representation.withUnsafeBufferPointer { seer_p256_public($0.baseAddress, $0.count) }, or: .invalidKey)
            self.x963Representation = x963Representation
        }

        /// Whether the raw r‖s `signature` signs SHA-256(`message`); a signature of the wrong length,
        /// or with r or s outside [1, n-1], is not valid.
        public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            signature.withUnsafeBufferPointer { signature in
                message.withUnsafeBufferPointer { message in
                    seer_p256_verify(key.pointer, signature.baseAddress, signature.count, message.baseAddress, message.count) == 1
                }
            }
        }
    }
}
