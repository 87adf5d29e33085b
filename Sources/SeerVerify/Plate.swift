import Foundation
@_exported import SeerPlateText

/// Grammar-valid confusion variants of a plate in a region: plates the reading could have been.
///
/// The default, ``ConfusionVariants``, swaps commonly confused characters; a plate grammar can do
/// better by keeping only variants that are valid plates in the region.
public protocol PlateVariantProvider: Sendable {
    /// Canonical variants of canonical `plate` (the plate itself excluded), best first, under the
    /// formats of `region` (every region when nil).
    func variants(of plate: String, region: PlateRegion?) -> [String]
}

/// Plate text as stored and compared: the one canonical form, ``PlateText/canonical(_:)``.
public func canonicalPlate(_ text: String) -> String {
    PlateText.canonical(text)
}

/// Variants by swapping characters that OCR and people confuse: the pairs of ``PlateConfusions``
/// (O/0, I/1, B/8, S/5, …), the same table the plate grammars use.
public struct ConfusionVariants: PlateVariantProvider {
    /// Each glyph's confusable partners, likeliest first.
    public var partners: [Character: [Character]]
    /// Most characters changed in one variant. Default 2.
    public var maxSubstitutions: Int
    /// Most variants returned. Default 256.
    public var limit: Int

    /// Creates the default provider.
    public init(partners: [Character: [Character]] = PlateConfusions.partners, maxSubstitutions: Int = 2, limit: Int = 256) {
        self.partners = partners
        self.maxSubstitutions = maxSubstitutions
        self.limit = limit
    }

    public func variants(of plate: String, region: PlateRegion?) -> [String] {
        let chars = Array(plate)
        let alternatives: [[Character]] = chars.map { partners[$0] ?? [] }
        var out: [String] = []
        var seen: Set<String> = [plate]
        // One change before two: the closest variants come first.
        for depth in 1...max(1, maxSubstitutions) {
            func collect(_ start: Int, _ current: [Character], _ changes: Int) {
                if out.count >= limit { return }
                if changes == depth {
                    let text = String(current)
                    if seen.insert(text).inserted { out.append(text) }
                    return
                }
                for index in start..<chars.count {
                    for alternative in alternatives[index] {
                        var next = current
                        next[index] = alternative
                        collect(index + 1, next, changes + 1)
                    }
                }
            }
            collect(0, chars, 0)
        }
        return out
    }
}

/// How a plate resolved to an owner. JSON: `{"status": …, "recipient"?, "plate"?, "candidates"?}`.
public struct PlateResolution: Sendable, Codable, Equatable {
    /// The outcome.
    public enum Status: String, Sendable, Codable {
        /// Exactly one owner: `recipient` is their opaque id.
        case resolved
        /// Several owners match through confusion variants: `candidates` are their plates.
        case ambiguous
        /// No owner.
        case notRegistered
    }

    /// The outcome.
    public var status: Status
    /// The opaque recipient id, when resolved. Never a name or an email.
    public var recipient: String?
    /// The registered plate that matched, when resolved.
    public var plate: String?
    /// Whether the match needed a confusion variant.
    public var viaVariant: Bool
    /// The candidate plates, when ambiguous.
    public var candidates: [String]

    /// Creates a resolution.
    public init(status: Status, recipient: String? = nil, plate: String? = nil, viaVariant: Bool = false, candidates: [String] = []) {
        self.status = status
        self.recipient = recipient
        self.plate = plate
        self.viaVariant = viaVariant
        self.candidates = candidates
    }
}

/// Looks registered plates up by canonical text.
public protocol PlateDirectory {
    /// Recipient ids registered under these canonical plates (only owners registered in `country`
    /// when it is given), by plate.
    func recipients(forPlates plates: [String], country: Country?) throws -> [String: [String]]
}

/// Resolves a plate reading to a recipient: exact canonical match first, then the reading's own
/// alternative candidates, then confusion variants.
public struct PlateResolver: Sendable {
    /// Where confusion variants come from.
    public var variants: any PlateVariantProvider

