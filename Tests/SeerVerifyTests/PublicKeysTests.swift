import Testing

@testable import SeerVerify

/// Brand keys are made into libcrypto keys once and shared by every check, on any thread.
@Suite struct PublicKeysTests {
    static let ed = try! SigningKey.ed25519(kid: "k-ed", seed: Array(repeating: 7, count: 32))
    static let ec = try! SigningKey.es256(kid: "k-ec", scalar: Array(repeating: 9, count: 32))

    static func signed(_ key: SigningKey, _ text: String) throws -> SignedPart {
        let message = Array(text.utf8)
        return SignedPart(algorithm: key.algorithm, keyID: key.kid, message: message, signature: try key.sign(message))
    }

    @Test("a full table starts over, and every key it gives still checks right")
    func boundedTable() throws {
        let keys = PublicKeys(capacity: 2)
        let other = try SigningKey.ed25519(kid: "k-other", seed: Array(repeating: 8, count: 32))
        for _ in 0..<3 {
            for signer in [Self.ed, Self.ec, other] {
                let message = Array("01 09506000134352 21 A\(signer.kid)".utf8)
                let signature = try signer.sign(message)
                switch keys.key(signer.publicKey()) {
                case .ed25519(let key):
                    #expect(signer.algorithm == .ed25519)
                    #expect(key.isValidSignature(signature, for: message))
                    #expect(!key.isValidSignature(signature, for: message + [0]))
                case .p256(let key):
                    #expect(signer.algorithm == .es256)
                    #expect(key.isValidSignature(signature, for: message))
                    #expect(!key.isValidSignature(signature, for: message + [0]))
                case nil:
                    Issue.record("\(signer.kid): no key")
                }
            }
        }
    }

    @Test("bytes that are no key give none, each time; the same bytes under another algorithm are another entry")
    func notAKey() {
        let keys = PublicKeys(capacity: 8)
        let ed = Self.ed.publicKey()
        var asP256 = ed
        asP256.algorithm = .es256
        let offCurve = BrandKey(kid: "x", algorithm: .es256, publicKey: Base64URL.encode([UInt8](repeating: 1, count: 64)))
        let notBase64 = BrandKey(kid: "y", algorithm: .ed25519, publicKey: "not base64url!")
        for _ in 0..<2 {
            #expect(keys.key(asP256) == nil)
            #expect(keys.key(offCurve) == nil)
            #expect(keys.key(notBase64) == nil)
            #expect(keys.key(ed) != nil)
        }
    }

    @Test("a record whose bytes are no key says why, as a registry import reports it")
    func keyProblems() {
        func record(_ algorithm: SignatureAlgorithm, _ text: String) -> BrandKey { BrandKey(kid: "k", algorithm: algorithm, publicKey: text) }
        #expect(Self.ed.publicKey().keyProblem == nil)
        #expect(Self.ec.publicKey().keyProblem == nil)
        #expect(record(.ed25519, "not base64url!").keyProblem == "not canonical base64url")
        #expect(record(.ed25519, Base64URL.encode([UInt8](repeating: 1, count: 31))).keyProblem == "an Ed25519 public key has 32 bytes; got 31")
        #expect(record(.es256, Base64URL.encode([UInt8](repeating: 1, count: 33))).keyProblem == "a P-256 public key has 64 (raw) or 65 (X9.63) bytes; got 33")
        #expect(record(.es256, Base64URL.encode([UInt8](repeating: 1, count: 64))).keyProblem == "not a point on P-256")
        #expect(record(.es256, Base64URL.encode([0x02] + [UInt8](repeating: 1, count: 64))).keyProblem == "not a point on P-256")
    }

    @Test("checks on many threads at once share the keys and agree")
    func concurrentChecks() async throws {
        let good = try [Self.signed(Self.ed, "one"), Self.signed(Self.ec, "two")]
        let bad = good.map { SignedPart(algorithm: $0.algorithm, keyID: $0.keyID, message: $0.message + [0x21], signature: $0.signature) }
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for round in 0..<64 {
                let pair = round % 2
                let key = (pair == 0 ? Self.ed : Self.ec).publicKey()
                group.addTask { Verifier.check(good[pair], with: key) && !Verifier.check(bad[pair], with: key) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}
