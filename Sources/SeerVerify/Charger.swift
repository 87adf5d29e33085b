import Foundation

/// What the EV-charging app should offer for a charger.
public enum ChargerAction: String, Sendable, Codable, CaseIterable {
    /// Available.
    case beginCharging
    /// Preparing, Charging, SuspendedEVSE, SuspendedEV, Finishing or Reserved.
    case chargerOccupied
    /// Faulted.
    case chargerOutOfOrder
    /// Unavailable.
    case chargerNotAvailable
    /// The id is not registered.
    case noChargerFound

    /// The text shown to the driver.
    public var message: String {
        switch self {
        case .beginCharging: "Begin charging"
        case .chargerOccupied: "Charger occupied"
        case .chargerOutOfOrder: "Charger out of order"
        case .chargerNotAvailable: "Charger not available"
        case .noChargerFound: "No charger found"
        }
    }

    /// The action for an OCPP 1.6 status.
    public init(status: ChargerStatus) {
        switch status {
        case .available: self = .beginCharging
        case .preparing, .charging, .suspendedEVSE, .suspendedEV, .finishing, .reserved: self = .chargerOccupied
        case .faulted: self = .chargerOutOfOrder
        case .unavailable: self = .chargerNotAvailable
        }
    }
}

/// The answer for a scanned or typed charger. JSON keys are the field names.
public struct ChargerResolution: Sendable, Codable, Equatable {
    /// The six-digit id.
    public var chargerID: String
    /// What to offer.
    public var action: ChargerAction
    /// The action's text.
    public var message: String
    /// The OCPP status, when the charger is registered.
    public var status: ChargerStatus?
    /// Where it is, when registered.
    public var location: String?
    /// Its hardware serial, when registered.
    public var serial: String?

    /// The resolution for `id` given its record (or `nil` when unknown).
    public init(chargerID: String, charger: Charger?) {
        self.chargerID = chargerID
        self.action = charger.map { ChargerAction(status: $0.status) } ?? .noChargerFound
        self.message = action.message
        self.status = charger?.status
        self.location = charger?.location
        self.serial = charger?.serial
    }
}

/// Reads charger ids from QR payloads and typed text.
public enum ChargerID {
    /// Checks a typed id: digits only, exactly six, 100000–999999.
    public static func parseTyped(_ text: String) -> Result<String, PayloadIssue> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return .failure(PayloadIssue(code: "emptyChargerID", message: "Enter the 6-digit charger ID.")) }
        if let bad = trimmed.first(where: { !$0.isASCIIDigit }) {
            return .failure(
                PayloadIssue(
                    code: "notDigits",
                    message: "A charger ID has digits only; '\(trimmed)' contains \(bad.debugDescription)."))
        }
        if trimmed.count != 6 {
            return .failure(
                PayloadIssue(code: "wrongLength", message: "A charger ID has exactly 6 digits; '\(trimmed)' has \(trimmed.count)."))
        }
        if trimmed.first == "0" {
            return .failure(
                PayloadIssue(code: "outOfRange", message: "A charger ID is between 100000 and 999999; '\(trimmed)' starts with 0."))
        }
        return .success(trimmed)
    }

    /// Whether a payload can hold a charger id: a run of six ASCII digits, as every id
    /// ``parsePayload(_:)`` finds is. A quick test to make before it.
    public static func mayHoldID(_ payload: String) -> Bool {
        var run = 0
        for byte in payload.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                run += 1
                if run == 6 { return true }
            } else {
                run = 0
            }
        }
        return false
    }

    /// Finds the id in a QR payload: the whole payload, a query parameter's value, or a path segment.
    ///
    /// Query parameters named `id`, `charger`, `chargerId`, `cp`, `evse` or `chargePointId` are tried
    /// first, then any other parameter, then path segments from the last.
    public static func parsePayload(_ payload: String) -> Result<String, PayloadIssue> {
        let trimmed = payload.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.allSatisfy(\.isASCIIDigit) { return parseTyped(trimmed) }
        guard trimmed.contains("/") || trimmed.contains("?") else {
            return .failure(PayloadIssue(code: "notAChargerCode", message: "The code holds no charger ID."))
        }
        let noFragment = trimmed.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = noFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var queryValues: [(String, String)] = []
        if parts.count > 1 {
            for param in parts[1].split(separator: "&") {
                let pieces = param.split(separator: "=", maxSplits: 1)
                if pieces.count == 2 { queryValues.append((pieces[0].lowercased(), String(pieces[1]))) }
            }
        }
        let preferred = ["id", "charger", "chargerid", "cp", "evse", "chargepointid"]
        let ordered = queryValues.filter { preferred.contains($0.0) } + queryValues.filter { !preferred.contains($0.0) }
        for (_, value) in ordered where value.count == 6 && value.allSatisfy(\.isASCIIDigit) {
            if case .success(let id) = parseTyped(value) { return .success(id) }
        }
        var path = parts[0]
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
        let segments = path.split(separator: "/").dropFirst(path.contains("/") && parts[0].contains("://") ? 1 : 0)
        for segment in segments.reversed() where segment.count == 6 && segment.allSatisfy(\.isASCIIDigit) {
            if case .success(let id) = parseTyped(String(segment)) { return .success(id) }
        }
        return .failure(PayloadIssue(code: "notAChargerCode", message: "The code holds no 6-digit charger ID (100000–999999)."))
    }
}
