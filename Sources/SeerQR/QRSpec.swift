import Synchronization

/// QR Code error-correction level: how much of the symbol can be damaged and still read.
public enum QRErrorCorrection: String, Sendable, CaseIterable, Codable {
    /// About 7 % recoverable.
    case low = "L"
    /// About 15 %.
    case medium = "M"
    /// About 25 %.
    case quartile = "Q"
    /// About 30 %.
    case high = "H"

    /// The two bits the format information carries.
    package var formatBits: Int {
        switch self {
        case .low: 1
        case .medium: 0
        case .quartile: 3
        case .high: 2
        }
    }

    /// The level whose format bits are `bits` (0–3).
    package init(formatBits bits: Int) {
        switch bits & 3 {
        case 1: self = .low
        case 0: self = .medium
        case 3: self = .quartile
        default: self = .high
        }
    }

    /// Row in the standard's tables (L, M, Q, H).
    package var index: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }
}

/// The tables and geometry of ISO/IEC 18004 (QR Code model 2) shared by the encoder and the decoder.
package enum QRSpec {
    /// Modules per side of a version (1–40).
    package static func dimension(version: Int) -> Int { 17 + 4 * version }

    /// The version whose side is `dimension` modules, if any.
    package static func version(dimension: Int) -> Int? {
        guard dimension >= 21, dimension <= 177, (dimension - 17) % 4 == 0 else { return nil }
        return (dimension - 17) / 4
    }

    /// Error-correction codewords per block, by level (L, M, Q, H) and version.
    package static let eccPerBlock: [[Int]] = [
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error-correction blocks, by level (L, M, Q, H) and version.
    package static let blockCount: [[Int]] = [
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// How many codeword errors a block may have corrected and still be trusted. The standard keeps
    /// back some check codewords of the smallest symbols for misdecode protection (1-L: 3, 1-M and 2-L:
    /// 2; an odd count leaves one over); the rest correct an error per two.
    package static func correctionLimit(version: Int, _ level: QRErrorCorrection) -> Int {
        let ecc = eccPerBlock[level.index][version - 1]
        var protection = ecc % 2
        if version == 1 && level == .low { protection = 3 }
        if (version == 1 && level == .medium) || (version == 2 && level == .low) { protection = 2 }
        return (ecc - protection) / 2
    }

    /// Centres of alignment patterns along each axis.
    package static func alignmentPositions(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let size = dimension(version: version)
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        return [6] + (0..<count - 1).map { size - 7 - $0 * step }.reversed()
    }

    /// Whether mask pattern `mask` (0–7) inverts the module at column `x`, row `y`.
    @inline(__always)
    package static func maskCondition(_ mask: Int, _ x: Int, _ y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    // MARK: Format and version information

    /// The 15 format bits for a level and mask: 5 data bits, BCH(15,5) protected, masked with 0x5412.
    package static func formatBits(_ level: QRErrorCorrection, mask: Int) -> Int {
        bchFormatCode(level.formatBits << 3 | mask) ^ 0x5412
    }

    /// Five data bits followed by their BCH(15,5) check bits (generator 0x537), before masking: QR
    /// Code's and Micro QR Code's format information (each masks it with its own pattern).
    package static func bchFormatCode(_ data: Int) -> Int {
        var remainder = data
        for _ in 0..<10 { remainder = remainder << 1 ^ (remainder >> 9 & 1) * 0x537 }
        return data << 10 | remainder & 0x3FF
    }

    /// The 18 version bits for versions 7–40: 6 data bits, BCH(18,6) protected.
    package static func versionBits(_ version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 { remainder = remainder << 1 ^ (remainder >> 11 & 1) * 0x1F25 }
        return version << 12 | remainder & 0xFFF
    }

    private static let formatCodes: [(bits: Int, level: QRErrorCorrection, mask: Int)] =
        QRErrorCorrection.allCases.flatMap { level in (0..<8).map { (formatBits(level, mask: $0), level, $0) } }

    /// The level and mask nearest to `bits`, with the Hamming distance (the code's minimum distance
    /// is 7, so up to 3 bit errors decode uniquely).
    package static func decodeFormat(_ bits: Int) -> (level: QRErrorCorrection, mask: Int, distance: Int) {
        var best = formatCodes[0]
        var distance = Int.max
        for code in formatCodes {
            let d = (code.bits ^ bits).nonzeroBitCount
            if d < distance {
                best = code
                distance = d
            }
        }
        return (best.level, best.mask, distance)
    }

    /// The version (7–40) nearest to 18 version bits, with the Hamming distance (minimum distance 8:
    /// up to 3 bit errors decode uniquely).
    package static func decodeVersion(_ bits: Int) -> (version: Int, distance: Int) {
        var best = 7
        var distance = Int.max
        for version in 7...40 {
            let d = (versionBits(version) ^ bits).nonzeroBitCount
            if d < distance {
                best = version
                distance = d
            }
        }
        return (best, distance)
    }

    /// Module positions (x, y) of format bit i (0 = least significant), first copy (around the
    /// top-left finder) and second copy (split beside the other two finders).
    package static func formatPositions(size: Int) -> (first: [(Int, Int)], second: [(Int, Int)]) {
        var first: [(Int, Int)] = []
        for i in 0...5 { first.append((8, i)) }
        first += [(8, 7), (8, 8), (7, 8)]
        for i in 9..<15 { first.append((14 - i, 8)) }
        var second: [(Int, Int)] = []
        for i in 0..<8 { second.append((size - 1 - i, 8)) }
        for i in 8..<15 { second.append((8, size - 15 + i)) }
        return (first, second)
    }

    /// Module positions of version bit i: first copy (the 3-wide, 6-tall block left of the top-right
    /// finder) and second copy (the transposed block above the bottom-left finder).
    package static func versionPositions(size: Int) -> (first: [(Int, Int)], second: [(Int, Int)]) {
        var first: [(Int, Int)] = []
        var second: [(Int, Int)] = []
        for i in 0..<18 {
            let a = size - 11 + i % 3, b = i / 3
            first.append((a, b))
            second.append((b, a))
        }
        return (first, second)
    }

    // MARK: Module layout

    /// A version's layout: which modules are function patterns, and the data modules in placement order.
    package struct Layout: Sendable {
        /// 1–40.
        package let version: Int
        /// Modules per side.
        package let size: Int
        /// Function-pattern and reserved (format/version) modules, row-major.
        package let function: [Bool]
        /// Indices (y·size + x) of the data modules in the order codeword bits are placed: the
        /// two-column zigzag from the bottom right, skipping the vertical timing column.
        package let dataOrder: [Int32]

        init(version: Int) {
            self.version = version
            let size = QRSpec.dimension(version: version)
            self.size = size
            var function = [Bool](repeating: false, count: size * size)
            func mark(_ x: Int, _ y: Int) {
                if x >= 0 && y >= 0 && x < size && y < size { function[y * size + x] = true }
            }
            for i in 0..<size {
                mark(6, i)
                mark(i, 6)
            }
            for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                for dy in -4...4 { for dx in -4...4 { mark(cx + dx, cy + dy) } }
            }
            let positions = QRSpec.alignmentPositions(version: version)
            for (i, cy) in positions.enumerated() {
                for (j, cx) in positions.enumerated() {
                    let last = positions.count - 1
                    if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                    for dy in -2...2 { for dx in -2...2 { mark(cx + dx, cy + dy) } }
                }
            }
            let format = QRSpec.formatPositions(size: size)
            for (x, y) in format.first + format.second { mark(x, y) }
            mark(8, size - 8)
            if version >= 7 {
                let v = QRSpec.versionPositions(size: size)
                for (x, y) in v.first + v.second { mark(x, y) }
            }
            self.function = function
            var order: [Int32] = []
            order.reserveCapacity(size * size)
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                let upward = (right + 1) & 2 == 0
                for step in 0..<size {
                    let y = upward ? size - 1 - step : step
                    for x in [right, right - 1] where !function[y * size + x] { order.append(Int32(y * size + x)) }
                }
                right -= 2
            }
            self.dataOrder = order
        }

        /// Codewords the version holds (remainder bits dropped).
        package var totalCodewords: Int { dataOrder.count / 8 }

        /// Data codewords at `level`.
        package func dataCodewords(_ level: QRErrorCorrection) -> Int {
            totalCodewords - QRSpec.eccPerBlock[level.index][version - 1] * QRSpec.blockCount[level.index][version - 1]
        }
    }

    private static let layouts = Mutex<[Int: Layout]>([:])

    /// The layout of a version (computed once, then shared).
    package static func layout(version: Int) -> Layout {
        precondition((1...40).contains(version), "QR versions run from 1 to 40")
        if let cached = layouts.withLock({ $0[version] }) { return cached }
        let made = Layout(version: version)
        layouts.withLock { $0[version] = made }
        return made
    }

    /// The block structure of a version and level: how many data codewords each block holds (short
    /// blocks first) and the check codewords per block.
    package static func blocks(version: Int, _ level: QRErrorCorrection) -> (dataLengths: [Int], ecc: Int) {
        let count = blockCount[level.index][version - 1]
        let ecc = eccPerBlock[level.index][version - 1]
        let total = layout(version: version).totalCodewords
        let longBlocks = total % count
        let shortData = total / count - ecc
        return ((0..<count).map { shortData + ($0 >= count - longBlocks ? 1 : 0) }, ecc)
    }
}
