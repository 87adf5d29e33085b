/// Status of a brand's signing key.
public enum KeyStatus: String, Sendable, Codable, CaseIterable {
    /// Codes signed with it are accepted.
    case active
    /// Withdrawn (for example leaked): codes signed with it are counterfeit.
    case revoked
}

/// A brand's public key.
public struct BrandKey: Sendable, Codable, Equatable {
    /// The key id codes name in `kid`.
    public var kid: String
    /// `EdDSA` (Ed25519) or `ES256` (P-256).
    public var algorithm: SignatureAlgorithm
    /// The public key, base64url: Ed25519 raw 32 bytes; P-256 raw x‖y 64 bytes or X9.63 65 bytes.
    public var publicKey: String
    /// Active or revoked.
    public var status: KeyStatus

    /// Creates a key record.
    public init(kid: String, algorithm: SignatureAlgorithm, publicKey: String, status: KeyStatus = .active) {
        self.kid = kid
        self.algorithm = algorithm
        self.publicKey = publicKey
        self.status = status
    }
}

/// A brand and its keys.
public struct Brand: Sendable, Codable, Equatable {
    /// A stable id, e.g. `acme`.
    public var id: String
    /// The display name.
    public var name: String
    /// Whether every genuine code of this brand is signed (default: true when the brand has keys).
    /// An unsigned code for such a brand's product is counterfeit.
    public var requiresSignature: Bool?
    /// Its public keys.
    public var keys: [BrandKey]

    /// Creates a brand record.
    public init(id: String, name: String, requiresSignature: Bool? = nil, keys: [BrandKey] = []) {
        self.id = id
        self.name = name
        self.requiresSignature = requiresSignature
        self.keys = keys
    }

    /// `requiresSignature`, defaulting to whether the brand has keys.
    public var signsAllCodes: Bool { requiresSignature ?? !keys.isEmpty }
}

/// A product by GTIN.
public struct Product: Sendable, Codable, Equatable {
    /// The GTIN (8, 12, 13 or 14 digits; stored as 14).
    public var gtin: String
    /// The product's name.
    public var name: String
    /// The brand's id.
    public var brand: String
    /// A category, e.g. `cosmetics`.
    public var category: String
    /// ISO 3166-1 alpha-2 countries where it is sold; empty means everywhere.
    public var markets: [String]

    /// Creates a product record.
    public init(gtin: String, name: String, brand: String, category: String, markets: [String] = []) {
        self.gtin = gtin
        self.name = name
        self.brand = brand
        self.category = category
        self.markets = markets
    }
}

/// Lifecycle of one serialised item.
public enum SerialStatus: String, Sendable, Codable, CaseIterable {
    /// In circulation.
    case active
    /// Genuine but recalled: do not use.
    case recalled
    /// Taken out of circulation (consumed, destroyed): a scan of it means its code was reused.
    case decommissioned
}

/// One serialised item.
public struct SerialRecord: Sendable, Codable, Equatable {
    /// The product's GTIN.
    public var gtin: String
    /// AI (21).
    public var serial: String
    /// Its status.
    public var status: SerialStatus

    /// Creates a serial record.
    public init(gtin: String, serial: String, status: SerialStatus = .active) {
        self.gtin = gtin
        self.serial = serial
        self.status = status
    }
}

/// A registered plate owner. Only `id` ever leaves the store.
public struct PlateOwner: Sendable, Codable, Equatable {
    /// An opaque recipient id.
    public var id: String
    /// The owner's name (never shown to senders).
    public var name: String
    /// The owner's email (never shown to senders).
    public var email: String
    /// The plate as registered.
    public var plate: String
    /// The country the plate is registered in (JSON key `region`, or `country`).
    public var country: Country

    /// Creates an owner record.
    public init(id: String, name: String, email: String, plate: String, country: Country) {
        self.id = id
        self.name = name
        self.email = email
        self.plate = plate
        self.country = country
    }

    enum CodingKeys: String, CodingKey { case id, name, email, plate, region, country }

    /// Decodes an owner; the country is under `region` (as registry files have it) or `country`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        email = try c.decode(String.self, forKey: .email)
        plate = try c.decode(String.self, forKey: .plate)
        switch (c.contains(.region), c.contains(.country)) {
        case (true, false): country = try c.decode(Country.self, forKey: .region)
        case (false, true): country = try c.decode(Country.self, forKey: .country)
        case (true, true):
            throw DecodingError.dataCorruptedError(forKey: .country, in: c, debugDescription: "give the country once, as region or country")
        case (false, false):
            throw DecodingError.keyNotFound(CodingKeys.region, .init(codingPath: c.codingPath, debugDescription: "missing field"))
        }
    }

    /// Encodes an owner as registry files have it (the country under `region`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(email, forKey: .email)
        try c.encode(plate, forKey: .plate)
        try c.encode(country, forKey: .region)
    }
}

