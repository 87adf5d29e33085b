/// GS1 Application Identifiers, GTINs and the two GS1 syntaxes Seer reads: element strings and
/// Digital Link URIs.
public enum GS1 {
    /// The group separator that stands for FNC1 between variable-length fields.
    public static let groupSeparator: Character = "\u{1D}"

    /// How an Application Identifier's value is shaped.
    public struct AIDefinition: Sendable, Equatable {
        /// The AI's digits, e.g. `01`.
        public var ai: String
        /// Fixed length of the value, or `nil` when variable.
        public var fixedLength: Int?
        /// Longest value allowed.
        public var maxLength: Int
        /// Whether the value is digits only.
        public var numeric: Bool
        /// A short title.
        public var title: String
    }

    private static func fixed(_ ai: String, _ length: Int, _ title: String) -> AIDefinition {
        AIDefinition(ai: ai, fixedLength: length, maxLength: length, numeric: true, title: title)
    }

    private static func variable(_ ai: String, _ max: Int, numeric: Bool = false, _ title: String) -> AIDefinition {
        AIDefinition(ai: ai, fixedLength: nil, maxLength: max, numeric: numeric, title: title)
    }

    /// The AIs Seer understands: identification, dates, batch/serial, measures, and the signature.
    public static let table: [String: AIDefinition] = {
        var list: [AIDefinition] = [
            fixed("00", 18, "SSCC"), fixed("01", 14, "GTIN"), fixed("02", 14, "CONTENT"),
            variable("10", 20, "BATCH/LOT"), fixed("11", 6, "PROD DATE"), fixed("12", 6, "DUE DATE"),
            fixed("13", 6, "PACK DATE"), fixed("15", 6, "BEST BEFORE"), fixed("16", 6, "SELL BY"),
            fixed("17", 6, "USE BY OR EXPIRY"), fixed("20", 2, "VARIANT"), variable("21", 20, "SERIAL"),
            variable("22", 20, "CPV"), variable("235", 28, "TPX"), variable("240", 30, "ADDITIONAL ID"),
            variable("241", 30, "CUST. PART No."), variable("250", 30, "SECONDARY SERIAL"),
            variable("251", 30, "REF. TO SOURCE"), variable("253", 30, "GDTI"), variable("254", 20, "GLN EXTENSION"),
            variable("30", 8, numeric: true, "VAR. COUNT"), variable("37", 8, numeric: true, "COUNT"),
            variable("400", 30, "ORDER NUMBER"), variable("420", 20, "SHIP TO POST"),
            fixed("422", 3, "ORIGIN"), fixed("7003", 10, "EXPIRY TIME"), variable("8003", 30, "GRAI"),
            variable("8004", 30, "GIAI"), fixed("8006", 18, "ITIP"), variable("8010", 30, "CPID"),
            variable("8011", 12, numeric: true, "CPID SERIAL"), variable("8012", 20, "VERSION"),
            variable("8020", 25, "REF No."), variable("8030", 90, "DIGSIG"), variable("90", 30, "INTERNAL"),
        ]
        for ai in 410...417 { list.append(fixed(String(ai), 13, "GLN")) }
        for prefix in 31...36 {
            for digit in 0...9 {
                for decimals in 0...9 { list.append(fixed("\(prefix)\(digit)\(decimals)", 6, "MEASURE")) }
            }
        }
        for ai in 91...99 { list.append(variable(String(ai), 90, "INTERNAL")) }
        return Dictionary(list.map { ($0.ai, $0) }, uniquingKeysWith: { first, _ in first })
    }()

    /// The definition of the AI at the start of `digits`, trying 2, 3 then 4 digits.
    static func definition(atStartOf digits: Substring) -> AIDefinition? {
        for length in 2...4 where digits.count >= length {
            let candidate = String(digits.prefix(length))
            guard candidate.allSatisfy(\.isASCIIDigit) else { return nil }
            if let definition = table[candidate] { return definition }
        }
        return nil
    }

    /// GS1's 82-character set for alphanumeric values (AI "CSET 82").
    static func isCSet82(_ char: Character) -> Bool {
        guard let ascii = char.asciiValue else { return false }
        switch ascii {
        case 0x21, 0x22, 0x25...0x2F, 0x30...0x39, 0x3A...0x3F, 0x41...0x5A, 0x5F, 0x61...0x7A: return true
        default: return false
        }
    }

