import Foundation

/// Grammar-valid confusion variants of a plate in a region: plates the reading could have been.
///
/// The default, ``ConfusionVariants``, swaps commonly confused characters; a plate grammar can do
/// better by keeping only variants that are valid plates in the region.
public protocol PlateVariantProvider: Sendable {
    /// Canonical variants of canonical `plate` (the plate itself excluded), best first.
    func variants(of plate: String, region: String?) -> [String]
}

/// Plate text as stored and compared: uppercase A–Z and 0–9 only.
public func canonicalPlate(_ text: String) -> String {
    String(text.uppercased().unicodeScalars.filter { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }.map(Character.init))
}

/// Variants by swapping characters that OCR and people confuse (0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B, 6/G, 4/A, 7/T).
public struct ConfusionVariants: PlateVariantProvider {
    /// Groups of mutually confusable characters.
    public var groups: [String]
    /// Most characters changed in one variant. Default 2.
    public var maxSubstitutions: Int
    /// Most variants returned. Default 256.
    public var limit: Int

    /// Creates the default provider.
    public init(
        groups: [String] = ["0ODQ", "1IL", "2Z", "5S", "8B", "6G", "4A", "7T"], maxSubstitutions: Int = 2, limit: Int = 256
    ) {
        self.groups = groups
        self.maxSubstitutions = maxSubstitutions
        self.limit = limit
    }

    public func variants(of plate: String, region: String?) -> [String] {
        let chars = Array(plate)
        let alternatives: [[Character]] = chars.map { char in
            groups.first { $0.contains(char) }.map { Array($0).filter { $0 != char } } ?? []
        }
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
    /// Recipient ids registered under these canonical plates (optionally in `region`), by plate.
    func recipients(forPlates plates: [String], region: String?) throws -> [String: [String]]
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

    /// Resolves `text` (as read or typed); `candidates` are the reader's alternative readings, best first.
    public func resolve(
        _ text: String, region: String? = nil, candidates: [String] = [], in directory: some PlateDirectory
    ) throws -> PlateResolution {
        let plate = canonicalPlate(text)
        guard !plate.isEmpty else { return PlateResolution(status: .notRegistered) }
        let exact = try directory.recipients(forPlates: [plate], region: region)[plate] ?? []
        if exact.count == 1 { return PlateResolution(status: .resolved, recipient: exact[0], plate: plate) }
        if exact.count > 1 { return PlateResolution(status: .ambiguous, candidates: [plate]) }

        var tried: [String] = []
        var seen: Set<String> = [plate]
        for candidate in candidates.map(canonicalPlate) + variants.variants(of: plate, region: region)
        where !candidate.isEmpty && seen.insert(candidate).inserted {
            tried.append(candidate)
        }
        let found = try directory.recipients(forPlates: tried, region: region)
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
