import SeerImage
import SeerPlate
import SeerQR
import SeerVerify

/// Where photo reading plugs into verification, charger look-up and plate owners.
extension Engine {
    /// Reads the codes in a photo, for `seer verify PATH` and `seer charger PATH`: every code with a
    /// text payload (binary payloads cannot be product or charger codes), in the order found, with
    /// its symbology (`qr`, `ean13`, …). The code reader is the engine's (``Configuration/codes``).
    ///
    /// - Throws: ``ImageError`` when the photo cannot be decoded.
    public func readCodesForVerification(contentsOf path: String) throws -> [CodeReading] {
        try scanCodes(contentsOf: path).symbols.compactMap { symbol in
            symbol.text.map { CodeReading(payload: $0, symbology: symbol.symbology.rawValue) }
        }
    }

    /// Reads the codes in a photo held in memory, as ``readCodesForVerification(contentsOf:)`` does;
    /// `file` is the name reported.
    public func readCodesForVerification(_ bytes: [UInt8], file: String) throws -> [CodeReading] {
        try scanCodes(bytes, file: file).symbols.compactMap { symbol in
            symbol.text.map { CodeReading(payload: $0, symbology: symbol.symbology.rawValue) }
        }
    }

    /// Reads the codes in each photo and verifies them; each photo's codes count as one photo for
    /// `duplicateInPhoto`, and in `batch` mode repeats across all the photos are `duplicateInBatch`.
    ///
    /// - Throws: ``ImageError`` for the first photo that cannot be decoded (nothing is verified then).
    public func verify(
        photos paths: [String], context: ScanContext = ScanContext(), mode: ScanMode = .single, store: some SeerStore,
        save: Bool = true
    ) throws -> [Verification] {
        let readings = try paths.map { (file: $0, codes: try readCodesForVerification(contentsOf: $0)) }
        return try verify(readings: readings, context: context, mode: mode, store: store, save: save)
    }

    /// Resolves a plate read from a photo to an opaque recipient: its text first, then the reader's
    /// other candidates, then confusion variants (see ``resolvePlate(_:country:region:candidates:store:)``).
    public func resolvePlate(reading: PlateReading, country: Country? = nil, store: some SeerStore) throws -> PlateResolution {
        try resolvePlate(
            reading.text, country: country, region: reading.region, candidates: reading.candidates.dropFirst().map(\.text), store: store)
    }
}

/// What ``Engine/scan(contentsOf:_:store:)`` reads and answers.
public struct ScanRequest: Sendable {
    /// What to read: codes (the default), plates, or both.
    public var targets: ScanTargets
    /// The region whose plate grammars decide readings, or nil for all.
    public var region: PlateRegion?
    /// Who scanned, where and when (for market checks, clone signals and the history).
    public var context: ScanContext
    /// `single` or `batch` (repeats of one serial within the photo are flagged either way).
    public var mode: ScanMode
    /// Whether verified codes are recorded in the history.
    public var save: Bool
    /// Whether to resolve the top plate's owner (an opaque recipient id, never a name or an email).
    public var resolvePlateOwner: Bool
    /// The country registered owners are looked up in (e.g. `GB`), or nil for any.
    public var ownerCountry: Country?

    /// Creates a request; by default codes only, single mode, saved, no plate owner look-up.
    public init(
        targets: ScanTargets = .codes, region: PlateRegion? = nil, context: ScanContext = ScanContext(), mode: ScanMode = .single,
        save: Bool = true, resolvePlateOwner: Bool = false, ownerCountry: Country? = nil
    ) {
        self.targets = targets
        self.region = region
        self.context = context
        self.mode = mode
        self.save = save
        self.resolvePlateOwner = resolvePlateOwner
        self.ownerCountry = ownerCountry
    }
}

