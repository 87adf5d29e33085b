import SeerStore
import SeerVerify

/// A code read from a photo, as verification takes it.
public struct CodeReading: Sendable, Equatable {
    /// The decoded text.
    public var payload: String
    /// The symbology, e.g. `qr`, `ean13` (as `seer scan` names them), or `text` for typed payloads.
    public var symbology: String

    /// Creates a reading.
    public init(payload: String, symbology: String) {
        self.payload = payload
        self.symbology = symbology
    }
}

/// Verification, plate owners and chargers: readings (or typed text) in, answers out.
extension Engine {
    /// Opens the store at `path`, or at ``defaultStorePath(environment:)`` when `nil`.
    public func openStore(path: String? = nil) throws -> SQLiteStore {
        try SQLiteStore(path: path ?? defaultStorePath())
    }

    /// The engine's store (``Configuration/store``), opened on first use and kept.
    /// - Throws: ``StoreError`` when it cannot be opened (`unsupportedStore` for a PostgreSQL URL
    ///   given as a file's path: PostgreSQL is opened by module `SeerPostgres`).
    public func store() throws -> any SeerStore {
        try opened.withLock { store in
            if let store { return store }
            let made: any SeerStore
            switch configuration.store {
            case .sqlite(let path?) where isPostgresURL(path):
                throw StoreError(
                    code: "unsupportedStore",
                    message: "The database is a PostgreSQL URL, and this program was built without PostgreSQL: "
                        + "link module SeerPostgres and open it with StoreLocation.named(_:schemes: [.postgres]) or .opened(.postgres(url:)).")
            case .sqlite(let path):
                let store = try openStore(path: path)
                logger.debug("store opened", metadata: ["path": "\(store.path)", "readOnly": "\(store.isReadOnly)"])
                if store.isReadOnly { logger.warning("the database is read-only: scans are not saved", metadata: ["path": "\(store.path)"]) }
                made = store
            case .opened(let opener): made = try opener(logger: logger)
            case .provided(let given): made = given
            }
            store = made
            return made
        }
    }

