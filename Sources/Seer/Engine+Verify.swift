@_exported import SeerCodegen
@_exported import SeerStore
@_exported import SeerVerify

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

    /// Verifies payloads (already read or typed) and, when `save` is set, records each scan.
    ///
    /// In `batch` mode repeats of one item within the call are flagged `duplicateInBatch`;
    /// payloads sharing a `sourceFile` are one photo, and repeats there are `duplicateInPhoto`.
    public func verify(
        _ inputs: [ScanInput], context: ScanContext = ScanContext(), mode: ScanMode = .single, store: some SeerStore,
        save: Bool = true
    ) throws -> [Verification] {
        try store.verify(inputs, context: context, mode: mode, verifier: Verifier(configuration: configuration.verify), save: save)
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
    ///   - text: the plate as read or typed.
    ///   - region: the region to match in, or `nil` for any.
    ///   - candidates: the reader's alternative readings, best first.
    public func resolvePlate(_ text: String, region: String? = nil, candidates: [String] = [], store: some SeerStore) throws
        -> PlateResolution
    {
        try store.resolvePlate(text, region: region, candidates: candidates, resolver: PlateResolver(variants: configuration.plateVariants))
    }

    /// Leaves a message for the owner of a plate. The sender learns only that it was delivered.
    ///
    /// Throws ``PayloadIssue`` for a bad message (unknown preset, too long, empty) or a plate that does
    /// not resolve to exactly one recipient (`notRegistered`, `ambiguous`).
    public func sendPlateMessage(
        to plate: String, region: String? = nil, preset: String? = nil, text: String? = nil, at time: Double,
        store: some SeerStore
    ) throws -> DeliveryReceipt {
        let body = try configuration.messages.text(preset: preset, custom: text).get()
        let resolution = try resolvePlate(plate, region: region, store: store)
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
