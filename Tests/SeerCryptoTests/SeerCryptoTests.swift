import SeerCrypto
import Testing

/// The bytes of a hexadecimal string (test vectors as published).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

/// Each byte of `bytes` with one bit flipped, in turn.
func flips(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.indices.map { index in
        var changed = bytes
        changed[index] ^= 1 << UInt8(index % 8)
        return changed
    }
}

@Suite struct Ed25519Tests {
    /// RFC 8032, section 7.1, tests 1 and 2: seed, public key, message, signature.
    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test(arguments: 0..<2) func rfc8032(_ index: Int) throws {
        let vector = Self.vectors[index]
        let key = try Ed25519.PrivateKey(seed: hex(vector.seed))
        #expect(key.seed == hex(vector.seed))
        #expect(key.publicKey.rawRepresentation == hex(vector.publicKey))
        #expect(try key.signature(for: hex(vector.message)) == hex(vector.signature))
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        #expect(publicKey.isValidSignature(hex(vector.signature), for: hex(vector.message)))
    }

    @Test func tamperedSignaturesAndMessagesAreRejected() throws {
        let vector = Self.vectors[1]
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        let signature = hex(vector.signature), message = hex(vector.message)
        for changed in flips(signature) { #expect(!publicKey.isValidSignature(changed, for: message)) }
        #expect(!publicKey.isValidSignature(signature, for: [0x73]))
        #expect(!publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!publicKey.isValidSignature(signature, for: []))
        // The other vector's key does not verify it.
        let other = try Ed25519.PublicKey(rawRepresentation: hex(Self.vectors[0].publicKey))
        #expect(!other.isValidSignature(signature, for: message))
    }

    @Test func wrongLengthsAreRejected() throws {
        let vector = Self.vectors[0]
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        let signature = hex(vector.signature)
        for length in [0, 1, 32, 63, 65, 128] {
            let bytes = Array((signature + signature).prefix(length))
            #expect(!publicKey.isValidSignature(bytes, for: []), "signature of \(length) bytes")
        }
        for length in [0, 31, 33, 64] {
            #expect(throws: CryptoError.wrongLength(expected: 32, got: length)) {
                try Ed25519.PublicKey(rawRepresentation: Array(repeating: 7, count: length))
            }
            #expect(throws: CryptoError.wrongLength(expected: 32, got: length)) {
                try Ed25519.PrivateKey(seed: Array(repeating: 7, count: length))
            }
        }
    }

    @Test func randomKeysRoundTrip() throws {
        let key = try Ed25519.PrivateKey()
        let other = try Ed25519.PrivateKey()
        #expect(key.seed != other.seed)
        #expect(key.seed.count == 32 && key.publicKey.rawRepresentation.count == 32)
        let again = try Ed25519.PrivateKey(seed: key.seed)
        #expect(again.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
        let message = Array("GS1 Digital Link".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(try again.signature(for: message) == signature, "Ed25519 signatures are deterministic")
        let publicKey = try Ed25519.PublicKey(rawRepresentation: key.publicKey.rawRepresentation)
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!other.publicKey.isValidSignature(signature, for: message))
    }
}

