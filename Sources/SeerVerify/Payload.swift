import Foundation

/// Why a payload that looks like a product code cannot be read as one.
public struct PayloadIssue: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// A stable code, e.g. `badCheckDigit`, `unknownAI`, `malformedSignature`.
    public var code: String
    /// What is wrong, in words.
    public var message: String

    /// Creates an issue.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// The syntax a product code was written in.
public enum PayloadFormat: String, Sendable, Codable, CaseIterable {
    /// A GS1 Digital Link URI (`https://…/01/{GTIN}/21/{serial}?17=…`).
    case digitalLink
    /// A GS1 element string (AIs with FNC1 as the group separator).
    case elementString
    /// A bare GTIN-8/12/13/14, as EAN/UPC barcodes hold.
    case gtin
    /// A compact JWS whose claims carry `gtin`, `serial`, `lot`, `expiry`.
    case jws
}

/// Signature algorithms Seer checks.
public enum SignatureAlgorithm: String, Sendable, Codable, CaseIterable {
    /// Ed25519 (JWS `alg` `EdDSA`; AI 8030).
    case ed25519 = "EdDSA"
    /// ECDSA P-256 with SHA-256, raw r‖s signature (JWS `alg` `ES256`).
    case es256 = "ES256"
}

/// The signed part of a product code: which key, the bytes signed and the signature.
public struct SignedPart: Sendable, Equatable {
    /// The algorithm the code claims (for AI 8030 always Ed25519).
    public var algorithm: SignatureAlgorithm
    /// The key id (`kid`).
    public var keyID: String
    /// The exact bytes the signature covers.
    public var message: [UInt8]
    /// The signature bytes.
    public var signature: [UInt8]
}

/// A product code read from a payload.
public struct ProductCode: Sendable, Equatable {
    /// The syntax it was written in.
    public var format: PayloadFormat
    /// The GTIN as 14 digits.
    public var gtin: String
    /// AI (21).
    public var serial: String?
    /// AI (10).
    public var lot: String?
    /// AI (17), YYMMDD.
    public var expiry: String?
    /// Every AI value read, by AI (signature excluded).
    public var attributes: [String: String]
    /// The signature, when the code carries one.
    public var signed: SignedPart?
}

/// What a payload turned out to be.
public enum ParsedPayload: Sendable, Equatable {
    /// A product code (signed or not).
    case product(ProductCode)
    /// Recognisably a product code but broken; `signed` when it carried signature fields.
    case invalid(PayloadIssue, signed: Bool)
    /// A well-formed signed token without product claims: its signature can still be checked.
    case signedOther(SignedPart)
    /// Something else (a web address, text, a charger code…).
    case notAProductCode
}

