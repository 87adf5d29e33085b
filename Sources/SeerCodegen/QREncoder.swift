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

    /// Error-correction codewords per block, by level (L, M, Q, H) and version.
    static let eccPerBlock: [[Int]] = [
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error-correction blocks, by level (L, M, Q, H) and version.
    static let blockCount: [[Int]] = [
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Splits data into blocks, appends each block's Reed–Solomon codewords, and interleaves them.
    static func interleave(_ data: [UInt8], version: Int, _ level: QRErrorCorrection) -> [UInt8] {
        let blocks = blockCount[level.index][version - 1]
        let ecc = eccPerBlock[level.index][version - 1]
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

/// Arithmetic in GF(2⁸) modulo x⁸ + x⁴ + x³ + x² + 1 and Reed–Solomon remainders.
enum ReedSolomon {
    static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 512)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for power in 255..<512 { exp[power] = exp[power - 255] }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    /// Coefficients (highest power first, leading 1 dropped) of ∏ (x − αⁱ), i = 0..<degree.
    static func generator(degree: Int) -> [UInt8] {
        var poly: [UInt8] = [1]
        for root in 0..<degree {
            var next = [UInt8](repeating: 0, count: poly.count + 1)
            let alpha = tables.exp[root]
            for (index, coefficient) in poly.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= multiply(coefficient, alpha)
            }
            poly = next
        }
        return Array(poly.dropFirst())
    }

    /// The remainder of data·x^degree divided by the generator: the error-correction codewords.
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for index in generator.indices { remainder[index] ^= multiply(generator[index], factor) }
            }
        }
        return remainder
    }
}
