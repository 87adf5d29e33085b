import Foundation
import SeerCrypto
import SeerImage
import SeerPlateText
import SeerVerify

/// The demo registry and demo codes: signed, tampered, cloned and unknown product codes and charger
/// codes, all derived from fixed demo keys so the example registry and the images agree.
///
/// The demo private keys are derived from public strings: they are for the demo only.
public enum VerifyDemo {
    /// One demo code: its image file, payload and the answer it should get.
    public struct Code: Codable, Sendable, Equatable {
        /// The PNG's file name.
        public var file: String
        /// `product` or `charger`.
        public var kind: String
        /// The payload the code holds.
        public var payload: String
        /// The code's symbology: `qr`, or `datamatrix` (a GS1 element string, as medicine packs carry).
        public var symbology: String = "qr"
        /// The expected verdict (products) or action (chargers), scanned in batch mode in file order.
        public var expected: String
        /// What the code demonstrates.
        public var note: String
    }

    static func seed(_ kid: String) -> [UInt8] { Array(SHA256.hash(data: Array("seer demo key \(kid)".utf8))) }

    /// The demo signing keys by kid.
    public static func keys() throws -> [String: SigningKey] {
        [
            "acme-2025": try .ed25519(kid: "acme-2025", seed: seed("acme-2025")),
            "acme-2019": try .ed25519(kid: "acme-2019", seed: seed("acme-2019")),
            "globex-p256": try .es256(kid: "globex-p256", scalar: seed("globex-p256")),
            "globex-2025": try .ed25519(kid: "globex-2025", seed: seed("globex-2025")),
            "forger": try .ed25519(kid: "acme-2026", seed: seed("forger")),
            "medica-2025": try .ed25519(kid: "medica-2025", seed: seed("medica-2025")),
        ]
    }

    static let serum = "09506000134352"
    static let cream = "09506000134369"
    static let pads = "09506000134376"
    static let soap = "09506000134383"
    static let tablets = "09506000134390"

    /// The demo registry split the way `Examples/registry/` ships it.
    public static func registryFiles() throws -> [(name: String, file: RegistryFile)] {
        let keys = try keys()
        let brands = [
            Brand(id: "acme", name: "Acme Cosmetics", keys: [keys["acme-2025"]!.publicKey(), keys["acme-2019"]!.publicKey(status: .revoked)]),
            Brand(id: "globex", name: "Globex Auto Parts", keys: [keys["globex-p256"]!.publicKey(), keys["globex-2025"]!.publicKey()]),
            Brand(id: "plainco", name: "Plain Co", requiresSignature: false),
            Brand(id: "medica", name: "Medica Pharma", keys: [keys["medica-2025"]!.publicKey()]),
        ]
        let products = [
            Product(gtin: serum, name: "Radiance Serum 30 ml", brand: "acme", category: "cosmetics", markets: ["DE", "FR", "NL"]),
            Product(gtin: cream, name: "Night Cream 50 ml", brand: "acme", category: "cosmetics"),
            Product(gtin: pads, name: "Ceramic Brake Pads", brand: "globex", category: "autoparts"),
            Product(gtin: soap, name: "Plain Soap", brand: "plainco", category: "household"),
            Product(gtin: tablets, name: "Ibuprofen 400 mg, 24 tablets", brand: "medica", category: "medicine", markets: ["DE", "FR", "NL"]),
        ]
        var serials = (1001...1020).map { SerialRecord(gtin: serum, serial: "S\($0)") }
        serials += [
            SerialRecord(gtin: serum, serial: "S2001", status: .recalled),
            SerialRecord(gtin: serum, serial: "S3001", status: .decommissioned),
            SerialRecord(gtin: cream, serial: "C1001"),
            SerialRecord(gtin: pads, serial: "P1001"), SerialRecord(gtin: pads, serial: "P1002"),
            SerialRecord(gtin: soap, serial: "H1001"),
            SerialRecord(gtin: tablets, serial: "M1001"), SerialRecord(gtin: tablets, serial: "M1002"),
        ]
        let users = [
            PlateOwner(id: "rcp-7f3a9c", name: "Alex Example", email: "alex@example.com", plate: "AB12 CDE", country: try Country.parse("GB")),
            PlateOwner(id: "rcp-1b44e0", name: "Billie Example", email: "billie@example.com", plate: "B0B 123", country: try Country.parse("GB")),
            PlateOwner(id: "rcp-90c2d1", name: "Casey Example", email: "casey@example.com", plate: "808 123", country: try Country.parse("GB")),
            PlateOwner(id: "rcp-5e61aa", name: "Dana Example", email: "dana@example.com", plate: "M-SR 1234", country: try Country.parse("DE")),
            // The plate in TestImages/plates/uk.png, so a plate read from a photo resolves in the demo.
            PlateOwner(id: "rcp-3d8e52", name: "Erin Example", email: "erin@example.com", plate: "LN68 XKT", country: try Country.parse("GB")),
        ]
        let chargers = ChargerStatus.allCases.enumerated().map { index, status in
            Charger(id: String(100_001 + index), serial: "EVB-\(2400 + index)", location: "Demo Street \(index + 1), bay \(index + 1)", status: status)
        }
        return [
            ("brands.json", RegistryFile(brands: brands)),
            ("products.json", RegistryFile(products: products, serials: serials)),
            ("users.json", RegistryFile(users: users)),
            ("chargers.json", RegistryFile(chargers: chargers)),
        ]
    }

