/// What an Aztec symbol's mode message says.
struct AztecMode: Equatable {
    var compact: Bool
    /// Data layers (0 for a rune).
    var layers: Int
    /// Data codewords (for a rune: its value).
    var dataCodewords: Int
    /// Whether the symbol is a rune (a compact core alone carrying one value 0–255).
    var rune = false
    /// The reader-initialisation flag.
    var readerInit = false

    /// The symbol's side in modules.
    var size: Int { compact ? 11 + 4 * layers : AztecLayout.fullSize(layers: layers) }
}

/// A decoded Aztec symbol.
struct DecodedAztec: Sendable {
    var bytes: [UInt8]
    var gs1: Bool
    /// The last ECI designator seen, if any.
    var eci: Int?
    var compact: Bool
    var layers: Int
    var mirrored: Bool
}

/// Where Aztec's modules lie and what its mode message and data words say (ISO/IEC 24778).
enum AztecLayout {
    /// A full-range symbol's side: 15 + 4·layers modules plus a reference grid line every 16.
    static func fullSize(layers: Int) -> Int {
        let base = 14 + 4 * layers
        return base + 1 + 2 * ((base / 2 - 1) / 15)
    }

    /// The bits of a codeword for a symbol of `layers` layers.
    static func codewordBits(layers: Int) -> Int {
        layers <= 2 ? 6 : layers <= 8 ? 8 : layers <= 22 ? 10 : 12
    }

    static func field(bits: Int) -> GaloisField {
        switch bits {
        case 6: .gf64
        case 8: .gf256
        case 10: .gf1024
        default: .gf4096
        }
    }

    /// The mode message's positions, in symbol coordinates relative to the centre module, in reading
    /// order (clockwise from the top-left corner mark), for an upright symbol.
    static func modePositions(compact: Bool) -> [(Int, Int)] {
        let r = compact ? 5 : 7
        var out: [(Int, Int)] = []
        // Along each side from two past its first corner to two before its last, skipping the
        // centre line on full-range symbols.
        let run = Array((-r + 2)...(r - 2)).filter { compact || $0 != 0 }
        for t in run { out.append((t, -r)) }  // top, left to right
        for t in run { out.append((r, t)) }  // right, downwards
        for t in run { out.append((-t, r)) }  // bottom, right to left
        for t in run { out.append((-r, -t)) }  // left, upwards
        return out
    }

    /// The data modules in reading order, as (column, row) of the symbol matrix (0..<size).
    static func dataPositions(_ mode: AztecMode) -> [(Int, Int)] {
        let layers = mode.layers
        let base = mode.compact ? 11 + 4 * layers : 14 + 4 * layers
        // Base coordinates (without the reference grid) to symbol coordinates.
        var map = Array(0..<base)
        if !mode.compact {
            let size = fullSize(layers: layers)
            let origin = base / 2, centre = size / 2
            for i in 0..<origin {
                let shifted = i + i / 15
                map[origin - i - 1] = centre - shifted - 1
                map[origin + i] = centre + shifted + 1
            }
        }
        var out: [(Int, Int)] = []
        out.reserveCapacity(totalBits(mode))
        for layer in 0..<layers {
            let side = (layers - layer) * 4 + (mode.compact ? 9 : 12)
            let low = 2 * layer, high = base - 1 - low
            var top: [(Int, Int)] = [], right: [(Int, Int)] = [], bottom: [(Int, Int)] = [], left: [(Int, Int)] = []
            // Counter-clockwise from the top-left corner, two modules (outer first) at a time.
            for j in 0..<side {
                for k in 0..<2 {
                    left.append((map[low + k], map[low + j]))
                    bottom.append((map[low + j], map[high - k]))
                    right.append((map[high - k], map[high - j]))
                    top.append((map[high - j], map[low + k]))
                }
            }
            out += left + bottom + right + top
        }
        return out
    }

    /// The bits the data layers hold.
    static func totalBits(_ mode: AztecMode) -> Int {
        (mode.compact ? 88 : 112) * mode.layers + 16 * mode.layers * mode.layers
    }

