import Foundation

/// Where a QR Code sits in a structured-append sequence: one symbol of several whose data, joined
/// in order, is the whole message.
public struct StructuredAppend: Sendable, Equatable, Hashable, Codable {
    /// This symbol's position in the sequence, from 0.
    public var index: Int
    /// How many symbols the sequence has (1–16).
    public var count: Int
    /// The parity byte shared by every symbol of the sequence (the XOR of the whole message's bytes).
    public var parity: Int

    /// Creates a structured-append header.
    public init(index: Int, count: Int, parity: Int) {
        self.index = index
        self.count = count
        self.parity = parity
    }
}

/// One segment of a QR Code's data, as encoded.
package struct QRSegment: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case numeric, alphanumeric, byte, kanji, hanzi
    }
    package var mode: Mode
    /// Numeric and alphanumeric: ASCII; byte: as encoded; Kanji: Shift_JIS pairs; Hanzi: GB 2312 pairs.
    package var bytes: [UInt8]
    /// The ECI designator in force, if any.
    package var eci: Int?
}

/// A QR Code's data stream read into segments (ISO/IEC 18004 §7.4), strictly: any mode indicator the
/// standard does not define, a character count that runs past the data, or a value out of range for
/// its mode makes the whole stream invalid.
package struct QRBitstream: Sendable, Equatable {
    package var segments: [QRSegment] = []
    package var structuredAppend: StructuredAppend?
    /// FNC1 in first position: GS1 data (`%` in alphanumeric segments stands for GS).
    package var gs1 = false
    /// FNC1 in second position: the application indicator that follows it.
    package var applicationIndicator: Int?
    /// Whether what follows the terminator is the standard's padding (zero bits, then 0xEC 0x11 …).
    package var paddingIsStandard = true

    /// Reads the data codewords of a symbol of `version`; nil when the stream is not valid.
    package init?(_ data: [UInt8], version: Int) {
        var reader = BitReader(data)
        let sizeClass = version <= 9 ? 0 : version <= 26 ? 1 : 2
        var eci: Int?
        var first = true
        loop: while reader.remaining >= 4 {
            let mode = reader.read(4)
            defer { first = false }
            switch mode {
            case 0b0000:
                break loop
            case 0b0001:  // numeric
                let count = reader.read([10, 12, 14][sizeClass])
                guard count > 0, let digits = Self.numeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .numeric, bytes: digits, eci: eci))
            case 0b0010:  // alphanumeric
                let count = reader.read([9, 11, 13][sizeClass])
                guard count > 0, let chars = Self.alphanumeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .alphanumeric, bytes: chars, eci: eci))
            case 0b0100:  // byte
                let count = reader.read([8, 16, 16][sizeClass])
                guard count > 0, reader.remaining >= 8 * count else { return nil }
                segments.append(QRSegment(mode: .byte, bytes: (0..<count).map { _ in UInt8(reader.read(8)) }, eci: eci))
            case 0b1000:  // Kanji: 13 bits per Shift_JIS double-byte character
                let count = reader.read([8, 10, 12][sizeClass])
                guard count > 0, let pairs = Self.kanji(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .kanji, bytes: pairs, eci: eci))
            case 0b1101:  // Hanzi (GB/T 18284): subset 1 is GB 2312
                guard reader.remaining >= 4, reader.read(4) == 1 else { return nil }
                let count = reader.read([8, 10, 12][sizeClass])
                guard count > 0, let pairs = Self.hanzi(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .hanzi, bytes: pairs, eci: eci))
            case 0b0111:  // ECI
                guard let designator = Self.eciDesignator(&reader) else { return nil }
                eci = designator
            case 0b0011:  // structured append: must come first
                guard first, reader.remaining >= 16 else { return nil }
                let index = reader.read(4), total = reader.read(4) + 1, parity = reader.read(8)
                guard total >= 2, index < total else { return nil }
                structuredAppend = StructuredAppend(index: index, count: total, parity: parity)
            case 0b0101:  // FNC1, first position
                guard segments.isEmpty, !gs1, applicationIndicator == nil else { return nil }
                gs1 = true
            case 0b1001:  // FNC1, second position, with its application indicator
                guard segments.isEmpty, !gs1, applicationIndicator == nil, reader.remaining >= 8 else { return nil }
                applicationIndicator = reader.read(8)
            default:
                return nil
            }
            if reader.overrun { return nil }
        }
        guard !segments.isEmpty else { return nil }
        paddingIsStandard = Self.checkPadding(data, fromBit: reader.position)
    }

    /// After the terminator: zero bits to the byte boundary, then 0xEC and 0x11 alternating.
    static func checkPadding(_ data: [UInt8], fromBit position: Int) -> Bool {
        var bit = position
        while bit % 8 != 0 && bit < data.count * 8 {
            if data[bit / 8] >> (7 - bit % 8) & 1 != 0 { return false }
            bit += 1
        }
        var expected: UInt8 = 0xEC
        for index in (bit / 8)..<data.count {
            if data[index] != expected { return false }
            expected = expected == 0xEC ? 0x11 : 0xEC
        }
        return true
    }

    static func numeric(_ reader: inout BitReader, _ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var left = count
        while left > 0 {
            let digits = min(3, left)
            let bits = [0, 4, 7, 10][digits]
            guard reader.remaining >= bits else { return nil }
            let value = reader.read(bits)
            guard value < [1, 10, 100, 1000][digits] else { return nil }
            var divisor = [1, 1, 10, 100][digits]
            for _ in 0..<digits {
                out.append(UInt8(0x30 + value / divisor % 10))
                divisor /= 10
            }
            left -= digits
        }
        return out
    }

    static let alphanumericSet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    static func alphanumeric(_ reader: inout BitReader, _ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var left = count
        while left >= 2 {
            guard reader.remaining >= 11 else { return nil }
            let value = reader.read(11)
            guard value < 45 * 45 else { return nil }
            out.append(alphanumericSet[value / 45])
            out.append(alphanumericSet[value % 45])
            left -= 2
        }
        if left == 1 {
            guard reader.remaining >= 6 else { return nil }
            let value = reader.read(6)
            guard value < 45 else { return nil }
            out.append(alphanumericSet[value])
        }
        return out
    }

    static func kanji(_ reader: inout BitReader, _ count: Int) -> [UInt8]? {
        guard reader.remaining >= 13 * count else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(2 * count)
        for _ in 0..<count {
            let value = reader.read(13)
            var code = (value / 0xC0) << 8 | value % 0xC0
            code += code < 0x1F00 ? 0x8140 : 0xC140
            let lead = code >> 8, trail = code & 0xFF
            // Shift_JIS double-byte ranges (JIS X 0208 and the vendor rows that follow them).
            guard (0x81...0x9F).contains(lead) || (0xE0...0xEB).contains(lead) else { return nil }
            guard (0x40...0xFC).contains(trail), trail != 0x7F else { return nil }
            out.append(UInt8(lead))
            out.append(UInt8(trail))
        }
        return out
    }

    static func hanzi(_ reader: inout BitReader, _ count: Int) -> [UInt8]? {
        guard reader.remaining >= 13 * count else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(2 * count)
        for _ in 0..<count {
            let value = reader.read(13)
            var code = (value / 0x60) << 8 | value % 0x60
            code += code < 0x0A00 ? 0xA1A1 : 0xA6A1
            let lead = code >> 8, trail = code & 0xFF
            guard (0xA1...0xF7).contains(lead), (0xA1...0xFE).contains(trail) else { return nil }
            out.append(UInt8(lead))
            out.append(UInt8(trail))
        }
        return out
    }

    /// An ECI designator: 1, 2 or 3 bytes (0xxxxxxx, 10xxxxxx…, 110xxxxx…).
    static func eciDesignator(_ reader: inout BitReader) -> Int? {
        guard reader.remaining >= 8 else { return nil }
        let first = reader.read(8)
        if first & 0x80 == 0 { return first }
        if first & 0xC0 == 0x80 {
            guard reader.remaining >= 8 else { return nil }
            return (first & 0x3F) << 8 | reader.read(8)
        }
        if first & 0xE0 == 0xC0 {
            guard reader.remaining >= 16 else { return nil }
            let value = (first & 0x1F) << 16 | reader.read(16)
            return value <= 999_999 ? value : nil
        }
        return nil
    }

    // MARK: Text

    /// The segments' bytes joined as encoded (Kanji and Hanzi as their double-byte codes).
    package var bytes: [UInt8] { segments.flatMap(\.bytes) }

    /// The data as text, and the character set of its byte segments; nil when a byte segment is
    /// binary or its character set cannot be decoded. Numeric and alphanumeric segments are ASCII,
    /// Kanji segments Shift_JIS and Hanzi segments GB 2312 by definition; byte segments follow the ECI
    /// in force, or without one are recognised by ``TextDecoding`` (all of the symbol's byte segments
    /// together, so one decision covers them all).
    package func text() -> (text: String, charset: String)? {
        let unmarked = segments.filter { $0.mode == .byte && $0.eci == nil }.flatMap(\.bytes)
        var guessed: (text: String, charset: String)?
        if !unmarked.isEmpty {
            guard let g = TextDecoding.decode(unmarked) else { return nil }
            guessed = g
        }
        var charset: String?
        var text = ""
        var offset = 0  // into `unmarked`
        for segment in segments {
            switch segment.mode {
            case .numeric:
                text += String(decoding: segment.bytes, as: UTF8.self)
            case .alphanumeric:
                var s = String(decoding: segment.bytes, as: UTF8.self)
                if gs1 {
                    // GS1: "%" stands for FNC1 (GS); "%%" for a literal percent sign.
                    s = s.replacingOccurrences(of: "%%", with: "\u{0}").replacingOccurrences(of: "%", with: "\u{1D}")
                        .replacingOccurrences(of: "\u{0}", with: "%")
                }
                text += s
            case .kanji:
                guard let s = String(bytes: segment.bytes, encoding: .shiftJIS) else { return nil }
                text += s
                charset = charset ?? "shift_jis"
            case .hanzi:
                guard let s = String(bytes: segment.bytes, encoding: Self.gb2312) else { return nil }
                text += s
                charset = charset ?? "gb2312"
            case .byte:
                if let eci = segment.eci {
                    guard let (s, name) = Self.decode(segment.bytes, eci: eci), TextDecoding.isPlausibleText(s) else {
                        return nil
                    }
                    text += s
                    charset = name
                } else {
                    // This segment's share of the jointly decoded unmarked bytes.
                    let piece = Array(unmarked[offset..<offset + segment.bytes.count])
                    offset += segment.bytes.count
                    guard let g = guessed, let s = Self.decode(piece, charset: g.charset) else { return nil }
                    text += s
                    charset = g.charset
                }
            }
        }
        return (text, charset ?? "utf-8")
    }

    static let gb2312 = String.Encoding(rawValue: 0x8000_0930)  // EUC-CN

    /// Bytes in a character set named the way ``TextDecoding`` names them.
    static func decode(_ bytes: [UInt8], charset: String) -> String? {
        switch charset {
        case "utf-8": String(validating: bytes, as: UTF8.self)
        case "shift_jis": String(bytes: bytes, encoding: .shiftJIS)
        case "iso-8859-1": String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        default: nil
        }
    }

    /// Bytes under an ECI (AIM ECI assignments), with the character set's name; nil for designators
    /// that are not character sets or bytes not valid in theirs.
    static func decode(_ bytes: [UInt8], eci: Int) -> (String, String)? {
        func cf(_ encoding: UInt) -> String.Encoding { String.Encoding(rawValue: 0x8000_0000 | encoding) }
        let table: [Int: (String.Encoding, String)] = [
            0: (cf(0x0400), "cp437"), 2: (cf(0x0400), "cp437"),
            1: (.isoLatin1, "iso-8859-1"), 3: (.isoLatin1, "iso-8859-1"),
            4: (.isoLatin2, "iso-8859-2"), 5: (cf(0x0203), "iso-8859-3"), 6: (cf(0x0204), "iso-8859-4"),
            7: (cf(0x0205), "iso-8859-5"), 8: (cf(0x0206), "iso-8859-6"), 9: (cf(0x0207), "iso-8859-7"),
            10: (cf(0x0208), "iso-8859-8"), 11: (cf(0x0209), "iso-8859-9"), 12: (cf(0x020A), "iso-8859-10"),
            13: (cf(0x020B), "iso-8859-11"), 15: (cf(0x020D), "iso-8859-13"), 16: (cf(0x020E), "iso-8859-14"),
            17: (cf(0x020F), "iso-8859-15"), 18: (cf(0x0210), "iso-8859-16"),
            20: (.shiftJIS, "shift_jis"), 21: (.windowsCP1250, "windows-1250"), 22: (.windowsCP1251, "windows-1251"),
            23: (.windowsCP1252, "windows-1252"), 24: (cf(0x0504), "windows-1256"),
            25: (.utf16BigEndian, "utf-16be"), 26: (.utf8, "utf-8"), 27: (.ascii, "us-ascii"),
            28: (cf(0x0A03), "big5"), 29: (cf(0x0632), "gb18030"), 30: (cf(0x0940), "euc-kr"),
            32: (cf(0x0632), "gb18030"), 33: (.utf16LittleEndian, "utf-16le"), 34: (.utf32BigEndian, "utf-32be"),
            35: (.utf32LittleEndian, "utf-32le"),
        ]
        guard let (encoding, name) = table[eci] else { return nil }
        if encoding == .isoLatin1 { return (String(decoding: bytes.map { UInt16($0) }, as: UTF16.self), name) }
        if encoding == .utf8 { return String(validating: bytes, as: UTF8.self).map { ($0, name) } }
        if encoding == .ascii { return bytes.allSatisfy { $0 < 0x80 } ? (String(decoding: bytes, as: UTF8.self), name) : nil }
        return String(bytes: bytes, encoding: encoding).map { ($0, name) }
    }
}

/// Reads big-endian bit fields from bytes; reading past the end yields zeros and sets `overrun`.
struct BitReader {
    let bytes: [UInt8]
    private(set) var position = 0
    private(set) var overrun = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count * 8 - position }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let bit: Int
            if position < bytes.count * 8 {
                bit = Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            } else {
                bit = 0
                overrun = true
            }
            value = value << 1 | bit
            position += 1
        }
        return value
    }
}
