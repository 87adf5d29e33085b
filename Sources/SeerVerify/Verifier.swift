import Foundation
import SeerCrypto

/// The answer about a product code. Precedence when several apply: counterfeit > suspicious > authentic > unknown.
public enum Verdict: String, Sendable, Codable, CaseIterable, Comparable {
    /// Nothing known either way (not a product code, or an unsigned code with no registry entry).
    case unknown
    /// Signed by an active key of the product's brand, or an active registered serial; no warning signs.
    case authentic
    /// Genuine-looking but something is wrong (clone signals, outside its markets, recalled…).
    case suspicious
    /// Proven not genuine (bad or revoked signature, decommissioned serial, missing required signature…).
    case counterfeit

    var rank: Int {
        switch self {
        case .unknown: 0
        case .authentic: 1
        case .suspicious: 2
        case .counterfeit: 3
        }
    }

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
}

/// A machine-readable reason behind a verdict.
public enum Reason: String, Sendable, Codable, CaseIterable {
    /// The signature does not match the payload, the token is malformed, or the algorithm is wrong.
    case badSignature
    /// Signed with a key the brand has revoked.
    case revokedKey
    /// Signed with a key id the registry does not know.
    case unknownKey
    /// Signed with another brand's key.
    case wrongBrandKey
    /// Signed by an active key of the product's brand.
    case validSignature
    /// The code carries no signature.
    case unsigned
    /// The code is a product code but its contents are broken (check digit, AI syntax).
    case invalidPayload
    /// The GTIN is not in the registry.
    case unknownProduct
    /// The serial is not in the registry.
    case unknownSerial
    /// The serial is registered and active.
    case registeredSerial
    /// The serial is recalled.
    case recalled
    /// The serial was decommissioned; its code is being reused.
    case decommissioned
    /// History says the code has been copied (see the more specific reasons beside it).
    case cloneSuspected
    /// More scans of this serial in the window than allowed.
    case tooManyScans
    /// More devices scanned this serial in the window than allowed.
    case tooManyDevices
    /// More countries scanned this serial in the window than allowed.
    case tooManyCountries
    /// Two scans too far apart for the time between them.
    case impossibleTravel
    /// The same serial twice in one batch.
    case duplicateInBatch
    /// The same serial twice in one photo.
    case duplicateInPhoto
    /// Scanned in a country outside the product's markets.
    case outsideMarket
    /// The payload is not a product code.
    case notAProductCode
}

/// Thresholds for clone detection. Every field has a documented default; the JSON form is the same.
public struct VerifyConfiguration: Sendable, Codable, Equatable {
    /// How far back history counts, seconds. Default 30 days.
    public var windowSeconds: Double = 30 * 24 * 3600
    /// Most scans of one serial in the window (this one included) before it is suspicious. Default 20.
    public var maxScans: Int = 20
    /// Most distinct devices in the window (this one included). Default 5.
    public var maxDevices: Int = 5
    /// Most distinct countries in the window (this one included). Default 2.
    public var maxCountries: Int = 2
    /// Fastest believable travel between two scans, km/h. Default 900 (an airliner).
    public var maxSpeedKmh: Double = 900
    /// Distances below this never count as travel (GPS noise, same city), km. Default 50.
    public var minTravelKm: Double = 50

    /// The defaults.
    public init() {}
}

/// Where and how a scan happened.
public struct ScanContext: Sendable, Equatable {
    /// When, seconds since 1970.
    public var time: Double
    /// The scanning device's id.
    public var device: String?
    /// Latitude in degrees.
    public var latitude: Double?
    /// Longitude in degrees.
    public var longitude: Double?
    /// Country (ISO 3166-1 alpha-2), for market checks.
    public var country: String?

    /// Creates a context; `time` defaults to now.
    public init(
        time: Double = Date().timeIntervalSince1970, device: String? = nil, latitude: Double? = nil, longitude: Double? = nil,
        country: String? = nil
    ) {
        self.time = time
        self.device = device
        self.latitude = latitude
        self.longitude = longitude
        self.country = country
    }
}

/// The product as the registry knows it.
public struct ProductInfo: Sendable, Codable, Equatable {
    /// Its name.
    public var name: String
    /// Its brand's id.
    public var brand: String
    /// Its category.
    public var category: String

    /// Creates product details.
    public init(name: String, brand: String, category: String) {
        self.name = name
        self.brand = brand
        self.category = category
    }
}

