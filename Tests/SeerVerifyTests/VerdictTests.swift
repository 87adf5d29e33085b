import Foundation
import SeerVerify
import Testing

@Suite struct VerdictTests {
    typealias F = CodeIssuer.Fields
    static let day = 86_400.0

    func link(_ gtin: String, _ serial: String?, _ key: SigningKey? = Fixture.acme) throws -> String {
        try CodeIssuer.digitalLink(F(gtin: gtin, serial: serial), key: key)
    }

    @Test func signedRegisteredCodeIsAuthenticInEveryForm() throws {
        let fields = F(gtin: Fixture.serum, serial: "S1001", lot: "L7", expiry: "271231")
        for payload in [
            try CodeIssuer.digitalLink(fields, key: Fixture.acme),
            try CodeIssuer.elementString(fields, key: Fixture.acme),
            try CodeIssuer.jws(fields, key: Fixture.acme),
            try CodeIssuer.jws(fields, key: Fixture.acmeP256),
        ] {
            let result = try Fixture.verify(payload)
            #expect(result.verdict == .authentic, "\(payload): \(result.reasons)")
            #expect(result.reasons.contains(.validSignature) && result.reasons.contains(.registeredSerial))
            #expect(result.product?.name == "Radiance Serum 30 ml")
        }
    }

    @Test func signedWithoutSerialIsAuthentic() throws {
        let result = try Fixture.verify(try link(Fixture.cream, nil))
        #expect(result.verdict == .authentic && result.reasons == [.validSignature])
    }

    @Test func eachReasonAndItsVerdict() throws {
        let cases: [(String, String, Verdict, Reason)] = [
            ("bad signature", try link(Fixture.serum, "S1001").replacingOccurrences(of: "S1001", with: "S1004"), .counterfeit, .badSignature),
            ("revoked key", try link(Fixture.serum, "S1001", Fixture.acmeOld), .counterfeit, .revokedKey),
            ("unknown key, known product", try link(Fixture.serum, "S1001", Fixture.stranger), .counterfeit, .unknownKey),
            ("unknown key, unknown product", try link("4006381333931", "X", Fixture.stranger), .unknown, .unknownKey),
            ("another brand's key", try link(Fixture.serum, "S1001", Fixture.globex), .counterfeit, .wrongBrandKey),
            ("unsigned, brand signs everything", try link(Fixture.serum, "S1001", nil), .counterfeit, .unsigned),
            ("unsigned, unknown product", try link("4006381333931", "X", nil), .unknown, .unknownProduct),
            ("signed, unknown product", try link("4006381333931", "X", Fixture.acme), .suspicious, .unknownProduct),
            ("signed, unknown serial", try link(Fixture.serum, "S9999"), .suspicious, .unknownSerial),
            ("unsigned, unknown serial", try link(Fixture.soap, "P999", nil), .counterfeit, .unknownSerial),
            ("recalled", try link(Fixture.serum, "S1002"), .suspicious, .recalled),
            ("decommissioned", try link(Fixture.serum, "S1003"), .counterfeit, .decommissioned),
            ("not a product code", "https://example.com/hello", .unknown, .notAProductCode),
            ("invalid unsigned GS1", "https://id.example.com/01/09506000134353/21/S1", .suspicious, .invalidPayload),
            ("unsupported JWS algorithm", Self.token(alg: "HS256"), .counterfeit, .badSignature),
        ]
        for (name, payload, verdict, reason) in cases {
            let result = try Fixture.verify(payload)
            #expect(result.verdict == verdict, "\(name): \(result.verdict) \(result.reasons)")
            #expect(result.reasons.contains(reason), "\(name): \(result.reasons)")
        }
    }

