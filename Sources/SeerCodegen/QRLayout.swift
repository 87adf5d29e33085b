import SeerQR

/// The module grid of one version: function patterns, then data placement, masking and format bits.
struct Layout {
    let version: Int
    let size: Int
    /// Dark modules of the function patterns.
    var dark: [Bool]
    /// Modules that belong to function patterns (or are reserved for format/version information).
    var reserved: [Bool]

    init(version: Int) {
        self.version = version
        size = version * 4 + 17
        dark = [Bool](repeating: false, count: size * size)
        reserved = dark
        drawFunctionPatterns()
    }

    /// Centres of alignment patterns along each axis.
    static func alignmentPositions(version: Int) -> [Int] { QRSpec.alignmentPositions(version: version) }

    mutating func set(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        reserved[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        // Timing patterns.
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        // Finder patterns with their light separators.
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx
                    let y = cy + dy
                    guard x >= 0, x < size, y >= 0, y < size else { continue }
                    let ring = max(abs(dx), abs(dy))
                    set(x, y, ring != 2 && ring != 4)
                }
            }
        }
        // Alignment patterns, except where they would overlap a finder.
        let positions = Self.alignmentPositions(version: version)
        for (i, cy) in positions.enumerated() {
            for (j, cx) in positions.enumerated() {
                let last = positions.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve format information (written after masking) and the dark module.
        drawFormatBits(0)
        if version >= 7 { drawVersion() }
    }

    /// Format information: level and mask in 5 bits, BCH(15,5) protected, masked with 0x5412.
    static func formatBits(_ level: QRErrorCorrection, mask: Int) -> Int { QRSpec.formatBits(level, mask: mask) }

    mutating func drawFormatBits(_ bits: Int) {
        func bit(_ index: Int) -> Bool { bits >> index & 1 == 1 }
        // Around the top-left finder.
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        // Split between the top-right and bottom-left finders.
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)
    }

    /// Version information (versions 7–40): 6 bits, BCH(18,6) protected, in two 6×3 blocks.
    mutating func drawVersion() {
        let bits = QRSpec.versionBits(version)
        for index in 0..<18 {
            let isDark = bits >> index & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            set(a, b, isDark)
            set(b, a, isDark)
        }
    }

    /// Codewords the version holds: every module not reserved, eight to a codeword.
    var totalCodewords: Int { reserved.lazy.filter { !$0 }.count / 8 }

    func dataCodewords(_ level: QRErrorCorrection) -> Int {
        totalCodewords - QRSpec.eccPerBlock[level.index][version - 1] * QRSpec.blockCount[level.index][version - 1]
    }

    static func maskCondition(_ mask: Int, _ x: Int, _ y: Int) -> Bool { QRSpec.maskCondition(mask, x, y) }

    /// Places the codewords in the two-column zigzag from the bottom right, skipping the vertical timing column.
    func placed(_ codewords: [UInt8]) -> [Bool] {
        var grid = dark
        var bitIndex = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !reserved[y * size + x] {
                    if bitIndex < totalBits {
                        grid[y * size + x] = codewords[bitIndex >> 3] >> (7 - bitIndex & 7) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
        return grid
    }

    func symbol(_ codewords: [UInt8], errorCorrection: QRErrorCorrection, mode: QRMode, mask: Int?) -> QRCode {
        let base = placed(codewords)
        func masked(_ mask: Int) -> [Bool] {
            var layout = self
            layout.drawFormatBits(Self.formatBits(errorCorrection, mask: mask))
            var grid = base
            for y in 0..<size {
                for x in 0..<size {
                    let index = y * size + x
                    if reserved[index] {
                        grid[index] = layout.dark[index]
                    } else if Self.maskCondition(mask, x, y) {
                        grid[index].toggle()
                    }
                }
            }
            return grid
        }
        if let mask {
            return QRCode(version: version, errorCorrection: errorCorrection, mask: mask, mode: mode, modules: masked(mask))
        }
        var best = (mask: 0, penalty: Int.max, grid: [Bool]())
        for candidate in 0..<8 {
            let grid = masked(candidate)
            let score = Penalty.score(grid, size: size)
            if score < best.penalty { best = (candidate, score, grid) }
        }
        return QRCode(version: version, errorCorrection: errorCorrection, mask: best.mask, mode: mode, modules: best.grid)
    }
}

/// The standard's four penalty rules for choosing a mask.
enum Penalty {
    static func score(_ grid: [Bool], size: Int) -> Int {
        var total = 0
        // Rule 1: runs of five or more in a row or column: 3 + (length − 5).
        // Rule 3: 1:1:3:1:1 finder-like patterns with four light modules on one side: 40 each.
        for line in 0..<size {
            for horizontal in [true, false] {
                var run = 0
                var previous = false
                var window = 0
                for step in 0..<size {
                    let value = horizontal ? grid[line * size + step] : grid[step * size + line]
                    if step > 0 && value == previous {
                        run += 1
                    } else {
                        if run >= 5 { total += 3 + run - 5 }
                        run = 1
                        previous = value
                    }
                    window = (window << 1 | (value ? 1 : 0)) & 0x7FF
                    if step >= 10 && (window == 0b000_0101_1101 || window == 0b101_1101_0000) { total += 40 }
                }
                if run >= 5 { total += 3 + run - 5 }
            }
        }
        // Rule 2: 2×2 blocks of one colour: 3 each.
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let value = grid[y * size + x]
                if grid[y * size + x + 1] == value && grid[(y + 1) * size + x] == value && grid[(y + 1) * size + x + 1] == value {
                    total += 3
                }
            }
        }
        // Rule 4: 10 per full 5 % the dark share departs from 50 %.
        let darkCount = grid.lazy.filter { $0 }.count
        let cells = size * size
        let deviation = abs(darkCount * 20 - cells * 10)
        total += deviation / cells * 10
        return total
    }
}