    /// The demo codes, in the order a batch scan should see them.
    public static func codes() throws -> [Code] {
        let keys = try keys()
        typealias F = CodeIssuer.Fields
        func link(_ gtin: String, _ serial: String?, lot: String? = nil, _ kid: String?) throws -> String {
            try CodeIssuer.digitalLink(F(gtin: gtin, serial: serial, lot: lot, expiry: "281231"), key: kid.map { keys[$0]! })
        }
        let original = try link(serum, "S1005", lot: "L24", "acme-2025")
        let tampered = original.replacingOccurrences(of: "/21/S1005", with: "/21/S1006")
        let token = try CodeIssuer.jws(F(gtin: pads, serial: "P1002", lot: "B7"), key: keys["globex-p256"]!)
        let tamperedToken: String = {
            // Change one character of the claims part.
            var parts = token.split(separator: ".").map(String.init)
            var claims = Array(parts[1])
            claims[10] = claims[10] == "A" ? "B" : "A"
            parts[1] = String(claims)
            return parts.joined(separator: ".")
        }()
        let clone = try link(serum, "S1010", "acme-2025")
        var list: [Code] = [
            Code(file: "authentic-link.png", kind: "product", payload: try link(serum, "S1001", lot: "L24", "acme-2025"), expected: "authentic",
                 note: "GS1 Digital Link signed (AI 8030, Ed25519) by an active Acme key; serial registered"),
            Code(file: "authentic-element.png", kind: "product",
                 payload: try CodeIssuer.elementString(F(gtin: cream, serial: "C1001", lot: "N5", expiry: "271130"), key: keys["acme-2025"]!),
                 expected: "authentic", note: "GS1 element string with (91) key id and (8030) signature"),
            Code(file: "medicine-pack.png", kind: "product",
                 payload: try CodeIssuer.elementString(F(gtin: tablets, serial: "M1001", lot: "B2417", expiry: "281130"), key: keys["medica-2025"]!),
                 symbology: "datamatrix", expected: "authentic",
                 note: "GS1 DataMatrix of a medicine pack: GTIN, expiry, lot, serial, (91) key id and (8030) signature"),
            Code(file: "authentic-jws.png", kind: "product", payload: token, expected: "authentic",
                 note: "compact JWS signed ES256 by Globex"),
            Code(file: "authentic-unsigned.png", kind: "product", payload: try link(soap, "H1001", nil), expected: "authentic",
                 note: "unsigned code of a brand that does not sign; serial registered"),
            Code(file: "tampered-link.png", kind: "product", payload: tampered, expected: "counterfeit",
                 note: "serial changed after signing: badSignature"),
            Code(file: "tampered-jws.png", kind: "product", payload: tamperedToken, expected: "counterfeit",
                 note: "one character of the JWS claims changed: badSignature"),
            Code(file: "revoked-key.png", kind: "product", payload: try link(serum, "S1003", "acme-2019"), expected: "counterfeit",
                 note: "signed with Acme's revoked 2019 key"),
            Code(file: "forged-key.png", kind: "product", payload: try link(serum, "S1004", "forger"), expected: "counterfeit",
                 note: "signed with a key id Acme never registered: unknownKey"),
            Code(file: "unsigned-acme.png", kind: "product", payload: try link(serum, "S1002", nil), expected: "counterfeit",
                 note: "unsigned code for a brand that signs all its codes"),
            Code(file: "decommissioned.png", kind: "product", payload: try link(serum, "S3001", "acme-2025"), expected: "counterfeit",
                 note: "serial decommissioned: its code is being reused"),
            Code(file: "recalled.png", kind: "product", payload: try link(serum, "S2001", "acme-2025"), expected: "suspicious",
                 note: "genuine but recalled"),
            Code(file: "cloned-1.png", kind: "product", payload: clone, expected: "authentic",
                 note: "first of two copies of one signed code"),
            Code(file: "cloned-2.png", kind: "product", payload: clone, expected: "suspicious",
                 note: "second copy: duplicateInBatch (and cloneSuspected once history passes the thresholds)"),
            Code(file: "unknown-serial.png", kind: "product", payload: try link(serum, "S9999", "acme-2025"), expected: "suspicious",
                 note: "validly signed, serial missing from the registry"),
            Code(file: "unknown-product.png", kind: "product", payload: try link("4006381333931", "X1", nil), expected: "unknown",
                 note: "unsigned code for a GTIN nobody registered"),
            Code(file: "not-a-product.png", kind: "product", payload: "https://example.com/hello", expected: "unknown",
                 note: "a web address: notAProductCode"),
        ]
        let chargerCodes: [(String, String, String)] = [
            ("charger-available.png", "https://charge.example.com/cp/100001", ChargerAction.beginCharging.message),
            ("charger-charging.png", "https://charge.example.com/start?id=100003&lang=en", ChargerAction.chargerOccupied.message),
            ("charger-reserved.png", "100007", ChargerAction.chargerOccupied.message),
            ("charger-unavailable.png", "https://charge.example.com/cp/100008", ChargerAction.chargerNotAvailable.message),
            ("charger-faulted.png", "https://charge.example.com/cp/100009", ChargerAction.chargerOutOfOrder.message),
            ("charger-unknown.png", "https://charge.example.com/cp/999999", ChargerAction.noChargerFound.message),
        ]
        for (file, payload, action) in chargerCodes {
            list.append(Code(file: file, kind: "charger", payload: payload, expected: action, note: "charger code"))
        }
        return list
    }