@Suite struct P256Tests {
    /// RFC 6979, appendix A.2.5: the P-256 key and the ECDSA signatures with SHA-256 of "sample"
    /// and "test".
    static let scalar = hex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    static let x = hex("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6")
    static let y = hex("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")
    static let signatures: [(message: String, r: String, s: String)] = [
        ("sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
         "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"),
        ("test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
         "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"),
    ]
    /// The order n of P-256's base point.
    static let order = hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    @Test func rfc6979KeyAndSignatures() throws {
        let key = try P256.PrivateKey(scalar: Self.scalar)
        #expect(key.scalar == Self.scalar)
        #expect(key.publicKey.rawRepresentation == Self.x + Self.y)
        #expect(key.publicKey.x963Representation == [0x04] + Self.x + Self.y)
        let raw = try P256.PublicKey(rawRepresentation: Self.x + Self.y)
        let x963 = try P256.PublicKey(x963Representation: [0x04] + Self.x + Self.y)
        for vector in Self.signatures {
            let signature = hex(vector.r) + hex(vector.s), message = Array(vector.message.utf8)
            #expect(raw.isValidSignature(signature, for: message))
            #expect(x963.isValidSignature(signature, for: message))
            #expect(!raw.isValidSignature(signature, for: Array((vector.message + ".").utf8)))
            for changed in flips(signature) { #expect(!raw.isValidSignature(changed, for: message)) }
        }
    }

    @Test func outOfRangeAndWrongLengthSignaturesAreRejected() throws {
        let publicKey = try P256.PublicKey(rawRepresentation: Self.x + Self.y)
        let vector = Self.signatures[0]
        let message = Array(vector.message.utf8), r = hex(vector.r), s = hex(vector.s)
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(!publicKey.isValidSignature(zero + s, for: message), "r = 0")
        #expect(!publicKey.isValidSignature(r + zero, for: message), "s = 0")
        #expect(!publicKey.isValidSignature(r + Self.order, for: message), "s = n")
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0xFF, count: 64), for: message))
        for length in [0, 1, 32, 63, 65, 72, 128] {
            let bytes = Array((r + s + r + s).prefix(length))
            #expect(!publicKey.isValidSignature(bytes, for: message), "signature of \(length) bytes")
        }
    }

    @Test func invalidPublicKeysAreRejected() {
        var offCurve = Self.y
        offCurve[31] ^= 1
        #expect(throws: CryptoError.invalidKey) { try P256.PublicKey(rawRepresentation: Self.x + offCurve) }
        #expect(throws: CryptoError.invalidKey) { try P256.PublicKey(x963Representation: [0x04] + Self.x + offCurve) }
        #expect(throws: CryptoError.invalidKey) { try P256.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 64)) }
        #expect(throws: CryptoError.invalidKey) { try P256.PublicKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 64)) }
        // Only the uncompressed X9.63 form.
        for prefix: UInt8 in [0x00, 0x02, 0x03, 0x06, 0x07] {
            #expect(throws: CryptoError.invalidKey) { try P256.PublicKey(x963Representation: [prefix] + Self.x + Self.y) }
        }
        for length in [0, 33, 63, 65, 66] {
            #expect(throws: CryptoError.wrongLength(expected: 64, got: length)) {
                try P256.PublicKey(rawRepresentation: Array((Self.x + Self.y + Self.x).prefix(length)))
            }
        }
        for length in [0, 33, 64, 66] {
            #expect(throws: CryptoError.wrongLength(expected: 65, got: length)) {
                try P256.PublicKey(x963Representation: Array(([0x04] + Self.x + Self.y + Self.x).prefix(length)))
            }
        }
    }

    @Test func outOfRangeScalarsAreRejected() {
        var pastOrder = Self.order
        pastOrder[31] += 1
        for scalar in [[UInt8](repeating: 0, count: 32), Self.order, pastOrder, [UInt8](repeating: 0xFF, count: 32)] {
            #expect(throws: CryptoError.invalidKey) { try P256.PrivateKey(scalar: scalar) }
        }
        for length in [0, 31, 33] {
            #expect(throws: CryptoError.wrongLength(expected: 32, got: length)) {
                try P256.PrivateKey(scalar: [UInt8](repeating: 1, count: length))
            }
        }
        var largest = Self.order
        largest[31] -= 1
        #expect((try? P256.PrivateKey(scalar: largest)) != nil, "n - 1 is a key")
    }

    @Test func keysRoundTrip() throws {
        for key in [try P256.PrivateKey(), try P256.PrivateKey(scalar: [UInt8](repeating: 3, count: 32))] {
            #expect(key.scalar.count == 32 && key.publicKey.rawRepresentation.count == 64)
            let again = try P256.PrivateKey(scalar: key.scalar)
            #expect(again.publicKey.x963Representation == key.publicKey.x963Representation)
            let message = Array("header.claims".utf8)
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            let publicKey = try P256.PublicKey(rawRepresentation: key.publicKey.rawRepresentation)
            #expect(publicKey.isValidSignature(signature, for: message))
            #expect(publicKey.isValidSignature(try again.signature(for: message), for: message))
            #expect(!publicKey.isValidSignature(signature, for: Array("header.claimz".utf8)))
        }
        #expect(try P256.PrivateKey().scalar != P256.PrivateKey().scalar)
    }
}

@Suite struct SHA256Tests {
    @Test func publishedDigests() {
        // FIPS 180-2's examples, and the empty message.
        #expect(SHA256.hash(data: Array("abc".utf8)) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(SHA256.hash(data: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
        #expect(SHA256.hash(data: []) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test func partsHashAsTheWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
        for cut in [0, 1, 63, 64, 65, 500, 1000] {
            var hasher = SHA256()
            hasher.update(data: Array(bytes[..<cut]))
            hasher.update(data: [])
            hasher.update(data: Array(bytes[cut...]))
            #expect(hasher.finalize() == SHA256.hash(data: bytes))
        }
    }
}
