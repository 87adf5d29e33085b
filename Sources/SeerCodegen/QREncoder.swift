import Foundation
import SeerQR

/// Encodes data as a QR Code (ISO/IEC 18004 model 2): one segment in numeric, alphanumeric or byte
/// mode, versions 1–40, levels L/M/Q/H, Reed–Solomon over GF(256), the eight masks scored by the
/// standard's four penalty rules, format and version information.
public enum QREncoder {
    /// Encodes text as UTF-8 (numeric or alphanumeric when the text allows and `mode` is `nil`).
    public static func encode(
        _ text: String, errorCorrection: QRErrorCorrection = .medium, mode: QRMode? = nil, minVersion: Int = 1,
        maxVersion: Int = 40, mask: Int? = nil
    ) throws -> QRCode {
        try encode(bytes: Array(text.utf8), errorCorrection: errorCorrection, mode: mode, minVersion: minVersion, maxVersion: maxVersion, mask: mask)
    }

    /// Encodes bytes, choosing the smallest version in `minVersion...maxVersion` that holds them and,
    /// unless `mask` is given, the mask with the lowest penalty.
    public static func encode(
        bytes: [UInt8], errorCorrection: QRErrorCorrection = .medium, mode: QRMode? = nil, minVersion: Int = 1,
        maxVersion: Int = 40, mask: Int? = nil
    ) throws -> QRCode {
        guard 1 <= minVersion, minVersion <= maxVersion, maxVersion <= 40 else {
            throw QREncodingError(code: "badVersion", message: "Versions run from 1 to 40; asked for \(minVersion)–\(maxVersion).")
        }
        if let mask, !(0...7).contains(mask) {
            throw QREncodingError(code: "badMask", message: "Masks run from 0 to 7; asked for \(mask).")
        }
        let chosenMode = mode ?? bestMode(bytes)
        guard fits(bytes, chosenMode) else {
            throw QREncodingError(code: "badMode", message: "The data cannot be written in \(chosenMode.rawValue) mode.")
        }
        for version in minVersion...maxVersion {
            let layout = Layout(version: version)
            let dataCodewords = layout.dataCodewords(errorCorrection)
            guard let bits = segmentBits(bytes, chosenMode, version: version), bits.count <= dataCodewords * 8 else { continue }
            let codewords = finish(bits, capacity: dataCodewords)
            let sequence = interleave(codewords, version: version, errorCorrection)
            return layout.symbol(sequence, errorCorrection: errorCorrection, mode: chosenMode, mask: mask)
        }
        throw QREncodingError(
            code: "tooLong",
            message: "\(bytes.count) bytes do not fit a version-\(maxVersion) QR Code at level \(errorCorrection.rawValue).")
    }

    /// A piece of a multi-segment symbol, in the order written.
    public enum Segment: Sendable, Equatable {
        /// Digits, in numeric mode.
        case numeric(String)
        /// Characters of the alphanumeric set, in alphanumeric mode.
        case alphanumeric(String)
        /// Bytes, in byte mode.
        case bytes([UInt8])
        /// Text of JIS X 0208 characters, in Kanji mode (13 bits per Shift_JIS double-byte character).
        case kanji(String)
        /// An ECI designator: the character set of the byte segments that follow.
        case eci(Int)
        /// A structured-append header (must come first): symbol `index` of `count`, with the sequence's parity.
        case structuredAppend(index: Int, count: Int, parity: Int)
        /// FNC1 in first position: GS1 data (must come before any data segment).
        case fnc1First
    }

