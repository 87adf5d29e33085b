import Foundation

/// A country as an ISO 3166-1 alpha-2 code (`GB`, `DE`, `US`, …): where a plate owner is registered,
/// where a scan happened, where a product is sold.
///
/// Codes are validated against the 249 officially assigned ISO 3166-1 codes; `UK`, which ISO
/// reserves for the United Kingdom, is taken as `GB`. Case is ignored on input.
public struct Country: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible, Comparable {
    /// The upper-case alpha-2 code.
    public let rawValue: String

    /// The code, or nil when `rawValue` is not an assigned ISO 3166-1 alpha-2 code.
    public init?(rawValue: String) {
        let code = rawValue.trimmingCharacters(in: .whitespaces).uppercased()
        if code == "UK" {
            self.rawValue = "GB"
        } else if Self.assigned.contains(code) {
            self.rawValue = code
        } else {
            return nil
        }
    }

    /// Parses a code, or throws ``CountryError`` saying what was wrong (`United Kingdom` is not a
    /// code; `XY` is not assigned).
    public static func parse(_ text: String) throws(CountryError) -> Country {
        if let country = Country(rawValue: text) { return country }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count != 2 || !trimmed.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw CountryError(input: text, message: "'\(text)' is not a country code: give an ISO 3166-1 alpha-2 code such as GB, DE or US")
        }
        throw CountryError(input: text, message: "'\(trimmed.uppercased())' is not an assigned ISO 3166-1 alpha-2 country code")
    }

    /// Decodes a code, failing on anything that is not an assigned code.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try Self.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// Encodes the code as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The code.
    public var description: String { rawValue }

    /// Alphabetical by code.
    public static func < (lhs: Country, rhs: Country) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The plate grammar region whose formats this country's plates follow, or nil when Seer has no
    /// plate grammar for it.
    public var plateRegion: PlateRegion? {
        switch rawValue {
        case "US": .us
        case "BR": .br
        default: Self.europe.contains(rawValue) ? .eu : nil
        }
    }

    static let europe: Set<String> = [
        "AD", "AL", "AT", "BA", "BE", "BG", "BY", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FO", "FR", "GB", "GI", "GR",
        "HR", "HU", "IE", "IM", "IS", "IT", "JE", "GG", "LI", "LT", "LU", "LV", "MC", "MD", "ME", "MK", "MT", "NL", "NO", "PL",
        "PT", "RO", "RS", "SE", "SI", "SK", "SM", "UA", "VA",
    ]

    /// Every officially assigned ISO 3166-1 alpha-2 code.
    public static let assigned: Set<String> = [
        "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ", "BA", "BB",
        "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS", "BT", "BV", "BW", "BY",
        "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX",
        "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK",
        "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF", "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS",
        "GT", "GU", "GW", "GY", "HK", "HM", "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR",
        "IS", "IT", "JE", "JM", "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA",
        "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
        "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA", "NC", "NE",
        "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG", "PH", "PK", "PL", "PM",
        "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW", "SA", "SB", "SC", "SD", "SE", "SG",
        "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF",
        "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO", "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY",
        "UZ", "VA", "VC", "VE", "VG", "VI", "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW"
    ]
}

/// A country code that is not one.
public struct CountryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given.
    public var input: String
    /// Why it is not a country code.
    public var message: String
    /// The message.
    public var description: String { message }
}
