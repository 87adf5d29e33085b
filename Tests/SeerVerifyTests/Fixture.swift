import SeerVerify

/// A small registry: two signing brands (Ed25519 and P-256 keys, one revoked), one brand that does not sign.
enum Fixture {
    static let serum = "09506000134352"
    static let cream = "09506000134369"
    static let pads = "09506000134376"
    static let soap = "09506000134383"

    static let acme = try! SigningKey.ed25519(kid: "acme-2025", seed: Array(repeating: 1, count: 32))
    static let acmeOld = try! SigningKey.ed25519(kid: "acme-2019", seed: Array(repeating: 2, count: 32))
    static let acmeP256 = try! SigningKey.es256(kid: "acme-p256", scalar: Array(repeating: 3, count: 32))
    static let globex = try! SigningKey.ed25519(kid: "globex-1", seed: Array(repeating: 4, count: 32))
    static let stranger = try! SigningKey.ed25519(kid: "stranger", seed: Array(repeating: 5, count: 32))

    static let file = RegistryFile(
        brands: [
            Brand(id: "acme", name: "Acme", keys: [acme.publicKey(), acmeOld.publicKey(status: .revoked), acmeP256.publicKey()]),
            Brand(id: "globex", name: "Globex", keys: [globex.publicKey()]),
            Brand(id: "plainco", name: "Plain Co"),
        ],
        products: [
            Product(gtin: serum, name: "Radiance Serum 30 ml", brand: "acme", category: "cosmetics", markets: ["DE", "FR"]),
            Product(gtin: cream, name: "Night Cream 50 ml", brand: "acme", category: "cosmetics"),
            Product(gtin: pads, name: "Brake Pads", brand: "globex", category: "autoparts"),
            Product(gtin: soap, name: "Plain Soap", brand: "plainco", category: "household"),
        ],
        serials: [
            SerialRecord(gtin: serum, serial: "S1001"),
            SerialRecord(gtin: serum, serial: "S1002", status: .recalled),
            SerialRecord(gtin: serum, serial: "S1003", status: .decommissioned),
            SerialRecord(gtin: cream, serial: "C1"),
            SerialRecord(gtin: soap, serial: "P100"),
        ])

    static var registry: InMemoryRegistry { InMemoryRegistry([file]) }

    static func verify(
        _ payload: String, registry: InMemoryRegistry = Fixture.registry, context: ScanContext = ScanContext(time: 1_800_000_000),
        duplicate: Reason? = nil, configuration: VerifyConfiguration = VerifyConfiguration()
    ) throws -> Verification {
        try Verifier(configuration: configuration).verify(
            payload, context: context, registry: registry, history: registry, duplicate: duplicate)
    }
}