/// The result of verifying one payload: verdict, reasons and what was read. JSON keys are the field names.
public struct Verification: Sendable, Codable, Equatable {
    /// The verdict.
    public var verdict: Verdict
    /// Why, most important first.
    public var reasons: [Reason]
    /// The payload as read.
    public var payload: String
    /// The photo (or other input) the payload came from.
    public var source: String?
    /// The symbology it was read from, e.g. `qrcode`.
    public var symbology: String?
    /// The line of the payload file it came from (1-based), when it came from one.
    public var line: Int?
    /// The saved scan's id, when it was saved (for `seer history --id` and `seer report`).
    public var scanID: Int64?
    /// The syntax, when it is a product code.
    public var format: PayloadFormat?
    /// The 14-digit GTIN.
    public var gtin: String?
    /// The serial.
    public var serial: String?
    /// The lot.
    public var lot: String?
    /// The expiry, YYMMDD.
    public var expiry: String?
    /// The key id the code names.
    public var keyID: String?
    /// The product, when registered.
    public var product: ProductInfo?
    /// Human-readable notes (why the payload is invalid, which threshold was crossed…).
    public var notes: [String]

    /// Creates a result.
    public init(
        verdict: Verdict, reasons: [Reason], payload: String, format: PayloadFormat? = nil, gtin: String? = nil,
        serial: String? = nil, lot: String? = nil, expiry: String? = nil, keyID: String? = nil,
        product: ProductInfo? = nil, notes: [String] = []
    ) {
        self.verdict = verdict
        self.reasons = reasons
        self.payload = payload
        self.format = format
        self.gtin = gtin
        self.serial = serial
        self.lot = lot
        self.expiry = expiry
        self.keyID = keyID
        self.product = product
        self.notes = notes
    }
}

/// Verifies product codes against a registry and a scan history. Pure: no pixels, no database.
public struct Verifier: Sendable {
    /// The clone thresholds.
    public var configuration: VerifyConfiguration

    /// Creates a verifier.
    public init(configuration: VerifyConfiguration = VerifyConfiguration()) {
        self.configuration = configuration
    }

    /// Checks `signed` with `key`. libcrypto's verification runs in time independent of the signature's content.
    public static func check(_ signed: SignedPart, with key: BrandKey) -> Bool {
        guard signed.algorithm == key.algorithm else { return false }
        // A signature that is not 64 bytes (r‖s for P-256) is not valid.
        switch PublicKeys.shared.key(key) {
        case .ed25519(let publicKey): return publicKey.isValidSignature(signed.signature, for: signed.message)
        case .p256(let publicKey): return publicKey.isValidSignature(signed.signature, for: signed.message)
        case nil: return false
        }
    }

    /// Verifies one payload, in named stages: parse the payload, then (for a product code) look
    /// up the product, check the signature, the serial, where it was scanned, repeats in the photo or
    /// batch, and clone signals in the history. Each stage raises the verdict and adds its reasons;
    /// the verdict only ever rises (counterfeit > suspicious > authentic > unknown).
    ///
    /// - Parameters:
    ///   - payload: the decoded text.
    ///   - context: when, where and by which device.
    ///   - registry: brands, keys, products, serials.
    ///   - history: earlier scans, for clone signals.
    ///   - duplicate: set when the same item already appeared in this photo or batch.
    public func verify(
        _ payload: String, context: ScanContext, registry: some RegistryLookup, history: some ScanHistoryLookup,
        duplicate: Reason? = nil
    ) throws -> Verification {
        var assessment = Assessment(payload: payload)
        let code: ProductCode
        switch PayloadParser.parse(payload) {
        case .notAProductCode:
            return assessment.notAProductCode()
        case .signedOther(let signed):
            return try tokenWithoutClaims(signed, registry: registry, assessment)
        case .invalid(let issue, let signed):
            return invalidProductCode(issue, signed: signed, assessment)
        case .product(let found):
            code = found
        }
        assessment.describe(code)
        let product = try registry.product(gtin: code.gtin)
        if let product {
            assessment.result.product = ProductInfo(name: product.name, brand: product.brand, category: product.category)
        }
        let brand = try product.flatMap { try registry.brand(id: $0.brand) }
        let validSignature = try checkSignature(code, product: product, brand: brand, registry: registry, &assessment)
        let registeredSerial = try checkSerial(code, product: product, validSignature: validSignature, registry: registry, &assessment)
        if validSignature || registeredSerial {
            assessment.raise(.authentic, validSignature ? .validSignature : .registeredSerial)
        }
        checkMarket(product, context: context, &assessment)
        if let duplicate { assessment.raise(.suspicious, duplicate) }
        if let serial = code.serial, product != nil {
            let prior = try history.priorScans(gtin: code.gtin, serial: serial, since: context.time - configuration.windowSeconds)
            for reason in cloneSignals(prior: prior, context: context, notes: &assessment.result.notes) {
                assessment.raise(.suspicious, .cloneSuspected)
                assessment.raise(.suspicious, reason)
            }
        }
        return assessment.finished()
    }