/// Reads product codes from decoded payload text.
///
/// Signed codes: in a Digital Link the signature is the last query parameter `8030` and the key id
/// the `kid` parameter; the signature covers the URI's bytes before `&8030=` / `?8030=`. In an element
/// string the key id is AI (91) and the signature AI (8030), which must come last; it covers the element
/// string (without symbology identifier) before the group separator preceding `8030`. A compact JWS
/// signs `header.claims` as RFC 7515 says.
public enum PayloadParser {
    /// Parses one payload.
    public static func parse(_ payload: String) -> ParsedPayload {
        let trimmed = trimmingLineBreaks(payload)
        let bytes = trimmed.utf8
        if hasASCIIPrefixIgnoringCase(bytes, "http://") || hasASCIIPrefixIgnoringCase(bytes, "https://") {
            return parseDigitalLink(trimmed)
        }
        // The byte tests below are necessary conditions of the character tests they guard, so a
        // payload that fails one (most payloads that are no product code) skips the slower test.
        if bytes.count >= 40, contains(bytes, "eyJ"), looksLikeJWS(trimmed) { return parseJWS(trimmed) }
        if (8...14).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), ![9, 10, 11].contains(bytes.count) {
            switch GS1.normalizeGTIN(trimmed) {
            case .success(let gtin):
                return .product(ProductCode(format: .gtin, gtin: gtin, attributes: ["01": gtin]))
            case .failure(let issue):
                return trimmed.count == 14 ? .invalid(issue, signed: false) : .notAProductCode
            }
        }
        if mayBeElementString(bytes), looksLikeElementString(trimmed) { return parseElementString(trimmed) }
        if contains(bytes, "/01/") || contains(bytes, "8030=") || contains(bytes, "kid="), looksLikeBrokenDigitalLink(trimmed) {
            return .invalid(PayloadIssue(code: "malformedURI", message: "A signed Digital Link with a broken address."), signed: true)
        }
        return .notAProductCode
    }

    /// The payload without line breaks (CR and LF) at either end.
    static func trimmingLineBreaks(_ text: String) -> String {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x0D || bytes[start] == 0x0A { start = bytes.index(after: start) }
        while end > start, bytes[bytes.index(before: end)] == 0x0D || bytes[bytes.index(before: end)] == 0x0A {
            end = bytes.index(before: end)
        }
        if start == bytes.startIndex && end == bytes.endIndex { return text }
        return String(text[start..<end])
    }

    /// Whether the bytes start with `prefix` (ASCII, lower case) in either case. No other character
    /// lower-cases to an ASCII letter of a scheme, so this is `lowercased().hasPrefix(prefix)`.
    static func hasASCIIPrefixIgnoringCase(_ bytes: String.UTF8View, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        var index = bytes.startIndex
        for offset in 0..<prefix.utf8CodeUnitCount {
            var byte = bytes[index]
            if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
            if byte != prefix.utf8Start[offset] { return false }
            index = bytes.index(after: index)
        }
        return true
    }

    /// Whether `needle` (ASCII) occurs in the bytes.
    static func contains(_ bytes: String.UTF8View, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        let first = needle.utf8Start[0]
        var index = bytes.startIndex
        var remaining = bytes.count
        while remaining >= count {
            if bytes[index] == first {
                var match = true
                var probe = bytes.index(after: index)
                for offset in 1..<count {
                    if bytes[probe] != needle.utf8Start[offset] {
                        match = false
                        break
                    }
                    probe = bytes.index(after: probe)
                }
                if match { return true }
            }
            index = bytes.index(after: index)
            remaining -= 1
        }
        return false
    }

    /// A necessary condition of ``looksLikeElementString(_:)``: a symbology identifier (`]`), a group
    /// separator, or a leading `01`.
    static func mayBeElementString(_ bytes: String.UTF8View) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "]") || bytes.contains(0x1D) { return true }
        return first == UInt8(ascii: "0") && bytes.dropFirst().first == UInt8(ascii: "1")
    }

    // MARK: Digital Link

    static func looksLikeBrokenDigitalLink(_ text: String) -> Bool {
        // Two of three signed Digital Link fingerprints, so one damaged character cannot hide it.
        [text.contains("/01/"), text.contains("8030="), text.contains("kid=")].filter { $0 }.count >= 2
    }

    static func parseDigitalLink(_ uri: String) -> ParsedPayload {
        let signedLooking = uri.contains("8030=") || uri.contains("kid=")
        func fail(_ code: String, _ message: String) -> ParsedPayload {
            .invalid(PayloadIssue(code: code, message: message), signed: signedLooking)
        }
        guard let schemeEnd = uri.range(of: "://") else { return .notAProductCode }
        let afterScheme = uri[schemeEnd.upperBound...]
        let fragmentless = afterScheme.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = fragmentless.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let pathPart = parts[0]
        let query = parts.count > 1 ? parts[1] : nil
        var segments = pathPart.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
        while segments.last == "" { segments.removeLast() }
        guard let start = segments.firstIndex(of: "01") else {
            return signedLooking ? fail("noGTIN", "No /01/{GTIN} in the Digital Link path.") : .notAProductCode
        }
        let keyPath = Array(segments[start...])
        if keyPath.count % 2 != 0 { return fail("badPath", "The Digital Link path has an AI without a value.") }
        var attributes: [String: String] = [:]
        var order: [String] = []
        let qualifierOrder = ["22", "10", "21"]
        var lastQualifier = -1
        for index in stride(from: 0, to: keyPath.count, by: 2) {
            let ai = String(keyPath[index])
            guard let value = GS1.percentDecode(keyPath[index + 1]) else {
                return fail("badEscape", "Broken percent escape in the value of AI (\(ai)).")
            }
            if index == 0 {
                switch GS1.normalizeGTIN(value) {
                case .success(let gtin): attributes["01"] = gtin
                case .failure(let issue): return .invalid(issue, signed: signedLooking)
                }
                order.append("01")
                continue
            }
            guard let position = qualifierOrder.firstIndex(of: ai) else {
                return fail("badPath", "AI (\(ai)) cannot follow (01) in a Digital Link path; allowed: 22, 10, 21 in that order.")
            }
            guard position > lastQualifier else {
                return fail("badPath", "AI (\(ai)) is out of order in the Digital Link path; the order is 22, 10, 21.")
            }
            lastQualifier = position
            if let definition = GS1.table[ai], let issue = GS1.validate(ai: definition, value: value) {
                return .invalid(issue, signed: signedLooking)
            }
            attributes[ai] = value
            order.append(ai)
        }
        var keyID: String?
        var signatureText: String?
        var signedMessageEnd: String.Index?
        if let query {
            let params = query.split(separator: "&", omittingEmptySubsequences: false)
            for (number, param) in params.enumerated() {
                let pieces = param.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = String(pieces[0])
                guard pieces.count == 2, let value = GS1.percentDecode(pieces[1]) else {
                    if key.isEmpty && params.count == 1 { continue }
                    return fail("badQuery", "Query parameter '\(key)' has no value or a broken escape.")
                }
                if key == "8030" {
                    guard number == params.count - 1 else {
                        return fail("malformedSignature", "The signature (8030) must be the last query parameter.")
                    }
                    signatureText = value
                    // The separator before the signature is excluded from the signed bytes.
                    signedMessageEnd = uri.index(before: param.startIndex)
                } else if key == "kid" {
                    if keyID != nil { return fail("malformedSignature", "Two key ids.") }
                    keyID = value
                } else if key.allSatisfy(\.isASCIIDigit), !key.isEmpty {
                    guard let definition = GS1.table[key] else { return fail("unknownAI", "Unknown AI (\(key)) in the query.") }
                    if attributes[key] != nil { return fail("duplicateAI", "AI (\(key)) appears twice.") }
                    if let issue = GS1.validate(ai: definition, value: value) { return .invalid(issue, signed: signedLooking) }
                    attributes[key] = value
                }
            }
        }
        var signed: SignedPart?
        switch (keyID, signatureText, signedMessageEnd) {
        case (nil, nil, _): signed = nil
        case (let kid?, let text?, let end?):
            guard !kid.isEmpty, let bytes = Base64URL.decode(text), bytes.count == 64 else {
                return fail("malformedSignature", "The signature (8030) is not 64 bytes of base64url.")
            }
            signed = SignedPart(algorithm: .ed25519, keyID: kid, message: Array(uri[..<end].utf8), signature: bytes)
        default:
            return fail("malformedSignature", "A signed Digital Link needs both kid and 8030.")
        }
        return .product(makeCode(.digitalLink, attributes, signed))
    }

    // MARK: Element string

    static func looksLikeElementString(_ text: String) -> Bool {
        let stripped = GS1.stripSymbologyIdentifier(text)
        if stripped.count != text.count { return true }
        if text.contains(GS1.groupSeparator) {
            let body = stripped.drop { $0 == GS1.groupSeparator }
            // Digits first, or the fingerprints of a signed element string (so a damaged AI still shows).
            return (body.prefix(2).count == 2 && body.prefix(2).allSatisfy(\.isASCIIDigit))
                || text.contains("\u{1D}8030") || text.contains("\u{1D}91")
        }
        if text.hasPrefix("01"), text.count >= 16, text.prefix(16).allSatisfy(\.isASCIIDigit) { return true }
        return false
    }

    static func parseElementString(_ text: String) -> ParsedPayload {
        let body = GS1.stripSymbologyIdentifier(text)
        let signedLooking = body.contains("\u{1D}8030") || body.contains("\u{1D}91")
        let pairs: [(ai: String, value: String)]
        switch GS1.parseElementString(String(body)) {
        case .success(let found): pairs = found
        case .failure(let issue): return .invalid(issue, signed: signedLooking)
        }
        var attributes: [String: String] = [:]
        for pair in pairs {
            if attributes[pair.ai] != nil {
                return .invalid(PayloadIssue(code: "duplicateAI", message: "AI (\(pair.ai)) appears twice."), signed: signedLooking)
            }
            attributes[pair.ai] = pair.value
        }
        guard attributes["01"] != nil else {
            return signedLooking
                ? .invalid(PayloadIssue(code: "noGTIN", message: "No GTIN (01) in the element string."), signed: true)
                : .notAProductCode
        }
        var signed: SignedPart?
        let signature = attributes.removeValue(forKey: "8030")
        let keyID = attributes.removeValue(forKey: "91")
        switch (keyID, signature) {
        case (nil, nil): break
        case (let kid?, let signature?):
            guard pairs.last?.ai == "8030", let marker = body.range(of: "\u{1D}8030", options: .backwards) else {
                return .invalid(PayloadIssue(code: "malformedSignature", message: "The signature (8030) must come last."), signed: true)
            }
            guard let bytes = Base64URL.decode(signature), bytes.count == 64 else {
                return .invalid(
                    PayloadIssue(code: "malformedSignature", message: "The signature (8030) is not 64 bytes of base64url."), signed: true)
            }
            signed = SignedPart(algorithm: .ed25519, keyID: kid, message: Array(body[..<marker.lowerBound].utf8), signature: bytes)
        default:
            return .invalid(PayloadIssue(code: "malformedSignature", message: "A signed element string needs both (91) key id and (8030)."), signed: true)
        }
        return .product(makeCode(.elementString, attributes, signed))
    }

    // MARK: JWS

    static let base64URLCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    static func looksLikeJWS(_ text: String) -> Bool {
        guard text.count >= 40, !text.contains(" ") else { return false }
        let outside = text.filter { !base64URLCharacters.contains($0) && $0 != "." }.count
        let dots = text.filter { $0 == "." }.count
        // Header and claims both start with `eyJ` (base64url of `{"`); with the shape, five
        // fingerprints of which one damaged character removes at most two.
        let header = text.hasPrefix("eyJ")
        let claims = text.dropFirst(3).contains("eyJ")
        let fingerprints = [header, claims, dots == 2, outside == 0, dots + outside == 2]
        return (header || claims) && fingerprints.filter { $0 }.count >= 3 && outside <= 1
    }

    private struct JWSHeader: Decodable {
        var alg: String
        var kid: String?
    }

    private struct JWSClaims: Decodable {
        var gtin: String?
        var serial: String?
        var lot: String?
        var expiry: String?
    }

    static func parseJWS(_ token: String) -> ParsedPayload {
        func fail(_ message: String) -> ParsedPayload {
            .invalid(PayloadIssue(code: "malformedToken", message: message), signed: true)
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return fail("A compact JWS has three dot-separated parts.") }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return fail("A JWS part is not canonical base64url.") }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(JWSHeader.self, from: Data(headerBytes)) else {
            return fail("The JWS header is not JSON with alg.")
        }
        guard let claims = try? decoder.decode(JWSClaims.self, from: Data(claimBytes)) else {
            return fail("The JWS claims are not JSON.")
        }
        guard let algorithm = SignatureAlgorithm(rawValue: header.alg) else {
            return fail("Unsupported JWS algorithm '\(header.alg)'; EdDSA and ES256 are accepted.")
        }
        guard let kid = header.kid, !kid.isEmpty else { return fail("The JWS header has no kid.") }
        guard signature.count == 64 else { return fail("The JWS signature is not 64 bytes.") }
        let message = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let signed = SignedPart(algorithm: algorithm, keyID: kid, message: message, signature: signature)
        guard let gtinText = claims.gtin else { return .signedOther(signed) }
        var attributes: [String: String] = [:]
        switch GS1.normalizeGTIN(gtinText) {
        case .success(let gtin): attributes["01"] = gtin
        case .failure(let issue): return .invalid(issue, signed: true)
        }
        for (ai, value) in [("21", claims.serial), ("10", claims.lot), ("17", claims.expiry)] {
            guard let value else { continue }
            if let definition = GS1.table[ai], let issue = GS1.validate(ai: definition, value: value) {
                return .invalid(issue, signed: true)
            }
            attributes[ai] = value
        }
        return .product(makeCode(.jws, attributes, signed))
    }

    private static func makeCode(_ format: PayloadFormat, _ attributes: [String: String], _ signed: SignedPart?) -> ProductCode {
        ProductCode(
            format: format, gtin: attributes["01"] ?? "", serial: attributes["21"], lot: attributes["10"],
            expiry: attributes["17"], attributes: attributes, signed: signed)
    }
}