    /// Creates a resolver.
    public init(variants: any PlateVariantProvider = ConfusionVariants()) {
        self.variants = variants
    }

    /// Resolves `text` (as read or typed).
    ///
    /// - Parameters:
    ///   - text: the plate; checked with ``PlateText/validate(_:)``.
    ///   - country: only owners registered in this country, or any owner when nil.
    ///   - region: the plate grammar region whose formats decide variants; when nil, the country's
    ///     (``Country/plateRegion``), else every region.
    ///   - candidates: the reader's alternative readings, best first (ones that are no plate are skipped).
    /// - Throws: ``PlateTextError`` when `text` cannot be a plate.
    public func resolve(
        _ text: String, country: Country? = nil, region: PlateRegion? = nil, candidates: [String] = [],
        in directory: some PlateDirectory
    ) throws -> PlateResolution {
        let plate = try PlateText.validate(text)
        let grammarRegion = region ?? country?.plateRegion
        let exact = try directory.recipients(forPlates: [plate], country: country)[plate] ?? []
        if exact.count == 1 { return PlateResolution(status: .resolved, recipient: exact[0], plate: plate) }
        if exact.count > 1 { return PlateResolution(status: .ambiguous, candidates: [plate]) }

        var tried: [String] = []
        var seen: Set<String> = [plate]
        let typed = candidates.compactMap { try? PlateText.validate($0) }
        for candidate in typed + variants.variants(of: plate, region: grammarRegion) where seen.insert(candidate).inserted {
            tried.append(candidate)
        }
        let found = try directory.recipients(forPlates: tried, country: country)
        let matches = tried.filter { !(found[$0] ?? []).isEmpty }
        let owners = Set(matches.flatMap { found[$0] ?? [] })
        if owners.count == 1, let match = matches.first {
            return PlateResolution(status: .resolved, recipient: owners.first, plate: match, viaVariant: true)
        }
        if owners.count > 1 { return PlateResolution(status: .ambiguous, candidates: matches) }
        return PlateResolution(status: .notRegistered)
    }
}

/// Messages a sender may leave for a plate's owner.
public struct MessagePolicy: Sendable, Codable, Equatable {
    /// Preset texts by id.
    public var presets: [String: String]
    /// Longest custom text, characters. Default 140.
    public var maxLength: Int

    /// The default presets.
    public init(
        presets: [String: String] = [
            "lights": "Your lights are on.",
            "blocking": "Your car is blocking mine.",
            "window": "A window of your car is open.",
            "tow": "Your car is about to be towed.",
            "damage": "Your car may have been damaged; please check it.",
        ], maxLength: Int = 140
    ) {
        self.presets = presets
        self.maxLength = maxLength
    }

    /// The text to deliver: a preset by id, or a custom text checked for length and content.
    public func text(preset: String?, custom: String?) -> Result<String, PayloadIssue> {
        switch (preset, custom) {
        case (let id?, nil):
            guard let text = presets[id] else {
                return .failure(
                    PayloadIssue(code: "unknownPreset", message: "No preset '\(id)'; presets: \(presets.keys.sorted().joined(separator: ", "))."))
            }
            return .success(text)
        case (nil, let text?):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return .failure(PayloadIssue(code: "emptyMessage", message: "The message is empty.")) }
            if trimmed.count > maxLength {
                return .failure(
                    PayloadIssue(code: "messageTooLong", message: "A message has at most \(maxLength) characters; this has \(trimmed.count)."))
            }
            if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return .failure(PayloadIssue(code: "badCharacter", message: "The message contains control characters."))
            }
            return .success(trimmed)
        default:
            return .failure(PayloadIssue(code: "usage", message: "Give either a preset or a custom text."))
        }
    }
}

/// What a sender learns: only that the message was delivered.
public struct DeliveryReceipt: Sendable, Codable, Equatable {
    /// Always `delivered`.
    public var status: String = "delivered"

    /// A receipt.
    public init() {}
}