    /// Encodes several segments into one symbol (the smallest version in range that holds them).
    public static func encode(
        segments: [Segment], errorCorrection: QRErrorCorrection = .medium, minVersion: Int = 1, maxVersion: Int = 40,
        mask: Int? = nil
    ) throws -> QRCode {
        guard 1 <= minVersion, minVersion <= maxVersion, maxVersion <= 40 else {
            throw QREncodingError(code: "badVersion", message: "Versions run from 1 to 40; asked for \(minVersion)–\(maxVersion).")
        }
        versions: for version in minVersion...maxVersion {
            let layout = Layout(version: version)
            let dataCodewords = layout.dataCodewords(errorCorrection)
            var buffer = BitBuffer()
            var firstMode: QRMode = .byte
            var sawData = false
            for segment in segments {
                switch segment {
                case .numeric(let text):
                    guard let bits = segmentBits(Array(text.utf8), .numeric, version: version) else { continue versions }
                    buffer.bits += bits.bits
                    if !sawData { firstMode = .numeric }
                    sawData = true
                case .alphanumeric(let text):
                    guard fits(Array(text.utf8), .alphanumeric) else {
                        throw QREncodingError(code: "badMode", message: "'\(text)' is not alphanumeric.")
                    }
                    guard let bits = segmentBits(Array(text.utf8), .alphanumeric, version: version) else { continue versions }
                    buffer.bits += bits.bits
                    if !sawData { firstMode = .alphanumeric }
                    sawData = true
                case .bytes(let bytes):
                    guard let bits = segmentBits(bytes, .byte, version: version) else { continue versions }
                    buffer.bits += bits.bits
                    sawData = true
                case .kanji(let text):
                    guard let sjis = text.data(using: .shiftJIS).map({ [UInt8]($0) }), sjis.count % 2 == 0 else {
                        throw QREncodingError(code: "badMode", message: "'\(text)' is not Shift_JIS double-byte text.")
                    }
                    let countBits = version <= 9 ? 8 : version <= 26 ? 10 : 12
                    guard sjis.count / 2 < 1 << countBits else { continue versions }
                    buffer.append(0b1000, 4)
                    buffer.append(sjis.count / 2, countBits)
                    for i in stride(from: 0, to: sjis.count, by: 2) {
                        var code = Int(sjis[i]) << 8 | Int(sjis[i + 1])
                        guard (0x8140...0x9FFC).contains(code) || (0xE040...0xEBBF).contains(code) else {
                            throw QREncodingError(code: "badMode", message: "'\(text)' has a character outside Kanji mode.")
                        }
                        code -= code <= 0x9FFC ? 0x8140 : 0xC140
                        buffer.append((code >> 8) * 0xC0 + (code & 0xFF), 13)
                    }
                    sawData = true
                case .eci(let designator):
                    buffer.append(0b0111, 4)
                    if designator < 128 {
                        buffer.append(designator, 8)
                    } else if designator < 16384 {
                        buffer.append(0b10 << 14 | designator, 16)
                    } else {
                        buffer.append(0b110 << 21 | designator, 24)
                    }
                case .structuredAppend(let index, let count, let parity):
                    buffer.append(0b0011, 4)
                    buffer.append(index, 4)
                    buffer.append(count - 1, 4)
                    buffer.append(parity, 8)
                case .fnc1First:
                    buffer.append(0b0101, 4)
                }
            }
            guard buffer.count <= dataCodewords * 8 else { continue }
            let codewords = finish(buffer, capacity: dataCodewords)
            let sequence = interleave(codewords, version: version, errorCorrection)
            return layout.symbol(sequence, errorCorrection: errorCorrection, mode: firstMode, mask: mask)
        }
        throw QREncodingError(code: "tooLong", message: "The segments do not fit a version-\(maxVersion) QR Code at level \(errorCorrection.rawValue).")
    }

    // MARK: Data

    static let alphanumericSet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    static func bestMode(_ bytes: [UInt8]) -> QRMode {
        if fits(bytes, .numeric) { return .numeric }
        if fits(bytes, .alphanumeric) { return .alphanumeric }
        return .byte
    }

    static func fits(_ bytes: [UInt8], _ mode: QRMode) -> Bool {
        switch mode {
        case .numeric: bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        case .alphanumeric: bytes.allSatisfy { alphanumericSet.contains($0) }
        case .byte: true
        }
    }

    struct BitBuffer {
        var bits: [Bool] = []
        var count: Int { bits.count }
        mutating func append(_ value: Int, _ length: Int) {
            for shift in stride(from: length - 1, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
        }
    }

    /// Mode indicator, character count and data bits; `nil` when the count does not fit its field.
    static func segmentBits(_ bytes: [UInt8], _ mode: QRMode, version: Int) -> BitBuffer? {
        let countBits = mode.countBits(version: version)
        guard bytes.count < 1 << countBits else { return nil }
        var buffer = BitBuffer()
        buffer.append(mode.indicator, 4)
        buffer.append(bytes.count, countBits)
        switch mode {
        case .numeric:
            var index = 0
            while index < bytes.count {
                let group = bytes[index..<min(index + 3, bytes.count)]
                let value = group.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                buffer.append(value, [0, 4, 7, 10][group.count])
                index += 3
            }
        case .alphanumeric:
            let values = bytes.map { alphanumericSet.firstIndex(of: $0)! }
            var index = 0
            while index + 1 < values.count {
                buffer.append(values[index] * 45 + values[index + 1], 11)
                index += 2
            }
            if index < values.count { buffer.append(values[index], 6) }
        case .byte:
            for byte in bytes { buffer.append(Int(byte), 8) }
        }
        return buffer
    }

    /// Terminator, byte alignment and the 0xEC/0x11 pad codewords.
    static func finish(_ buffer: BitBuffer, capacity: Int) -> [UInt8] {
        var bits = buffer
        bits.append(0, min(4, capacity * 8 - bits.count))
        if bits.count % 8 != 0 { bits.append(0, 8 - bits.count % 8) }
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits.bits[start + $1] ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    // MARK: Error correction

    /// Splits data into blocks, appends each block's Reed–Solomon codewords, and interleaves them.
    static func interleave(_ data: [UInt8], version: Int, _ level: QRErrorCorrection) -> [UInt8] {
        let blocks = QRSpec.blockCount[level.index][version - 1]
        let ecc = QRSpec.eccPerBlock[level.index][version - 1]
        let total = data.count + blocks * ecc
        let longBlocks = total % blocks
        let shortData = total / blocks - ecc
        var dataBlocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var start = 0
        let generator = ReedSolomon.generator(degree: ecc)
        for index in 0..<blocks {
            let length = shortData + (index >= blocks - longBlocks ? 1 : 0)
            let block = Array(data[start..<start + length])
            start += length
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        for column in 0...shortData {
            for block in dataBlocks where column < block.count { out.append(block[column]) }
        }
        for column in 0..<ecc {
            for block in eccBlocks { out.append(block[column]) }
        }
        return out
    }
}