    /// The verification being built: the result so far and the verdict, which only rises.
    struct Assessment {
        var result: Verification
        var verdict = Verdict.unknown

        init(payload: String) { result = Verification(verdict: .unknown, reasons: [], payload: payload) }

        /// Raises the verdict to `to` (if higher) and records the reason once.
        mutating func raise(_ to: Verdict, _ reason: Reason) {
            if to > verdict { verdict = to }
            if !result.reasons.contains(reason) { result.reasons.append(reason) }
        }

        /// The fields read from the code.
        mutating func describe(_ code: ProductCode) {
            result.format = code.format
            result.gtin = code.gtin
            result.serial = code.serial
            result.lot = code.lot
            result.expiry = code.expiry
            result.keyID = code.signed?.keyID
        }

        func notAProductCode() -> Verification {
            var result = result
            result.reasons = [.notAProductCode]
            return result
        }

        /// The result with its verdict and the reasons that drove it first.
        func finished() -> Verification {
            var result = result
            result.verdict = verdict
            result.reasons = Verifier.ordered(result.reasons, verdict: verdict)
            return result
        }
    }

    /// A token without product claims: forged if a registered key's signature does not match.
    func tokenWithoutClaims(_ signed: SignedPart, registry: some RegistryLookup, _ assessment: Assessment) throws -> Verification {
        var result = assessment.result
        result.keyID = signed.keyID
        if let (key, _) = try registry.key(id: signed.keyID), !Self.check(signed, with: key) {
            result.verdict = .counterfeit
            result.reasons = [.badSignature]
        } else {
            result.reasons = [.notAProductCode]
        }
        return result
    }

    /// A product code whose contents are broken: counterfeit when it was signed, else suspicious.
    func invalidProductCode(_ issue: PayloadIssue, signed: Bool, _ assessment: Assessment) -> Verification {
        var assessment = assessment
        assessment.result.notes.append(issue.description)
        if signed {
            assessment.raise(.counterfeit, .badSignature)
            assessment.raise(.counterfeit, .invalidPayload)
        } else {
            assessment.raise(.suspicious, .invalidPayload)
        }
        var result = assessment.result
        result.verdict = assessment.verdict
        return result
    }

    /// The signature stage: whether the code is validly signed by an active key of its product's brand.
    func checkSignature(
        _ code: ProductCode, product: Product?, brand: Brand?, registry: some RegistryLookup, _ assessment: inout Assessment
    ) throws -> Bool {
        guard let signed = code.signed else {
            assessment.result.reasons.append(.unsigned)
            if let brand, brand.signsAllCodes {
                assessment.raise(.counterfeit, .unsigned)
                assessment.result.notes.append("\(brand.name) signs all its codes; this one is unsigned.")
            }
            return false
        }
        guard let (key, keyBrand) = try registry.key(id: signed.keyID) else {
            // A key nobody registered: forged if the product is known, otherwise nothing can be said.
            assessment.raise(product != nil ? .counterfeit : .unknown, .unknownKey)
            return false
        }
        if !Self.check(signed, with: key) {
            assessment.raise(.counterfeit, .badSignature)
        } else if key.status == .revoked {
            assessment.raise(.counterfeit, .revokedKey)
        } else if let product, product.brand != keyBrand {
            assessment.raise(.counterfeit, .wrongBrandKey)
            assessment.result.notes.append("Signed by \(keyBrand)'s key but the product belongs to \(product.brand).")
        } else {
            assessment.result.reasons.append(.validSignature)
            return true
        }
        return false
    }