    /// Checks a payload before it is verified or saved: it must hold something other than spaces,
    /// no control characters (tab, line breaks and the GS1 group separator, U+001D, are allowed),
    /// and at most ``Limits/payloadBytes`` bytes.
    /// - Throws: ``PayloadIssue`` `emptyPayload`, `controlCharacter` or `payloadTooLong`.
    public func checkPayload(_ payload: String) throws(PayloadIssue) {
        if payload.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw PayloadIssue(code: "emptyPayload", message: "The payload is empty.")
        }
        if payload.utf8.count > configuration.limits.payloadBytes {
            throw PayloadIssue(
                code: "payloadTooLong",
                message: "A payload has at most \(configuration.limits.payloadBytes) bytes; this has \(payload.utf8.count).")
        }
        let allowed: Set<UInt32> = [0x09, 0x0A, 0x0D, 0x1D]
        if let bad = payload.unicodeScalars.first(where: { $0.properties.generalCategory == .control && !allowed.contains($0.value) }) {
            throw PayloadIssue(
                code: "controlCharacter",
                message: "The payload contains the control character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(4)); it is not a code's text.")
        }
    }

    /// Verifies payloads (already read or typed) and, when `save` is set, records each scan.
    ///
    /// In `batch` mode repeats of one item within the call are flagged `duplicateInBatch`;
    /// payloads sharing a `sourceFile` are one photo, and repeats there are `duplicateInPhoto`.
    ///
    /// - Throws: ``PayloadIssue`` when a payload is refused by ``checkPayload(_:)`` (nothing is
    ///   verified or saved then), ``StoreError`` when the store fails.
    public func verify(
        _ inputs: [ScanInput], context: ScanContext = ScanContext(), mode: ScanMode = .single, store: some SeerStore,
        save: Bool = true
    ) throws -> [Verification] {
        for input in inputs { try checkPayload(input.payload) }
        return try store.verify(inputs, context: context, mode: mode, verifier: Verifier(configuration: configuration.verify), save: save)
    }

    /// Verifies one typed or pasted payload.
    public func verify(payload: String, context: ScanContext = ScanContext(), store: some SeerStore, save: Bool = true) throws
        -> Verification
    {
        try verify([ScanInput(payload: payload, symbology: "text")], context: context, store: store, save: save)[0]
    }

    /// Verifies the codes read from photos: `readings` maps each photo to what was read in it.
    ///
    /// This is where photo scanning plugs in: pass the readings a code reader produced.
    public func verify(
        readings: [(file: String, codes: [CodeReading])], context: ScanContext = ScanContext(), mode: ScanMode = .single,
        store: some SeerStore, save: Bool = true
    ) throws -> [Verification] {
        let inputs = readings.flatMap { photo in
            photo.codes.map { ScanInput(payload: $0.payload, sourceFile: photo.file, symbology: $0.symbology) }
        }
        return try verify(inputs, context: context, mode: mode, store: store, save: save)
    }

    /// Resolves a plate (read or typed) to an opaque recipient.
    ///
    /// - Parameters:
    ///   - text: the plate as read or typed; checked with ``PlateText/validate(_:)``.
    ///   - country: only owners registered in this country; any owner when nil.
    ///   - region: the grammar region whose formats decide confusion variants; when nil the
    ///     country's (``Country/plateRegion``), else every region.
    ///   - candidates: the reader's alternative readings, best first.
    /// - Throws: ``PlateTextError`` when the text cannot be a plate; ``StoreError``.
    public func resolvePlate(
        _ text: String, country: Country? = nil, region: PlateRegion? = nil, candidates: [String] = [], store: some SeerStore
    ) throws -> PlateResolution {
        try store.resolvePlate(
            text, country: country, region: region, candidates: candidates, resolver: PlateResolver(variants: configuration.plateVariants))
    }

    /// Leaves a message for the owner of a plate. The sender learns only that it was delivered.
    ///
    /// Throws ``PlateTextError`` for a plate that cannot be one, ``PayloadIssue`` for a bad message
    /// (unknown preset, too long, empty) or a plate that does not resolve to exactly one recipient
    /// (`notRegistered`, `ambiguous`).
    public func sendPlateMessage(
        to plate: String, country: Country? = nil, region: PlateRegion? = nil, preset: String? = nil, text: String? = nil,
        at time: Double, store: some SeerStore
    ) throws -> DeliveryReceipt {
        _ = try PlateText.validate(plate)
        let body = try configuration.messages.text(preset: preset, custom: text).get()
        let resolution = try resolvePlate(plate, country: country, region: region, store: store)
        guard resolution.status == .resolved, let recipient = resolution.recipient else {
            throw PayloadIssue(
                code: resolution.status.rawValue,
                message: resolution.status == .ambiguous
                    ? "Several registered plates match; choose one of: \(resolution.candidates.joined(separator: ", "))."
                    : "No owner is registered for this plate.")
        }
        return try store.deliver(text: body, preset: preset, to: recipient, at: time)
    }

    /// The action for a charger QR payload (an id alone or inside a URL). Throws ``PayloadIssue`` when
    /// the payload holds no valid id.
    public func resolveCharger(payload: String, store: some SeerStore) throws -> ChargerResolution {
        let id = try ChargerID.parsePayload(payload).get()
        return ChargerResolution(chargerID: id, charger: try store.charger(id: id))
    }

    /// The action for a typed charger id. Throws ``PayloadIssue`` with a clear message when the id is
    /// not exactly six digits in 100000–999999.
    public func resolveCharger(typed: String, store: some SeerStore) throws -> ChargerResolution {
        let id = try ChargerID.parseTyped(typed).get()
        return ChargerResolution(chargerID: id, charger: try store.charger(id: id))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
