/// Strict base64url (RFC 4648 §5) without padding, as JWS and GS1 AI 8030 use it.
///
/// Strict means: only the 64 URL-safe characters, no padding, no whitespace, a length that a whole
/// number of bytes can have, and the unused low bits of the last character zero. A lenient decoder
/// would accept a changed last character whose flipped bits are thrown away, letting a tampered
/// signature decode to the original bytes.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = Int8(index) }
        return table
    }()

    /// Encodes bytes without padding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let value = UInt32(input[index]) << 16
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
        } else if rest == 2 {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes strictly; `nil` for anything that is not canonical unpadded base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let chars = Array(text.utf8)
        if chars.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for char in chars {
            let value = reverse[Int(char)]
            if value < 0 { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, or two spellings would decode to the same bytes.
        if accumulator != 0 { return nil }
        return out
    }
}

/// Compares two byte strings in time that depends only on their lengths.
public func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    if lhs.count != rhs.count { return false }
    var difference: UInt8 = 0
    for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
    return difference == 0
}
