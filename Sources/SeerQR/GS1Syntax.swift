/// The shape of a GS1 element string as a symbol carries it: Application Identifiers with their
/// values, a GS (FNC1) after each value of variable length that is not last.
///
/// DataBar Expanded always carries one, and GS1-128 does; their own check values are weak (one
/// modulo-211 or modulo-103 character), so a misread that passes them usually breaks this shape: a
/// date that is not six digits, a GTIN whose check digit fails. Such a reading is not reported.
package enum GS1Syntax {
    /// The length (AI and value) of the element strings of predefined length, by the AI's first two
    /// digits: GS1 General Specifications, "element strings with predefined length using GS1
    /// Application Identifiers". Every one is numeric.
    package static let predefined: [UInt8: Int] = [
        0: 20, 1: 16, 2: 16, 3: 16, 4: 18, 11: 8, 12: 8, 13: 8, 14: 8, 15: 8, 16: 8, 17: 8, 18: 8, 19: 8,
        20: 4, 31: 10, 32: 10, 33: 10, 34: 10, 35: 10, 36: 10, 41: 16,
    ]

    static let groupSeparator: UInt8 = 0x1D

    /// Whether `bytes` read as a well-formed element string: every field starts with a two-digit AI
    /// prefix; a field of predefined length has all its digits (and a GTIN or SSCC its check digit);
    /// any other field has at least one character after its AI, all of them printable ASCII (and
    /// spaces too when `allowingSpace`: DataBar Expanded's ISO/IEC 646 mode encodes the space).
    package static func isWellFormed(_ bytes: [UInt8], allowingSpace: Bool = false) -> Bool {
        var i = 0
        while i < bytes.count, bytes[i] == groupSeparator { i += 1 }
        guard i < bytes.count else { return false }
        func digit(_ k: Int) -> UInt8? {
            k < bytes.count && bytes[k] >= 0x30 && bytes[k] <= 0x39 ? bytes[k] - 0x30 : nil
        }
        while i < bytes.count {
            guard let d0 = digit(i), let d1 = digit(i + 1) else { return false }
            let prefix = d0 * 10 + d1
            if let length = predefined[prefix] {
                guard i + length <= bytes.count, (i..<(i + length)).allSatisfy({ digit($0) != nil }) else { return false }
                // AI 00 (SSCC, 18 digits) and 01–03 (GTIN-14) end in a GS1 check digit.
                if prefix <= 3, !hasValidCheckDigit(Array(bytes[(i + 2)..<(i + length)])) { return false }
                i += length
                if i < bytes.count, bytes[i] == groupSeparator { i += 1 }
            } else {
                let end = bytes[i...].firstIndex(of: groupSeparator) ?? bytes.count
                guard end - i >= 3, bytes[i..<end].allSatisfy({ ($0 >= 0x21 && $0 <= 0x7E) || (allowingSpace && $0 == 0x20) }) else { return false }
                i = end + 1
            }
        }
        return true
    }

    /// The GS1 check digit (weights 3 and 1 from the right, before the check digit) of ASCII digits.
    static func hasValidCheckDigit(_ digits: [UInt8]) -> Bool {
        guard let last = digits.last else { return false }
        var sum = 0
        for (k, d) in digits.dropLast().reversed().enumerated() { sum += Int(d - 0x30) * (k % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == Int(last - 0x30)
    }

    /// The element string (GS after each field of variable length but the last) written in the
    /// bracketed form `(01)09506000134352(10)L24`, or nil when the text is not in that form.
    package static func elementString(fromBracketed text: String) -> [UInt8]? {
        var fields: [(ai: [UInt8], value: [UInt8])] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard rest.first == "(", let close = rest.firstIndex(of: ")") else { return nil }
            let ai = rest[rest.index(after: rest.startIndex)..<close]
            guard (2...4).contains(ai.count), ai.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            rest = rest[rest.index(after: close)...]
            let end = rest.firstIndex(of: "(") ?? rest.endIndex
            guard end > rest.startIndex else { return nil }
            fields.append((Array(ai.utf8), Array(rest[..<end].utf8)))
            rest = rest[end...]
        }
        guard !fields.isEmpty else { return nil }
        var out: [UInt8] = []
        for (k, field) in fields.enumerated() {
            out += field.ai + field.value
            let prefix = (field.ai[0] - 0x30) * 10 + (field.ai[1] - 0x30)
            if k < fields.count - 1 && predefined[prefix] == nil { out.append(groupSeparator) }
        }
        return out
    }
}