    /// The registry stage: whether the product is known and its serial registered and active.
    func checkSerial(
        _ code: ProductCode, product: Product?, validSignature: Bool, registry: some RegistryLookup, _ assessment: inout Assessment
    ) throws -> Bool {
        guard product != nil else {
            assessment.raise(validSignature ? .suspicious : .unknown, .unknownProduct)
            return false
        }
        guard let serial = code.serial else { return false }
        guard let record = try registry.serial(gtin: code.gtin, serial: serial) else {
            // Signed by the brand yet missing from its list: the list may lag. Unsigned: forged.
            assessment.raise(validSignature ? .suspicious : .counterfeit, .unknownSerial)
            return false
        }
        switch record.status {
        case .active:
            assessment.result.reasons.append(.registeredSerial)
            return true
        case .recalled: assessment.raise(.suspicious, .recalled)
        case .decommissioned: assessment.raise(.counterfeit, .decommissioned)
        }
        return false
    }

    /// The market stage: a scan outside the countries the product is sold in is suspicious.
    func checkMarket(_ product: Product?, context: ScanContext, _ assessment: inout Assessment) {
        if let country = context.country?.uppercased(), let product, !product.markets.isEmpty,
            !product.markets.map({ $0.uppercased() }).contains(country)
        {
            assessment.raise(.suspicious, .outsideMarket)
            assessment.result.notes.append("Scanned in \(country); sold in \(product.markets.joined(separator: ", ")).")
        }
    }

    func cloneSignals(prior: [PriorScan], context: ScanContext, notes: inout [String]) -> [Reason] {
        var reasons: [Reason] = []
        let c = configuration
        if prior.count + 1 > c.maxScans {
            reasons.append(.tooManyScans)
            notes.append("\(prior.count + 1) scans in the window; at most \(c.maxScans) expected.")
        }
        let devices = Set(prior.compactMap(\.device) + [context.device].compactMap { $0 })
        if devices.count > c.maxDevices {
            reasons.append(.tooManyDevices)
            notes.append("\(devices.count) devices in the window; at most \(c.maxDevices) expected.")
        }
        let countries = Set((prior.compactMap(\.country) + [context.country].compactMap { $0 }).map { $0.uppercased() })
        if countries.count > c.maxCountries {
            reasons.append(.tooManyCountries)
            notes.append("\(countries.count) countries in the window; at most \(c.maxCountries) expected.")
        }
        if let lat = context.latitude, let lon = context.longitude {
            for scan in prior.reversed() {
                guard let plat = scan.latitude, let plon = scan.longitude else { continue }
                let km = Self.distanceKm(lat, lon, plat, plon)
                let hours = max(abs(context.time - scan.time), 1) / 3600
                if km >= c.minTravelKm, km / hours > c.maxSpeedKmh {
                    reasons.append(.impossibleTravel)
                    notes.append(
                        "\(Int(km.rounded())) km from the scan \(Int((hours * 60).rounded())) min earlier (\(Int((km / hours).rounded())) km/h).")
                    break
                }
            }
        }
        return reasons
    }

    /// Great-circle distance in km (haversine, mean Earth radius 6371 km).
    public static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad
        let dLon = (lon2 - lon1) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371 * asin(min(1, sqrt(a)))
    }

    static func ordered(_ reasons: [Reason], verdict: Verdict) -> [Reason] {
        // Reasons that drove the verdict first, the informative ones after.
        let informative: Set<Reason> = [.validSignature, .registeredSerial, .unsigned]
        let main = reasons.filter { !informative.contains($0) }
        let rest = reasons.filter { informative.contains($0) }
        var seen = Set<Reason>()
        return (main + rest).filter { seen.insert($0).inserted }
    }
}

/// Tracks the items seen within one batch or photo, to flag duplicates.
public struct DuplicateTracker: Sendable {
    private var seen = Set<String>()
    /// The reason to give a repeated item.
    public let reason: Reason

    /// A tracker for a batch (`duplicateInBatch`) or a photo (`duplicateInPhoto`).
    public init(reason: Reason = .duplicateInBatch) {
        self.reason = reason
    }

    /// Remembers an item seen earlier (for a batch continued after a stop).
    public mutating func remember(gtin: String, serial: String) {
        seen.insert(gtin + "\u{1D}" + serial)
    }

    /// `reason` when this payload's GTIN+serial was already seen, else `nil`; remembers it.
    public mutating func check(_ payload: String) -> Reason? {
        guard case .product(let code) = PayloadParser.parse(payload), let serial = code.serial else { return nil }
        return seen.insert(code.gtin + "\u{1D}" + serial).inserted ? nil : reason
    }
}