    /// Writes every demo code as a PNG (QR Code, level M, `moduleSize` pixels per module, 4-module quiet
    /// zone; a GS1 Data Matrix for `datamatrix` codes) into `directory`, with `codes.json` listing
    /// payloads and expected answers.
    @discardableResult
    public static func write(to directory: String, moduleSize: Int = 6) throws -> [Code] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let list = try codes()
        for code in list {
            let image: GrayImage
            if code.symbology == "datamatrix" {
                image = try DataMatrixEncoder.encode(Array(code.payload.utf8), gs1: true).image(moduleSize: moduleSize, quietZone: 4)
            } else {
                image = try QREncoder.encode(code.payload, errorCorrection: .medium).image(moduleSize: moduleSize)
            }
            try PNGWriter.write(image, to: directory + "/" + code.file)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try encoder.encode(list).write(to: URL(fileURLWithPath: directory + "/codes.json"))
        return list
    }

    /// Writes the demo registry files (`brands.json`, `products.json`, `users.json`, `chargers.json`).
    public static func writeRegistry(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var paths: [String] = []
        for (name, file) in try registryFiles() {
            let path = directory + "/" + name
            try encoder.encode(file).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    /// A registry and `count` distinct signed payloads in the three signed syntaxes, for benchmarks.
    public static func benchmark(count: Int) throws -> (registry: RegistryFile, payloads: [String]) {
        let keys = try keys()
        let acme = keys["acme-2025"]!
        var serials: [SerialRecord] = []
        var payloads: [String] = []
        for index in 0..<count {
            let serial = "B\(100_000 + index)"
            serials.append(SerialRecord(gtin: serum, serial: serial))
            let fields = CodeIssuer.Fields(gtin: serum, serial: serial, lot: "L24", expiry: "281231")
            switch index % 3 {
            case 0: payloads.append(try CodeIssuer.digitalLink(fields, key: acme))
            case 1: payloads.append(try CodeIssuer.elementString(fields, key: acme))
            default: payloads.append(try CodeIssuer.jws(fields, key: acme))
            }
        }
        var files = try registryFiles().map(\.file)
        files.append(RegistryFile(serials: serials))
        let merged = RegistryFile(
            brands: files.flatMap { $0.brands ?? [] }, products: files.flatMap { $0.products ?? [] },
            serials: files.flatMap { $0.serials ?? [] })
        return (merged, payloads)
    }
}