    /// The mode message from its bits (28 compact, 40 full-range), corrected: nil when its
    /// Reed–Solomon check fails or the values make no symbol.
    static func mode(_ bits: [Bool], compact: Bool) -> AztecMode? {
        var words = stride(from: 0, to: bits.count, by: 4).map { i in
            (0..<4).reduce(0) { $0 << 1 | (bits[i + $1] ? 1 : 0) }
        }
        let dataCount = compact ? 2 : 4
        guard words.count == (compact ? 7 : 10) else { return nil }
        // A rune's mode message has every word XORed with 1010.
        if compact {
            var rune = words.map { $0 ^ 0b1010 }
            if FieldReedSolomon.correct(&rune, checkCount: 5, field: .gf16) != nil {
                var plain = words
                // Only a rune when the unmasked words are not a valid mode message too.
                if FieldReedSolomon.correct(&plain, checkCount: 5, field: .gf16) == nil {
                    return AztecMode(compact: true, layers: 0, dataCodewords: rune[0] << 4 | rune[1], rune: true)
                }
            }
        }
        guard FieldReedSolomon.correct(&words, checkCount: words.count - dataCount, field: .gf16) != nil else { return nil }
        let value = words[0..<dataCount].reduce(0) { $0 << 4 | $1 }
        var mode: AztecMode
        if compact {
            mode = AztecMode(compact: true, layers: (value >> 6) + 1, dataCodewords: (value & 0x3F) + 1)
        } else {
            mode = AztecMode(compact: false, layers: (value >> 11) + 1, dataCodewords: (value & 0x7FF) + 1)
        }
        let capacity = totalBits(mode) / codewordBits(layers: mode.layers)
        if mode.dataCodewords >= capacity {
            // Reader initialisation sets the top bit of the codeword count.
            let flag = compact ? 0x20 : 0x400
            if mode.dataCodewords - 1 >= flag {
                mode.dataCodewords -= flag
                mode.readerInit = true
            }
        }
        guard mode.dataCodewords < capacity else { return nil }
        return mode
    }

    /// The data bits of the layers' bits: codewords corrected, then unstuffed. Nil when the
    /// correction fails.
    static func correctedData(_ raw: [Bool], _ mode: AztecMode) -> [Bool]? {
        let b = codewordBits(layers: mode.layers)
        let count = raw.count / b
        let offset = raw.count % b
        var words = (0..<count).map { i in
            (0..<b).reduce(0) { $0 << 1 | (raw[offset + i * b + $1] ? 1 : 0) }
        }
        let checks = count - mode.dataCodewords
        guard checks >= 1 else { return nil }
        guard FieldReedSolomon.correct(&words, checkCount: checks, field: field(bits: b)) != nil else { return nil }
        var bits: [Bool] = []
        let mask = (1 << b) - 1
        for w in words.prefix(mode.dataCodewords) {
            if w == 0 || w == mask { return nil }
            let n = (w == 1 || w == mask - 1) ? b - 1 : b
            for k in 0..<n { bits.append((w >> (b - 1 - k)) & 1 == 1) }
        }
        return bits
    }
}

/// Aztec's character modes and the text a data bit stream stands for.
enum AztecText {
    enum Mode { case upper, lower, mixed, punct, digit }

    static let punct: [String] = [
        "", "\r", "\r\n", ". ", ", ", ": ", "!", "\"", "#", "$", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".",
        "/", ":", ";", "<", "=", ">", "?", "[", "]", "{", "}",
    ]
    static let mixed: [UInt8] = [0, 0x20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 27, 28, 29, 30, 31, 0x40, 0x5C, 0x5E, 0x5F, 0x60, 0x7C, 0x7E, 0x7F]