    /// Whether `digits` (8, 12, 13 or 14 of them) ends with the right GS1 check digit.
    public static func hasValidCheckDigit(_ digits: String) -> Bool {
        let values = digits.compactMap(\.wholeNumberValue)
        guard values.count == digits.count, values.count >= 2 else { return false }
        var sum = 0
        for (offset, value) in values.dropLast().reversed().enumerated() {
            sum += offset % 2 == 0 ? value * 3 : value
        }
        return (10 - sum % 10) % 10 == values.last
    }

    /// A GTIN-8/12/13/14 as 14 digits, or an issue saying what is wrong with it.
    public static func normalizeGTIN(_ text: String) -> Result<String, PayloadIssue> {
        guard [8, 12, 13, 14].contains(text.count), text.allSatisfy(\.isASCIIDigit) else {
            return .failure(PayloadIssue(code: "invalidGTIN", message: "A GTIN has 8, 12, 13 or 14 digits; got '\(text)'."))
        }
        guard hasValidCheckDigit(text) else {
            return .failure(PayloadIssue(code: "badCheckDigit", message: "GTIN \(text) has a wrong check digit."))
        }
        return .success(String(repeating: "0", count: 14 - text.count) + text)
    }

    /// Validates one AI value against its definition.
    static func validate(ai: AIDefinition, value: String) -> PayloadIssue? {
        if let fixed = ai.fixedLength, value.count != fixed {
            return PayloadIssue(code: "badLength", message: "AI (\(ai.ai)) needs \(fixed) characters; got \(value.count).")
        }
        if value.isEmpty || value.count > ai.maxLength {
            return PayloadIssue(code: "badLength", message: "AI (\(ai.ai)) allows 1–\(ai.maxLength) characters; got \(value.count).")
        }
        if ai.numeric || ai.fixedLength != nil {
            if !value.allSatisfy(\.isASCIIDigit) {
                return PayloadIssue(code: "badCharacter", message: "AI (\(ai.ai)) takes digits only; got '\(value)'.")
            }
        } else if let bad = value.first(where: { !isCSet82($0) }) {
            return PayloadIssue(
                code: "badCharacter", message: "AI (\(ai.ai)) value has a character outside GS1's set: \(bad.debugDescription).")
        }
        if ai.ai == "01" || ai.ai == "02", !hasValidCheckDigit(value) {
            return PayloadIssue(code: "badCheckDigit", message: "GTIN \(value) has a wrong check digit.")
        }
        return nil
    }

    /// Splits an element string into (AI, value) pairs in order.
    ///
    /// Accepts a leading symbology identifier (`]Q3`, `]C1`, `]d2`, `]e0`, `]J1`) and a leading FNC1,
    /// both as readers report them, and a group separator after fixed-length fields.
    public static func parseElementString(_ text: String) -> Result<[(ai: String, value: String)], PayloadIssue> {
        var rest = Substring(stripSymbologyIdentifier(text))
        while rest.first == groupSeparator { rest = rest.dropFirst() }
        var pairs: [(ai: String, value: String)] = []
        while !rest.isEmpty {
            guard let definition = definition(atStartOf: rest) else {
                return .failure(PayloadIssue(code: "unknownAI", message: "No known GS1 AI at '\(rest.prefix(4))'."))
            }
            rest = rest.dropFirst(definition.ai.count)
            let value: Substring
            if let fixed = definition.fixedLength {
                value = rest.prefix(fixed)
                rest = rest.dropFirst(fixed)
                if rest.first == groupSeparator { rest = rest.dropFirst() }
            } else {
                let end = rest.firstIndex(of: groupSeparator) ?? rest.endIndex
                value = rest[..<end]
                rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            }
            if let issue = validate(ai: definition, value: String(value)) { return .failure(issue) }
            pairs.append((definition.ai, String(value)))
        }
        if pairs.isEmpty { return .failure(PayloadIssue(code: "empty", message: "The element string is empty.")) }
        return .success(pairs)
    }

    /// `text` without a leading `]` + letter + digit symbology identifier.
    static func stripSymbologyIdentifier(_ text: String) -> Substring {
        let chars = Array(text.prefix(3))
        if chars.count == 3, chars[0] == "]", chars[1].isLetter, chars[2].isASCIIDigit { return text.dropFirst(3) }
        return Substring(text)
    }

    /// Decodes `%XX` escapes (UTF-8); `nil` when an escape is broken.
    static func percentDecode(_ text: Substring) -> String? {
        var bytes = [UInt8]()
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { asciiValue.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
}