    static func token(alg: String) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","kid":"acme-2025"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"gtin":"09506000134352","serial":"S1001"}"#.utf8))
        return header + "." + claims + "." + Base64URL.encode([UInt8](repeating: 7, count: 32))
    }

    @Test func unsignedRegisteredSerialOfANonSigningBrandIsAuthentic() throws {
        let result = try Fixture.verify(try link(Fixture.soap, "P100", nil))
        #expect(result.verdict == .authentic)
        #expect(Set(result.reasons) == [.registeredSerial, .unsigned])
    }

    @Test func unsignedCodeWithoutRegistryEntryIsNeverAuthentic() throws {
        for payload in ["4006381333931", try link("4006381333931", "Z1", nil), try link(Fixture.soap, nil, nil)] {
            #expect(try Fixture.verify(payload).verdict != .authentic, "\(payload)")
        }
    }

    @Test func outsideMarketAndDuplicates() throws {
        let payload = try link(Fixture.serum, "S1001")
        let abroad = try Fixture.verify(payload, context: ScanContext(time: 1_800_000_000, country: "US"))
        #expect(abroad.verdict == .suspicious && abroad.reasons.first == .outsideMarket)
        let home = try Fixture.verify(payload, context: ScanContext(time: 1_800_000_000, country: "de"))
        #expect(home.verdict == .authentic)

        var tracker = DuplicateTracker(reason: .duplicateInBatch)
        #expect(tracker.check(payload) == nil)
        #expect(tracker.check(try CodeIssuer.elementString(F(gtin: Fixture.serum, serial: "S1001"), key: Fixture.acme)) == .duplicateInBatch)
        #expect(tracker.check(try link(Fixture.serum, "S1004")) == nil)
        let duplicate = try Fixture.verify(payload, duplicate: tracker.reason)
        #expect(duplicate.verdict == .suspicious && duplicate.reasons.contains(.duplicateInBatch))
        let inPhoto = try Fixture.verify(payload, duplicate: .duplicateInPhoto)
        #expect(inPhoto.reasons.contains(.duplicateInPhoto))
    }

    @Test func cloneSignalsFromHistory() throws {
        let payload = try link(Fixture.serum, "S1001")
        let now = 1_800_000_000.0
        var configuration = VerifyConfiguration()
        configuration.maxScans = 3

        var registry = Fixture.registry
        for index in 0..<3 {
            registry.record(gtin: Fixture.serum, serial: "S1001", PriorScan(time: now - Double(index + 1) * Self.day, device: "d1", country: "DE", latitude: nil, longitude: nil))
        }
        let many = try Fixture.verify(payload, registry: registry, context: ScanContext(time: now, device: "d1"), configuration: configuration)
        #expect(many.verdict == .suspicious && many.reasons.contains(.cloneSuspected) && many.reasons.contains(.tooManyScans))

        // Old scans fall out of the window.
        configuration.windowSeconds = 0.5 * Self.day
        let windowed = try Fixture.verify(payload, registry: registry, context: ScanContext(time: now, device: "d1"), configuration: configuration)
        #expect(windowed.verdict == .authentic)

        var devices = Fixture.registry
        for index in 0..<5 {
            devices.record(gtin: Fixture.serum, serial: "S1001", PriorScan(time: now - 100 * Double(index + 1), device: "dev\(index)", country: nil, latitude: nil, longitude: nil))
        }
        let manyDevices = try Fixture.verify(payload, registry: devices, context: ScanContext(time: now, device: "dev9"))
        #expect(manyDevices.reasons.contains(.tooManyDevices) && !manyDevices.reasons.contains(.tooManyScans))

        var countries = Fixture.registry
        countries.record(gtin: Fixture.serum, serial: "S1001", PriorScan(time: now - 3 * Self.day, device: nil, country: "DE", latitude: nil, longitude: nil))
        countries.record(gtin: Fixture.serum, serial: "S1001", PriorScan(time: now - 2 * Self.day, device: nil, country: "FR", latitude: nil, longitude: nil))
        let threeCountries = try Fixture.verify(payload, registry: countries, context: ScanContext(time: now, country: "BE"))
        #expect(threeCountries.reasons.contains(.tooManyCountries))
        let twoCountries = try Fixture.verify(payload, registry: countries, context: ScanContext(time: now, country: "FR"))
        #expect(twoCountries.verdict == .authentic)

        // Berlin, then Paris (about 880 km) half an hour later: impossible; ten hours later: fine.
        var travel = Fixture.registry
        travel.record(gtin: Fixture.serum, serial: "S1001", PriorScan(time: now - 1800, device: nil, country: nil, latitude: 52.52, longitude: 13.405))
        let fast = try Fixture.verify(payload, registry: travel, context: ScanContext(time: now, latitude: 48.8566, longitude: 2.3522))
        #expect(fast.verdict == .suspicious && fast.reasons.contains(.impossibleTravel))
        let slow = try Fixture.verify(payload, registry: travel, context: ScanContext(time: now + 9 * 3600, latitude: 48.8566, longitude: 2.3522))
        #expect(slow.verdict == .authentic)
    }

    @Test func precedenceKeepsTheWorstVerdictAndAllReasons() throws {
        // Decommissioned (counterfeit) and outside its market (suspicious): counterfeit, both reasons.
        let result = try Fixture.verify(try link(Fixture.serum, "S1003"), context: ScanContext(time: 1_800_000_000, country: "US"))
        #expect(result.verdict == .counterfeit)
        #expect(result.reasons.contains(.decommissioned) && result.reasons.contains(.outsideMarket))
        #expect(Verdict.counterfeit > .suspicious && Verdict.suspicious > .authentic && Verdict.authentic > .unknown)
    }

    /// Every byte of every signed form, changed (low bit flipped, and replaced by another
    /// character of the base64url alphabet), makes the code counterfeit.
    @Test(arguments: ["link", "element", "jwsEd25519", "jwsP256"])
    func tamperingAnyByteIsCounterfeit(_ form: String) throws {
        let fields = F(gtin: Fixture.serum, serial: "S1001", lot: "L7", expiry: "271231")
        let payload: String =
            switch form {
            case "link": try CodeIssuer.digitalLink(fields, key: Fixture.acme)
            case "element": try CodeIssuer.elementString(fields, key: Fixture.acme)
            case "jwsEd25519": try CodeIssuer.jws(fields, key: Fixture.acme)
            default: try CodeIssuer.jws(fields, key: Fixture.acmeP256)
            }
        #expect(try Fixture.verify(payload).verdict == .authentic)
        let bytes = Array(payload.utf8)
        for index in bytes.indices {
            for replacement in [bytes[index] ^ 0x01, bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")] {
                var tampered = bytes
                tampered[index] = replacement
                let text = String(decoding: tampered, as: UTF8.self)
                let result = try Fixture.verify(text)
                #expect(result.verdict == .counterfeit, "\(form) byte \(index) → \(result.verdict) \(result.reasons): \(text)")
            }
        }
    }
}