    /// The payload of a corrected data bit stream: nil when a code is invalid. A structured-append
    /// header (M/L U/L at the start, an optional message ID between spaces, then the symbol's
    /// position and the sequence's length as letters A–Z) is taken off and returned apart.
    static func decode(_ bits: [Bool]) -> (bytes: [UInt8], gs1: Bool, eci: Int?, sequence: (index: Int, count: Int)?)? {
        let appended = bits.count >= 10 && bits[0..<10] == [true, true, true, false, true, true, true, true, false, true]
        guard let plain = decodeCodes(bits) else { return nil }
        guard appended else { return (plain.bytes, plain.gs1, plain.eci, nil) }
        var rest = plain.bytes[...]
        if rest.first == 0x20 {
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: 0x20) else { return nil }
            rest = rest[(end + 1)...]
        }
        guard rest.count >= 2, let a = rest.first, let b = rest.dropFirst().first,
            (0x41...0x5A).contains(a), (0x41...0x5A).contains(b), a <= b
        else { return nil }
        return (Array(rest.dropFirst(2)), plain.gs1, plain.eci, (Int(a - 0x41), Int(b - 0x40)))
    }

    static func decodeCodes(_ bits: [Bool]) -> (bytes: [UInt8], gs1: Bool, eci: Int?)? {
        var index = 0
        func read(_ n: Int) -> Int? {
            guard index + n <= bits.count else { return nil }
            var v = 0
            for k in 0..<n { v = v << 1 | (bits[index + k] ? 1 : 0) }
            index += n
            return v
        }
        var out: [UInt8] = []
        var gs1 = false, eci: Int?
        var latched = Mode.upper
        var shifted: Mode?
        /// Reads a Binary Shift's bytes; false when they run out. The last codeword is padded
        /// with ones, and in the Upper, Lower and Mixed modes five ones are a Binary Shift: one
        /// that runs out with nothing but ones from its code on is that padding, the data's end.
        func binaryShift() -> Bool {
            let code = index - 5
            guard var length = read(5) else { return true }
            if length == 0 {
                guard let long = read(11) else { return true }
                length = long + 31
            }
            var bytes: [UInt8] = []
            while bytes.count < length, let byte = read(8) { bytes.append(UInt8(byte)) }
            if bytes.count == length {
                out += bytes
                return true
            }
            guard bits[code...].allSatisfy({ $0 }) else { return false }
            index = bits.count
            return true
        }
        while true {
            let mode = shifted ?? latched
            shifted = nil
            guard let code = read(mode == .digit ? 4 : 5) else { break }
            switch mode {
            case .upper, .lower:
                switch code {
                case 0: shifted = .punct
                case 1: out.append(0x20)
                case 2...27: out.append(UInt8((mode == .upper ? 0x41 : 0x61) + code - 2))
                case 28: if mode == .upper { latched = .lower } else { shifted = .upper }
                case 29: latched = .mixed
                case 30: latched = .digit
                default:
                    guard binaryShift() else { return nil }
                }
            case .mixed:
                switch code {
                case 0: shifted = .punct
                case 1...27: out.append(mixed[code])
                case 28: latched = .lower
                case 29: latched = .upper
                case 30: latched = .punct
                default:
                    guard binaryShift() else { return nil }
                }
            case .punct:
                switch code {
                case 0:
                    guard let n = read(3) else { return out.isEmpty ? nil : (out, gs1, eci) }
                    if n == 0 {
                        if out.isEmpty && !gs1 { gs1 = true } else { out.append(0x1D) }
                    } else if n == 7 {
                        return nil
                    } else {
                        var value = 0
                        for _ in 0..<n {
                            guard let d = read(4), d >= 2, d <= 11 else { return nil }
                            value = value * 10 + d - 2
                        }
                        eci = value
                    }
                case 31: latched = .upper
                default: out += Array(punct[code].utf8)
                }
            case .digit:
                switch code {
                case 0: shifted = .punct
                case 1: out.append(0x20)
                case 2...11: out.append(UInt8(0x30 + code - 2))
                case 12: out.append(0x2C)
                case 13: out.append(0x2E)
                case 14: latched = .upper
                default: shifted = .upper
                }
            }
        }
        return (out, gs1, eci)
    }
}