extension Engine {
    /// Reads a photo once and answers what it holds: the readings of ``scanPhoto(contentsOf:reading:region:includeImage:)``
    /// with each code's answer and, when asked, the top plate's owner.
    ///
    /// Each code with a text payload is answered on its symbol: a charger code (a payload that is no
    /// product code and holds a charger ID) gets `charger`, the action at that charger; every other
    /// code gets `verification` through ``verify(_:context:mode:store:save:)`` (one photo, so
    /// repeats are `duplicateInPhoto`) and is recorded in the history when `request.save` is set.
    ///
    /// - Throws: ``ImageError`` for a photo that cannot be decoded, ``PlateError`` when plates were
    ///   asked for and Tesseract cannot start, ``StoreError`` when the store fails.
    public func scan(contentsOf path: String, _ request: ScanRequest = ScanRequest(), store: some SeerStore) throws -> ScanReport {
        try answer(scanPhoto(contentsOf: path, reading: request.targets, region: request.region), request, store: store)
    }

    /// Reads a photo held in memory once and answers what it holds (see ``scan(contentsOf:_:store:)``);
    /// `file` is the name reported and recorded.
    public func scan(_ bytes: [UInt8], file: String, _ request: ScanRequest = ScanRequest(), store: some SeerStore) throws
        -> ScanReport
    {
        try answer(scanPhoto(bytes, file: file, reading: request.targets, region: request.region), request, store: store)
    }

    private func answer(_ photo: PhotoScan, _ request: ScanRequest, store: some SeerStore) throws -> ScanReport {
        // A read asked to stop (``Cancellation``) may have stopped short: nothing of it is verified or saved.
        try Cancellation.check()
        var report = photo.report
        var inputs: [ScanInput] = []
        var verified: [Int] = []
        for (index, symbol) in report.symbols.enumerated() {
            guard let text = symbol.text else { continue }
            if Self.isChargerCode(text) {
                report.symbols[index].charger = try resolveCharger(payload: text, store: store)
            } else {
                inputs.append(ScanInput(payload: text, sourceFile: report.file, symbology: symbol.format))
                verified.append(index)
            }
        }
        if !inputs.isEmpty {
            let results = try verify(inputs, context: request.context, mode: request.mode, store: store, save: request.save)
            for (index, result) in zip(verified, results) { report.symbols[index].verification = result }
        }
        if request.resolvePlateOwner, let top = photo.plates.first {
            report.resolvedOwner = try resolvePlate(reading: top, country: request.ownerCountry, store: store)
        }
        return report
    }

    /// Whether a payload is a charger code: not a product code (signed, broken or not), and holding a
    /// charger ID. A product Digital Link can hold six digits (an expiry date) and stays a product code.
    static func isChargerCode(_ payload: String) -> Bool {
        guard ChargerID.mayHoldID(payload), case .notAProductCode = PayloadParser.parse(payload) else { return false }
        if case .success = ChargerID.parsePayload(payload) { return true }
        return false
    }
}

extension Engine {
    /// The action at the charger whose code is in the photo at `path`: the first charger code read
    /// (a payload that is no product code and holds a charger ID).
    ///
    /// - Throws: ``ImageError`` when the photo cannot be decoded; ``PayloadIssue`` `notAChargerCode`
    ///   when no charger code was read in it.
    public func resolveCharger(photo path: String, store: some SeerStore) throws -> ChargerResolution {
        try resolveCharger(codes: try readCodesForVerification(contentsOf: path), file: path, store: store)
    }

    /// The action at the charger whose code is in a photo held in memory (see ``resolveCharger(photo:store:)``).
    public func resolveCharger(photo bytes: [UInt8], file: String, store: some SeerStore) throws -> ChargerResolution {
        try resolveCharger(codes: try readCodesForVerification(bytes, file: file), file: file, store: store)
    }

    private func resolveCharger(codes: [CodeReading], file path: String, store: some SeerStore) throws -> ChargerResolution {
        guard let code = codes.first(where: { Self.isChargerCode($0.payload) }) else {
            let found = codes.isEmpty ? "no code was read" : "\(codes.count) code\(codes.count == 1 ? "" : "s") read, none a charger code"
            throw PayloadIssue(code: "notAChargerCode", message: "No charger code found in \(path) (\(found)).")
        }
        return try resolveCharger(payload: code.payload, store: store)
    }
}