/// OCPP 1.6 connector statuses.
public enum ChargerStatus: String, Sendable, Codable, CaseIterable {
    case available = "Available"
    case preparing = "Preparing"
    case charging = "Charging"
    case suspendedEVSE = "SuspendedEVSE"
    case suspendedEV = "SuspendedEV"
    case finishing = "Finishing"
    case reserved = "Reserved"
    case unavailable = "Unavailable"
    case faulted = "Faulted"
}

/// A charge point.
public struct Charger: Sendable, Codable, Equatable {
    /// Six digits, 100000–999999.
    public var id: String
    /// The hardware serial.
    public var serial: String
    /// Where it is, in words.
    public var location: String
    /// Its OCPP status.
    public var status: ChargerStatus

    /// Creates a charger record.
    public init(id: String, serial: String, location: String, status: ChargerStatus) {
        self.id = id
        self.serial = serial
        self.location = location
        self.status = status
    }
}

/// A registry file: any of its arrays may be missing.
public struct RegistryFile: Sendable, Codable, Equatable {
    /// Brands with keys.
    public var brands: [Brand]?
    /// Products.
    public var products: [Product]?
    /// Serials.
    public var serials: [SerialRecord]?
    /// Plate owners.
    public var users: [PlateOwner]?
    /// Chargers.
    public var chargers: [Charger]?

    /// Creates a registry file.
    public init(
        brands: [Brand]? = nil, products: [Product]? = nil, serials: [SerialRecord]? = nil, users: [PlateOwner]? = nil,
        chargers: [Charger]? = nil
    ) {
        self.brands = brands
        self.products = products
        self.serials = serials
        self.users = users
        self.chargers = chargers
    }
}

/// Read access to the registry that verification needs.
public protocol RegistryLookup {
    /// The key with this id and the brand that owns it.
    func key(id: String) throws -> (key: BrandKey, brand: String)?
    /// A brand by id.
    func brand(id: String) throws -> Brand?
    /// A product by 14-digit GTIN.
    func product(gtin: String) throws -> Product?
    /// A serial's record.
    func serial(gtin: String, serial: String) throws -> SerialRecord?
}

/// One earlier scan of the same item, as clone detection needs it.
public struct PriorScan: Sendable, Equatable {
    /// When.
    public var time: Double
    /// Which device, if known.
    public var device: String?
    /// Country (ISO alpha-2), if known.
    public var country: String?
    /// Latitude, if known.
    public var latitude: Double?
    /// Longitude, if known.
    public var longitude: Double?

    /// Creates a prior scan.
    public init(time: Double, device: String?, country: String?, latitude: Double?, longitude: Double?) {
        self.time = time
        self.device = device
        self.country = country
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Read access to the scan history that clone detection needs.
public protocol ScanHistoryLookup {
    /// Scans of this item since `time` (seconds since 1970), oldest first.
    func priorScans(gtin: String, serial: String, since time: Double) throws -> [PriorScan]
}

/// A registry held in memory, for embedding and for tests of the pure verifier.
public struct InMemoryRegistry: RegistryLookup, ScanHistoryLookup, Sendable {
    var brands: [String: Brand] = [:]
    var products: [String: Product] = [:]
    var serials: [String: SerialRecord] = [:]
    /// Prior scans recorded with `record`.
    public var scans: [String: [PriorScan]] = [:]

    /// A registry from files (GTINs normalised to 14 digits).
    public init(_ files: [RegistryFile] = []) {
        for file in files {
            for brand in file.brands ?? [] { brands[brand.id] = brand }
            for product in file.products ?? [] {
                var copy = product
                copy.gtin = (try? GS1.normalizeGTIN(product.gtin).get()) ?? product.gtin
                products[copy.gtin] = copy
            }
            for serial in file.serials ?? [] {
                var copy = serial
                copy.gtin = (try? GS1.normalizeGTIN(serial.gtin).get()) ?? serial.gtin
                serials[copy.gtin + "\u{1D}" + copy.serial] = copy
            }
        }
    }

    /// Adds a scan to the in-memory history.
    public mutating func record(gtin: String, serial: String, _ scan: PriorScan) {
        scans[gtin + "\u{1D}" + serial, default: []].append(scan)
    }

    public func key(id: String) -> (key: BrandKey, brand: String)? {
        for brand in brands.values {
            if let key = brand.keys.first(where: { $0.kid == id }) { return (key, brand.id) }
        }
        return nil
    }

    public func brand(id: String) -> Brand? { brands[id] }
    public func product(gtin: String) -> Product? { products[gtin] }
    public func serial(gtin: String, serial: String) -> SerialRecord? { serials[gtin + "\u{1D}" + serial] }

    public func priorScans(gtin: String, serial: String, since time: Double) -> [PriorScan] {
        (scans[gtin + "\u{1D}" + serial] ?? []).filter { $0.time >= time }.sorted { $0.time < $1.time }
    }
}
