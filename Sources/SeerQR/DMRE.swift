import Foundation
import SeerImage

/// DataMatrix Rectangular Extension (DMRE, ISO/IEC 21471): ECC 200 symbols in eighteen rectangular
/// sizes besides the six of ISO/IEC 16022, which libdmtx does not know. Their modules are placed, and
/// their codewords checked and decoded, exactly as ECC 200's; only the sizes and the data regions
/// differ.
package enum DMRE {
    /// One DMRE size: the symbol's modules, the size of each data region inside its own finder and
    /// clock tracks, and the codewords (Table 7 of ISO/IEC 21471).
    struct Size: Sendable, Equatable, CustomStringConvertible {
        let rows: Int
        let columns: Int
        let regionRows: Int
        let regionColumns: Int
        let dataWords: Int
        /// Error words of the whole symbol (every block has `errorWords / blocks`).
        let errorWords: Int
        let blocks: Int

        var regionsDown: Int { rows / (regionRows + 2) }
        var regionsAcross: Int { columns / (regionColumns + 2) }
        /// The mapping matrix: the data regions side by side, without their finders and clocks.
        var mappingRows: Int { regionsDown * regionRows }
        var mappingColumns: Int { regionsAcross * regionColumns }
        var totalWords: Int { dataWords + errorWords }
        var description: String { "\(rows)x\(columns)" }

        /// The symbol module (row, column) of mapping-matrix module (row, column).
        func symbolModule(_ row: Int, _ column: Int) -> (Int, Int) {
            (row / regionRows * (regionRows + 2) + 1 + row % regionRows,
             column / regionColumns * (regionColumns + 2) + 1 + column % regionColumns)
        }

        /// Whether symbol module (row, column) belongs to a region's finder (its solid left column
        /// and bottom row) or clock track (its alternating top row and right column), and if so
        /// whether it is dark; nil for a data module.
        func fixed(_ row: Int, _ column: Int) -> Bool? {
            let h = regionRows + 2, w = regionColumns + 2
            let r = row % h, c = column % w
            if r == h - 1 || c == 0 { return true }
            if r == 0 { return c % 2 == 0 }
            if c == w - 1 { return r % 2 == 1 }
            return nil
        }

        /// The data words of block `b`: blocks take the data words in turn.
        func dataWords(ofBlock b: Int) -> Int { (dataWords - b + blocks - 1) / blocks }

        /// A rectangle: one data region down, `across` side by side, one block.
        static func rectangle(_ rows: Int, _ columns: Int, across: Int, data: Int, error: Int) -> Size {
            Size(rows: rows, columns: columns, regionRows: rows - 2, regionColumns: columns / across - 2, dataWords: data, errorWords: error, blocks: 1)
        }

        /// A square of `side` modules: one data region up to 26x26, 2×2 from 32x32, 4×4 from 64x64,
        /// 6×6 from 120x120.
        static func square(_ side: Int, data: Int, error: Int, blocks: Int) -> Size {
            let region = side / (side >= 120 ? 6 : side >= 64 ? 4 : side >= 32 ? 2 : 1) - 2
            return Size(rows: side, columns: side, regionRows: region, regionColumns: region, dataWords: data, errorWords: error, blocks: blocks)
        }
    }

    /// Every rectangle of ECC 200, by rows then columns: ISO/IEC 16022's six and the eighteen
    /// ISO/IEC 21471 (DMRE) adds (Table 7 of each).
    private static let rectangles: [(size: Size, dmre: Bool)] = [
        (.rectangle(8, 18, across: 1, data: 5, error: 7), dmre: false),
        (.rectangle(8, 32, across: 2, data: 10, error: 11), dmre: false),
        (.rectangle(8, 48, across: 2, data: 18, error: 15), dmre: true),
        (.rectangle(8, 64, across: 4, data: 24, error: 18), dmre: true),
        (.rectangle(8, 80, across: 4, data: 32, error: 22), dmre: true),
        (.rectangle(8, 96, across: 4, data: 38, error: 28), dmre: true),
        (.rectangle(8, 120, across: 6, data: 49, error: 32), dmre: true),
        (.rectangle(8, 144, across: 6, data: 63, error: 36), dmre: true),
        (.rectangle(12, 26, across: 1, data: 16, error: 14), dmre: false),
        (.rectangle(12, 36, across: 2, data: 22, error: 18), dmre: false),
        (.rectangle(12, 64, across: 4, data: 43, error: 27), dmre: true),
        (.rectangle(12, 88, across: 4, data: 64, error: 36), dmre: true),
        (.rectangle(16, 36, across: 2, data: 32, error: 24), dmre: false),
        (.rectangle(16, 48, across: 2, data: 49, error: 28), dmre: false),
        (.rectangle(16, 64, across: 4, data: 62, error: 36), dmre: true),
        (.rectangle(20, 36, across: 2, data: 44, error: 28), dmre: true),
        (.rectangle(20, 44, across: 2, data: 56, error: 34), dmre: true),
        (.rectangle(20, 64, across: 4, data: 84, error: 42), dmre: true),
        (.rectangle(22, 48, across: 2, data: 72, error: 38), dmre: true),
        (.rectangle(24, 48, across: 2, data: 80, error: 41), dmre: true),
        (.rectangle(24, 64, across: 4, data: 108, error: 46), dmre: true),
        (.rectangle(26, 40, across: 2, data: 70, error: 38), dmre: true),
        (.rectangle(26, 48, across: 2, data: 90, error: 42), dmre: true),
        (.rectangle(26, 64, across: 4, data: 118, error: 50), dmre: true),
    ]

    /// The squares of ISO/IEC 16022 (Table 7), 10x10 to 144x144: 144x144 takes ten blocks, the first
    /// eight of 156 data words and the last two of 155.
    private static let squares: [Size] = [
        .square(10, data: 3, error: 5, blocks: 1),
        .square(12, data: 5, error: 7, blocks: 1),
        .square(14, data: 8, error: 10, blocks: 1),
        .square(16, data: 12, error: 12, blocks: 1),
        .square(18, data: 18, error: 14, blocks: 1),
        .square(20, data: 22, error: 18, blocks: 1),
        .square(22, data: 30, error: 20, blocks: 1),
        .square(24, data: 36, error: 24, blocks: 1),
        .square(26, data: 44, error: 28, blocks: 1),
        .square(32, data: 62, error: 36, blocks: 1),
        .square(36, data: 86, error: 42, blocks: 1),
        .square(40, data: 114, error: 48, blocks: 1),
        .square(44, data: 144, error: 56, blocks: 1),
        .square(48, data: 174, error: 68, blocks: 1),
        .square(52, data: 204, error: 84, blocks: 2),
        .square(64, data: 280, error: 112, blocks: 2),
        .square(72, data: 368, error: 144, blocks: 4),
        .square(80, data: 456, error: 192, blocks: 4),
        .square(88, data: 576, error: 224, blocks: 4),
        .square(96, data: 696, error: 272, blocks: 4),
        .square(104, data: 816, error: 336, blocks: 6),
        .square(120, data: 1050, error: 408, blocks: 6),
        .square(132, data: 1304, error: 496, blocks: 8),
        .square(144, data: 1558, error: 620, blocks: 10),
    ]

    /// The eighteen DMRE sizes, rows × columns.
    static let sizes: [Size] = rectangles.filter { $0.dmre }.map { $0.size }

    /// The ECC 200 sizes of ISO/IEC 16022: the twenty-four squares, then the six rectangles.
    static let squareAndRectangleSizes: [Size] = squares + rectangles.filter { !$0.dmre }.map { $0.size }

    /// A list of sizes with each one's codeword placement and finder and clock modules, made once.
    struct Table: Sendable {
        let sizes: [Size]
        /// Each size's codeword placement over its mapping matrix (row by row): codeword × 8 + bit
        /// (0 the most significant), or −1 for a module no codeword takes.
        let placements: [[Int]]
        /// Each size's finder and clock modules: (row, column, dark).
        let fixedModules: [[(Int, Int, Bool)]]

        init(_ sizes: [Size]) {
            self.sizes = sizes
            placements = sizes.map { DMRE.placement(rows: $0.mappingRows, columns: $0.mappingColumns) }
            fixedModules = sizes.map { s in
                var list: [(Int, Int, Bool)] = []
                for r in 0..<s.rows {
                    for c in 0..<s.columns {
                        if let dark = s.fixed(r, c) { list.append((r, c, dark)) }
                    }
                }
                return list
            }
        }

        /// The codewords of a symbol of size `sizes[index]` from its modules (row by row, true = dark).
        func codewords(_ dark: [Bool], size index: Int) -> [UInt8] {
            let s = sizes[index]
            var words = [UInt8](repeating: 0, count: s.totalWords)
            let map = placements[index]
            for r in 0..<s.mappingRows {
                for c in 0..<s.mappingColumns {
                    let v = map[r * s.mappingColumns + c]
                    guard v >= 0, v >> 3 < words.count else { continue }
                    let (sr, sc) = s.symbolModule(r, c)
                    if dark[sr * s.columns + sc] { words[v >> 3] |= UInt8(0x80 >> (v & 7)) }
                }
            }
            return words
        }
    }

    /// The DMRE sizes, and ISO/IEC 16022's squares and rectangles (read where libdmtx reads none).
    static let table = Table(sizes)
    static let squareAndRectangleTable = Table(squareAndRectangleSizes)

    /// Each DMRE size's codeword placement over its mapping matrix.
    static var placements: [[Int]] { table.placements }

    /// ECC 200's module placement (ISO/IEC 16022, Annex F) over a mapping matrix of `rows` ×
    /// `columns`: codewords in the eight-module "utah" shape along diagonal sweeps, with the four
    /// special corner shapes, and modules that cross an edge wrapping to the other side (ISO/IEC 21471
    /// keeps the rules; two of its sizes need the wrap below the bottom row). Each module holds
    /// codeword × 8 + bit (0 the most significant), row by row, or −1 where no codeword reaches.
    package static func placement(rows nrow: Int, columns ncol: Int) -> [Int] {
        var map = [Int](repeating: -1, count: nrow * ncol)
        func module(_ row: Int, _ column: Int, _ word: Int, _ bit: Int) {
            var row = row, column = column
            if row < 0 {
                row += nrow
                column += 4 - ((nrow + 4) % 8)
            }
            if column < 0 {
                column += ncol
                row += 4 - ((ncol + 4) % 8)
            }
            // A mapping matrix of 8k rows whose columns leave 4 over a multiple of 8 (26x40, 26x48)
            // wraps a module that crosses the left edge below the last row: it continues at the top.
            if row >= nrow { row -= nrow }
            guard row >= 0, row < nrow, column >= 0, column < ncol else { return }
            map[row * ncol + column] = word * 8 + bit
        }
        func shape(_ cells: [(Int, Int)], _ word: Int) {
            for (bit, cell) in cells.enumerated() { module(cell.0, cell.1, word, bit) }
        }
        func utah(_ r: Int, _ c: Int, _ word: Int) {
            shape([(r - 2, c - 2), (r - 2, c - 1), (r - 1, c - 2), (r - 1, c - 1), (r - 1, c), (r, c - 2), (r, c - 1), (r, c)], word)
        }
        var word = 0, row = 4, column = 0
        repeat {
            if row == nrow && column == 0 {
                shape([(nrow - 1, 0), (nrow - 1, 1), (nrow - 1, 2), (0, ncol - 2), (0, ncol - 1), (1, ncol - 1), (2, ncol - 1), (3, ncol - 1)], word)
                word += 1
            }
            if row == nrow - 2 && column == 0 && ncol % 4 != 0 {
                shape([(nrow - 3, 0), (nrow - 2, 0), (nrow - 1, 0), (0, ncol - 4), (0, ncol - 3), (0, ncol - 2), (0, ncol - 1), (1, ncol - 1)], word)
                word += 1
            }
            if row == nrow - 2 && column == 0 && ncol % 8 == 4 {
                shape([(nrow - 3, 0), (nrow - 2, 0), (nrow - 1, 0), (0, ncol - 2), (0, ncol - 1), (1, ncol - 1), (2, ncol - 1), (3, ncol - 1)], word)
                word += 1
            }
            if row == nrow + 4 && column == 2 && ncol % 8 == 0 {
                shape([(nrow - 1, 0), (nrow - 1, ncol - 1), (0, ncol - 3), (0, ncol - 2), (0, ncol - 1), (1, ncol - 3), (1, ncol - 2), (1, ncol - 1)], word)
                word += 1
            }
            // Up and to the right.
            repeat {
                if row < nrow && column >= 0 && map[row * ncol + column] < 0 {
                    utah(row, column, word)
                    word += 1
                }
                row -= 2
                column += 2
            } while row >= 0 && column < ncol
            row += 1
            column += 3
            // Down and to the left.
            repeat {
                if row >= 0 && column < ncol && map[row * ncol + column] < 0 {
                    utah(row, column, word)
                    word += 1
                }
                row += 2
                column -= 2
            } while row < nrow && column >= 0
            row += 3
            column += 1
        } while row < nrow || column < ncol
        return map
    }

    /// The codewords of a DMRE symbol of size `sizes[index]` from its modules (row by row, true = dark).
    static func codewords(_ dark: [Bool], size index: Int) -> [UInt8] { table.codewords(dark, size: index) }

    /// Corrects the blocks of `codewords` (data words then error words, interleaved), checks that
    /// every syndrome is zero and decodes the data strictly; nil when any block is beyond correction
    /// or the data does not decode.
    static func decode(_ codewords: [UInt8], size s: Size) -> (stream: DataMatrixStream, codewords: [UInt8], corrected: Int)? {
        guard codewords.count == s.totalWords, s.errorWords % s.blocks == 0 else { return nil }
        var words = codewords
        let perBlock = s.errorWords / s.blocks
        var corrected = 0
        for b in 0..<s.blocks {
            let dataIndices = (0..<s.dataWords(ofBlock: b)).map { b + $0 * s.blocks }
            let errorIndices = (0..<perBlock).map { s.dataWords + b + $0 * s.blocks }
            let indices = dataIndices + errorIndices
            var block = indices.map { Int(words[$0]) }
            guard let n = FieldReedSolomon.correct(&block, checkCount: perBlock, field: .gf256) else { return nil }
            corrected += n
            for (i, index) in indices.enumerated() { words[index] = UInt8(block[i]) }
        }
        let sizes = (0..<s.blocks).map { s.dataWords(ofBlock: $0) }
        guard DataMatrixCheck.isValid(words, dataWords: s.dataWords, errorWordsPerBlock: perBlock, dataSizes: sizes),
            case .success(let stream) = DataMatrixStream.decode(Array(words[0..<s.dataWords]))
        else { return nil }
        return (stream, words, corrected)
    }
}

/// One DMRE symbol read: its data, its size and its outline (top-left, top-right, bottom-right,
/// bottom-left as the symbol reads; the finder's corner is the bottom-left).
struct DMRERead {
    var stream: DataMatrixStream
    var codewords: [UInt8]
    var size: DMRE.Size
    var corners: [Point]
    /// Pixels per module.
    var module: Double
}

/// Finds and reads DMRE symbols in a grey image and its two-level version.
///
/// A symbol's dark modules touch each other through its finder, so it is one connected region of
/// dark pixels; regions that are elongated like a DMRE symbol (its columns 1.5 to 18 times its
/// rows), about half dark and big enough are outlined by their convex hull; where libdmtx read
/// nothing, square regions too, for ECC 200's own sizes. The finder's two solid
/// sides and the clock tracks' dark modules lie on the hull's four longest sides, whose lines meet at
/// the symbol's corners. Each corner is tried as the finder's, each size by how well its finder and
/// clock modules (those of every data region) match the image, and the best are sampled through the
/// projective map of the corners and decoded.
struct DMRELocator {
    let gray: GrayImage
    let bin: BinaryImage
    /// The least fraction of finder and clock modules that must match a size.
    static let minimumScore = 0.85
    /// Sizes that come near ``minimumScore`` (at least this score, the best few of an outline) are
    /// refined at a second look (``readNearMisses(_:tables:log:)``).
    static let nearScore = 0.6
    static let nearMisses = 6
    /// Least darker-to-lighter contrast (grey levels) between the finder's and the clock's modules.
    static let minimumContrast = 24.0

    /// A connected dark region: its pixel runs and moments.
    struct Blob {
        var runs: [(y: Int32, x0: Int32, x1: Int32)] = []
        var count = 0.0
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        var centre: Point { Point(x: sx / count, y: sy / count) }
    }

    /// The outlines (four corners in order around) of dark regions shaped like a DMRE symbol, largest
    /// first, at most `limit`.
    ///
    /// With `squares`, regions about as long as wide are outlined too (ECC 200's squares), by the
    /// longest edge of their hull rather than their axis of inertia, which a square lacks.
    func candidates(limit: Int = 8, minimumSide: Double = 9, squares: Bool = false, log: ((String) -> Void)? = nil) -> [[Point]] {
        let t0 = log == nil ? 0 : ReadSession.cpuMilliseconds()
        let w = bin.width, h = bin.height
        guard w >= 16, h >= 8 else { return [] }
        // Dark runs row by row, joined into eight-connected regions (union–find over runs), in
        // buffers of the most runs the image can hold.
        let capacity = (w + 1) / 2 * h
        let runY = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let runX0 = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let runX1 = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let parent = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        defer {
            runY.deallocate()
            runX0.deallocate()
            runX1.deallocate()
            parent.deallocate()
        }
        @inline(__always) func find(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                let up = parent[Int(parent[Int(i)])]
                parent[Int(i)] = up
                i = up
            }
            return i
        }
        var runs = 0
        bin.bits.withUnsafeBufferPointer { bits in
            guard let base = bits.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            var previousStart = 0, previousEnd = 0
            for y in 0..<h {
                let rowStart = runs
                let line = base + y * w, lineRaw = raw + y * w
                var x = 0
                while x < w {
                    // Eight pixels at a time (the pixels are bytes 0 or 1): the first dark one is the
                    // word's lowest set byte, the first light one after it the lowest set byte of the
                    // word flipped.
                    while x + 8 <= w {
                        let v = UInt64(littleEndian: lineRaw.loadUnaligned(fromByteOffset: x, as: UInt64.self))
                        if v == 0 {
                            x += 8
                        } else {
                            x += v.trailingZeroBitCount >> 3
                            break
                        }
                    }
                    while x < w && line[x] == 0 { x += 1 }
                    guard x < w else { break }
                    let x0 = x
                    while x + 8 <= w {
                        let v = UInt64(littleEndian: lineRaw.loadUnaligned(fromByteOffset: x, as: UInt64.self)) ^ 0x0101_0101_0101_0101
                        if v == 0 {
                            x += 8
                        } else {
                            x += v.trailingZeroBitCount >> 3
                            break
                        }
                    }
                    while x < w && line[x] != 0 { x += 1 }
                    let index = Int32(runs)
                    runY[runs] = Int32(y)
                    runX0[runs] = Int32(x0)
                    runX1[runs] = Int32(x)
                    parent[runs] = index
                    runs += 1
                    // Eight-connected to the runs above that overlap [x0 − 1, x].
                    var j = previousStart
                    while j < previousEnd && Int(runX1[j]) < x0 { j += 1 }
                    var root = index
                    while j < previousEnd && Int(runX0[j]) <= x {
                        let other = find(Int32(j))
                        if other != root {
                            let (low, high) = other < root ? (other, root) : (root, other)
                            parent[Int(high)] = low
                            root = low
                        }
                        j += 1
                    }
                    if j - 1 > previousStart { previousStart = j - 1 }
                }
                previousStart = rowStart
                previousEnd = runs
            }
        }
        let t1 = log == nil ? 0 : ReadSession.cpuMilliseconds()
        // Pixels, runs and bounds by region (integers); moments only for regions that could be a
        // symbol: big enough (the shortest DMRE side, 36 modules, at 1.5 pixels or more), and with more runs than one and a half times its long side has pixels
        // (a symbol of R rows crosses each pixel row in about R / 4 runs per module row, two or
        // more; a solid blot or a line of text in far fewer).
        let blobOf = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, runs))
        blobOf.initialize(repeating: -1, count: max(1, runs))
        defer { blobOf.deallocate() }
        var pixels: [Int] = [], runCount: [Int] = [], minX: [Int32] = [], maxX: [Int32] = [], minY: [Int32] = [], maxY: [Int32] = []
        pixels.reserveCapacity(runs)
        runCount.reserveCapacity(runs)
        minX.reserveCapacity(runs)
        maxX.reserveCapacity(runs)
        minY.reserveCapacity(runs)
        maxY.reserveCapacity(runs)
        do {
            for i in 0..<runs {
                let root = Int(find(Int32(i)))
                var b = Int(blobOf[root])
                if b < 0 {
                    b = pixels.count
                    blobOf[root] = Int32(b)
                    pixels.append(0)
                    runCount.append(0)
                    minX.append(runX0[i])
                    maxX.append(runX1[i])
                    minY.append(runY[i])
                    maxY.append(runY[i])
                }
                blobOf[i] = Int32(b)
                pixels[b] += Int(runX1[i] - runX0[i])
                runCount[b] += 1
                if runX0[i] < minX[b] { minX[b] = runX0[i] }
                if runX1[i] > maxX[b] { maxX[b] = runX1[i] }
                maxY[b] = runY[i]
            }
        }
        let least = Int(minimumSide * minimumSide * 1.5 * 0.3)
        var plausible = [Int32](repeating: -1, count: pixels.count)
        var moments: [Blob] = []
        for b in 0..<pixels.count where pixels[b] >= least {
            let bw = Int(maxX[b] - minX[b]), bh = Int(maxY[b] - minY[b]) + 1
            guard Double(min(bw, bh)) >= minimumSide * 0.7, Double(max(bw, bh)) >= (squares ? 1.5 : 4) * minimumSide, 2 * runCount[b] >= 3 * max(bw, bh) else { continue }
            plausible[b] = Int32(moments.count)
            moments.append(Blob())
        }
        for i in 0..<runs {
            let m = Int(plausible[Int(blobOf[i])])
            guard m >= 0 else { continue }
            let y = Double(runY[i]) + 0.5, x0 = Double(runX0[i]), x1 = Double(runX1[i])
            let n = x1 - x0
            // Pixel centres x0 + 0.5 … x1 − 0.5.
            let sumX = n * (x0 + x1) / 2
            moments[m].count += n
            moments[m].sx += sumX
            moments[m].sy += n * y
            moments[m].sxx += (x1 * x1 * x1 - x0 * x0 * x0) / 3 - n / 12
            moments[m].syy += n * y * y
            moments[m].sxy += y * sumX
        }
        let blobIndex = (0..<pixels.count).filter { plausible[$0] >= 0 }
        let count = moments.map(\.count), sx = moments.map(\.sx), sy = moments.map(\.sy)
        let sxx = moments.map(\.sxx), syy = moments.map(\.syy), sxy = moments.map(\.sxy)
        func blob(_ b: Int) -> Blob { moments[b] }
        // Regions of the right shape.
        struct Shaped {
            var index: Int
            var area: Double
            var width: Double
            var axis: Point
            /// Too near a square for its axis of inertia to follow its sides.
            var square: Bool
        }
        var shaped: [Shaped] = []
        for b in 0..<count.count {
            let n = count[b]
            let mx = sx[b] / n, my = sy[b] / n
            let cxx = sxx[b] / n - mx * mx, cyy = syy[b] / n - my * my, cxy = sxy[b] / n - mx * my
            let tr = cxx + cyy, det = cxx * cyy - cxy * cxy
            let disc = max(0, tr * tr / 4 - det).squareRoot()
            let l1 = tr / 2 + disc, l2 = max(0, tr / 2 - disc)
            // A uniformly covered rectangle of L × W has variances L²/12 and W²/12.
            let length = (12 * l1).squareRoot(), width = (12 * l2).squareRoot()
            guard width >= minimumSide, length >= (squares ? 1 : 1.4) * width, length <= 24 * width else { continue }
            // A square region that reaches the image's edge has lost its quiet zone, and likely part
            // of itself.
            let i = blobIndex[b]
            if length < 1.4 * width && (minX[i] == 0 || minY[i] == 0 || Int(maxX[i]) >= w || Int(maxY[i]) >= h - 1) { continue }
            let fill = n / (length * width)
            guard fill >= 0.3, fill <= 0.9 else { continue }
            let angle = 0.5 * atan2(2 * cxy, cxx - cyy)
            shaped.append(Shaped(index: b, area: length * width, width: width, axis: Point(x: cos(angle), y: sin(angle)), square: length < 1.4 * width))
        }
        let t2 = log == nil ? 0 : ReadSession.cpuMilliseconds()
        log?("dmre: \(runs) runs in \(t1 - t0) ms, \(pixels.count) regions (\(moments.count) plausible) in \(t2 - t1) ms, \(shaped.count) shaped")
        guard !shaped.isEmpty else { return [] }
        shaped.sort { $0.area > $1.area }
        shaped = Array(shaped.prefix(limit))
        // The runs of the chosen regions (slot k: shaped[k]) and of the small regions near them.
        var slot = [Int32](repeating: -1, count: pixels.count)
        for (k, c) in shaped.enumerated() { slot[blobIndex[c.index]] = Int32(k) }
        var runsOf = [[(y: Int32, x0: Int32, x1: Int32)]](repeating: [], count: shaped.count)
        for i in 0..<runs {
            let k = Int(slot[Int(blobOf[i])])
            if k >= 0 { runsOf[k].append((runY[i], runX0[i], runX1[i])) }
        }
        // A square's axis of inertia points anywhere: its sides run along its hull's tightest
        // bounding rectangle instead. Along an axis at 45° to them, the extent below would reach
        // far past the sides and take in specks around the symbol.
        for k in shaped.indices where shaped[k].square {
            if let axis = Self.tightestAxis(Self.convexHull(Self.hullPoints(runsOf[k]))) { shaped[k].axis = axis }
        }
        var extents: [(lowU: Double, highU: Double, lowV: Double, highV: Double)] = []
        for (k, c) in shaped.enumerated() {
            let centre = blob(c.index).centre, axis = c.axis, across = Point(x: -axis.y, y: axis.x)
            var e = (lowU: Double.infinity, highU: -Double.infinity, lowV: Double.infinity, highV: -Double.infinity)
            for r in runsOf[k] {
                let y = Double(r.y) + 0.5 - centre.y
                for x in [Double(r.x0) - centre.x, Double(r.x1) - centre.x] {
                    let u = x * axis.x + y * axis.y, v = x * across.x + y * across.y
                    e = (min(e.lowU, u), max(e.highU, u), min(e.lowV, v), max(e.highV, v))
                }
            }
            extents.append(e)
        }
        // A clock track's dark module may touch no other dark module: small regions just outside a
        // region's extent (by up to 0.7 of the largest module a DMRE symbol of its width can have,
        // the width over 8 rows) belong to it.
        var joined = [Int32](repeating: -1, count: pixels.count)
        var anyJoined = false
        for b in 0..<pixels.count where slot[b] < 0 {
            for (k, c) in shaped.enumerated() {
                let largest = c.width / 8
                guard Double(pixels[b]) <= 4 * largest * largest else { continue }
                let centre = blob(c.index).centre, axis = c.axis, across = Point(x: -axis.y, y: axis.x)
                let x = Double(minX[b] + maxX[b]) / 2 - centre.x, y = Double(minY[b] + maxY[b] + 1) / 2 - centre.y
                let u = x * axis.x + y * axis.y, v = x * across.x + y * across.y
                let e = extents[k], margin = 0.7 * largest
                guard u > e.lowU - margin, u < e.highU + margin, v > e.lowV - margin, v < e.highV + margin else { continue }
                // The first (largest) region it lies beside takes it.
                joined[b] = Int32(k)
                anyJoined = true
                break
            }
        }
        // The regions' own runs, before small regions joined them.
        let ownRuns = runsOf
        if anyJoined {
            for i in 0..<runs {
                let k = Int(joined[Int(blobOf[i])])
                if k >= 0 { runsOf[k].append((runY[i], runX0[i], runX1[i])) }
            }
        }
        return shaped.enumerated().flatMap { k, c -> [[Point]] in
            var b = blob(c.index)
            func outlines(_ runs: [(y: Int32, x0: Int32, x1: Int32)]) -> [[Point]?] {
                b.runs = runs
                // A square along its tightest rectangle's axis, then its longest hull edge's.
                var outlines = [Self.outline(b, centre: b.centre, axis: c.axis)] + (c.square ? [Self.outline(b, centre: b.centre, axis: nil)] : [])
                // A symbol seen at a slant is a sheared quadrilateral whose axis of inertia runs along
                // a diagonal, not a side: the largest quadrilateral on its hull's corners too, after
                // the outline along the axis (when that differs from it by more than a pixel or two).
                // So too for a square, whose longest hull edge can be a corner's bevel when its sides,
                // bent or seen at a slant across the pixel grid, break into short edges.
                outlines.append(Self.outline(b, centre: b.centre, axis: nil, largest: true))
                return outlines
            }
            // A speck beside the symbol taken for a lone clock module pushes a corner out: the
            // region's own outlines come after, when small regions joined it.
            let all = outlines(runsOf[k]) + (runsOf[k].count > ownRuns[k].count ? outlines(ownRuns[k]) : [])
            var distinct: [[Point]] = []
            for case let o? in all {
                // The same corners may come in another order around: compared as sets of points.
                let same = distinct.contains { d in !o.contains { p in !d.contains { ($0.x - p.x) * ($0.x - p.x) + ($0.y - p.y) * ($0.y - p.y) <= 4 } } }
                if !same { distinct.append(o) }
            }
            return distinct
        }
    }

    /// The corners of the pixels of `runs` that can be on their convex hull: each row's leftmost and
    /// rightmost.
    static func hullPoints(_ runs: [(y: Int32, x0: Int32, x1: Int32)]) -> [Point] {
        guard let top = runs.map(\.y).min(), let bottom = runs.map(\.y).max() else { return [] }
        var left = [Int32](repeating: .max, count: Int(bottom - top) + 1), right = [Int32](repeating: .min, count: left.count)
        for r in runs {
            let i = Int(r.y - top)
            left[i] = min(left[i], r.x0)
            right[i] = max(right[i], r.x1)
        }
        var points: [Point] = []
        points.reserveCapacity(left.count * 4)
        for i in 0..<left.count where left[i] <= right[i] {
            let y = Double(Int(top) + i), x0 = Double(left[i]), x1 = Double(right[i])
            points += [Point(x: x0, y: y), Point(x: x1, y: y), Point(x: x0, y: y + 1), Point(x: x1, y: y + 1)]
        }
        return points
    }

    /// The direction of the side of the smallest rectangle around `hull` (one of whose sides lies
    /// along an edge of the hull), or nil for a hull of fewer than three corners.
    static func tightestAxis(_ hull: [Point]) -> Point? {
        guard hull.count >= 3 else { return nil }
        var best: (area: Double, axis: Point)?
        for i in hull.indices {
            let a = hull[i], c = hull[(i + 1) % hull.count]
            let length = ((c.x - a.x) * (c.x - a.x) + (c.y - a.y) * (c.y - a.y)).squareRoot()
            guard length > 0 else { continue }
            let u = Point(x: (c.x - a.x) / length, y: (c.y - a.y) / length)
            var lowU = Double.infinity, highU = -Double.infinity, lowV = Double.infinity, highV = -Double.infinity
            for p in hull {
                let pu = p.x * u.x + p.y * u.y, pv = -p.x * u.y + p.y * u.x
                lowU = min(lowU, pu); highU = max(highU, pu); lowV = min(lowV, pv); highV = max(highV, pv)
            }
            let area = (highU - lowU) * (highV - lowV)
            if area < (best?.area ?? .infinity) { best = (area, u) }
        }
        return best?.axis
    }

    /// The four corners of a region's outline, in order around: the crossings of the lines of the
    /// longest hull edge on each of its four sides (along and across `axis`, or when nil the hull's
    /// longest edge, a side of the finder's L).
    /// With `largest`, the outline is instead the largest quadrilateral whose corners are the
    /// hull's (a symbol seen at a slant, whose bumpy clock sides make no one long edge).
    static func outline(_ b: Blob, centre: Point, axis: Point?, largest: Bool = false) -> [Point]? {
        let hull = convexHull(hullPoints(b.runs))
        guard hull.count >= 4 else { return nil }
        if largest { return largestQuadrilateral(hull) }
        var longest = (length: 0.0, direction: Point(x: 1, y: 0))
        if axis == nil {
            for i in 0..<hull.count {
                let a = hull[i], c = hull[(i + 1) % hull.count]
                let length = ((c.x - a.x) * (c.x - a.x) + (c.y - a.y) * (c.y - a.y)).squareRoot()
                if length > longest.length { longest = (length, Point(x: (c.x - a.x) / length, y: (c.y - a.y) / length)) }
            }
        }
        let axis = axis ?? longest.direction
        let across = Point(x: -axis.y, y: axis.x)
        func dot(_ a: Point, _ b: Point) -> Double { a.x * b.x + a.y * b.y }
        var halfLength = 0.0, halfWidth = 0.0
        for p in hull {
            let d = Point(x: p.x - centre.x, y: p.y - centre.y)
            halfLength = max(halfLength, abs(dot(d, axis)))
            halfWidth = max(halfWidth, abs(dot(d, across)))
        }
        guard halfLength > 0, halfWidth > 0 else { return nil }
        // Sides: 0 along +axis, 1 along +across, 2 along −axis, 3 along −across.
        var best: [(length: Double, a: Point, b: Point)?] = [nil, nil, nil, nil]
        for i in 0..<hull.count {
            let a = hull[i], c = hull[(i + 1) % hull.count]
            let mid = Point(x: (a.x + c.x) / 2 - centre.x, y: (a.y + c.y) / 2 - centre.y)
            let u = dot(mid, axis) / halfLength, v = dot(mid, across) / halfWidth
            let side = abs(u) > abs(v) ? (u > 0 ? 0 : 2) : (v > 0 ? 1 : 3)
            let dx = c.x - a.x, dy = c.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            let direction = Point(x: dx / length, y: dy / length)
            // An edge lies along its side: across the axis for the ends, along it for the others.
            let normal = side % 2 == 0 ? axis : across
            guard abs(dot(direction, normal)) < 0.5 else { continue }
            if length > (best[side]?.length ?? 0) { best[side] = (length, a, c) }
        }
        var lines: [(p: Point, d: Point)] = []
        for side in best {
            guard let side else { return nil }
            lines.append((side.a, Point(x: side.b.x - side.a.x, y: side.b.y - side.a.y)))
        }
        var corners: [Point] = []
        for i in 0..<4 {
            guard let p = AztecReader.intersect(lines[i], lines[(i + 1) % 4]) else { return nil }
            // A crossing far outside the region is no corner of it.
            let d = Point(x: p.x - centre.x, y: p.y - centre.y)
            guard abs(dot(d, axis)) < 1.5 * halfLength + 4, abs(dot(d, across)) < 1.5 * halfWidth + 4 else { return nil }
            corners.append(p)
        }
        return corners
    }

    /// The four of `hull`'s corners (in order around) that enclose the largest area; nil when
    /// that area is not most of the hull's.
    static func largestQuadrilateral(_ hull: [Point]) -> [Point]? {
        // At most 256 corners, evenly taken.
        let stride = max(1, (hull.count + 255) / 256)
        let h = Swift.stride(from: 0, to: hull.count, by: stride).map { hull[$0] }
        let n = h.count
        guard n >= 4 else { return nil }
        func area(_ a: Point, _ b: Point, _ c: Point) -> Double { abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2 }
        var hullArea = 0.0
        for i in 1..<(n - 1) { hullArea += area(h[0], h[i], h[i + 1]) }
        var best = (area: 0.0, corners: [Int]())
        // Each diagonal i–k: the farthest corner on either side of it. On a convex polygon the
        // triangle's area rises, then falls, along the corners, and its peak moves forwards with k.
        for i in 0..<n {
            var j = i + 1, l = i + 3
            for k in (i + 2)...(i + n - 2) {
                while j + 1 < k, area(h[i], h[(j + 1) % n], h[k % n]) >= area(h[i], h[j % n], h[k % n]) { j += 1 }
                if l <= k { l = k + 1 }
                while l + 1 < i + n, area(h[i], h[k % n], h[(l + 1) % n]) >= area(h[i], h[k % n], h[l % n]) { l += 1 }
                let total = area(h[i], h[j % n], h[k % n]) + area(h[i], h[k % n], h[l % n])
                if total > best.area { best = (total, [i, j % n, k % n, l % n]) }
            }
        }
        guard best.corners.count == 4, best.area >= 0.85 * hullArea else { return nil }
        // A corner of the quadrilateral can be a module's inside the symbol's true corner (a light
        // corner module): each side is then the line of the longest hull edge between its two
        // corners (or the chord, when no edge is a quarter of it), and the corners their crossings.
        let c = best.corners
        var lines: [(p: Point, d: Point)] = []
        for s in 0..<4 {
            let from = c[s], to = c[(s + 1) % 4]
            let chord = Point(x: h[to].x - h[from].x, y: h[to].y - h[from].y)
            let chordLength = (chord.x * chord.x + chord.y * chord.y).squareRoot()
            var line = (p: h[from], d: chord), longest = chordLength / 4
            var i = from
            while i != to {
                let a = h[i], b = h[(i + 1) % n]
                let d = Point(x: b.x - a.x, y: b.y - a.y)
                let length = (d.x * d.x + d.y * d.y).squareRoot()
                if length > longest { longest = length; line = (a, d) }
                i = (i + 1) % n
            }
            lines.append(line)
        }
        var corners: [Point] = []
        for s in 0..<4 {
            guard let p = AztecReader.intersect(lines[(s + 3) % 4], lines[s]) else { return nil }
            // The crossing when near the quadrilateral's corner (within 0.15 of the longer side next to it).
            let q = h[c[s]]
            let reach = 0.15 * max(
                ((h[c[(s + 1) % 4]].x - q.x) * (h[c[(s + 1) % 4]].x - q.x) + (h[c[(s + 1) % 4]].y - q.y) * (h[c[(s + 1) % 4]].y - q.y)).squareRoot(),
                ((h[c[(s + 3) % 4]].x - q.x) * (h[c[(s + 3) % 4]].x - q.x) + (h[c[(s + 3) % 4]].y - q.y) * (h[c[(s + 3) % 4]].y - q.y)).squareRoot())
            corners.append(((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot() <= reach ? p : q)
        }
        return corners
    }

    /// The convex hull of `points`, in order around, without collinear points (monotone chain).
    static func convexHull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        guard sorted.count >= 3 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// One way to lay a size over an outline: the finder's corner, the far ends of its long and
    /// short sides, and how well the size's finder and clock modules match.
    struct Hypothesis {
        var table: Int
        var size: Int
        var homography: Homography
        var corners: [Point]
        var score: Double
        var dark: Double
        var light: Double
    }

    /// Reads the symbol an outline holds, if it is a symbol of one of `tables`' sizes whose blocks
    /// correct.
    /// `nearMisses` is set to the sizes that came near (``readNearMisses(_:tables:log:)``).
    func read(_ outline: [Point], tables: [DMRE.Table] = [DMRE.table], nearMisses: inout [Hypothesis], log: ((String) -> Void)? = nil) -> DMRERead? {
        func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        return gray.pixels.withUnsafeBufferPointer { p -> DMRERead? in
            let w = gray.width, h = gray.height
            func grey(_ q: Point) -> Double { Imaging.sampleFloat(p, w, h, q.x - 0.5, q.y - 0.5) }
            var hypotheses: [Hypothesis] = []
            let sizes = tables.indices.flatMap { t in tables[t].sizes.indices.map { (t, $0) } }
            let hasSquares = tables.contains { $0.sizes.contains { $0.rows == $0.columns } }
            for corner in 0..<4 {
                let before = outline[(corner + 3) % 4], after = outline[(corner + 1) % 4], opposite = outline[(corner + 2) % 4]
                let l = outline[corner]
                // Either neighbour may end the long (bottom) side: a mirrored symbol turns the other way.
                var arms: [(Point, Point, Point)] = [(before, after, opposite), (after, before, opposite)]
                // A square whose region ran on past one side into something dark beside it (another
                // symbol, print): its arms cut to the shorter one's length, the fourth corner
                // completing the parallelogram.
                let a1 = distance(l, before), a2 = distance(l, after)
                if hasSquares, min(a1, a2) > 0, max(a1, a2) > 1.15 * min(a1, a2) {
                    let f1 = min(1, a2 / a1), f2 = min(1, a1 / a2)
                    let b1 = Point(x: l.x + (before.x - l.x) * f1, y: l.y + (before.y - l.y) * f1)
                    let b2 = Point(x: l.x + (after.x - l.x) * f2, y: l.y + (after.y - l.y) * f2)
                    let o = Point(x: b1.x + b2.x - l.x, y: b1.y + b2.y - l.y)
                    arms += [(b1, b2, o), (b2, b1, o)]
                }
                for (bottomEnd, leftEnd, opposite) in arms {
                    let long = distance(l, bottomEnd), short = distance(l, leftEnd)
                    guard short > 0 else { continue }
                    // Top-left, top-right, bottom-right, bottom-left.
                    let quad = [leftEnd, opposite, bottomEnd, l]
                    // The unit square onto the outline; each size scales it to its modules.
                    let unitSquare = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)]
                    guard let unit = Homography(from: unitSquare, to: quad) else { continue }
                    sizeLoop: for (t, index) in sizes {
                        let table = tables[t], s = table.sizes[index]
                        // The sides' lengths in proportion to the size, within what perspective allows.
                        let ratio = (long / Double(s.columns)) / (short / Double(s.rows))
                        guard ratio > 0.5, ratio < 2 else { continue }
                        // Modules narrower than a pixel cannot be sampled (blur takes a clock track
                        // of alternating pixels to grey): no such size is tried.
                        guard long >= Double(s.columns), short >= Double(s.rows) else { continue }
                        let u = 1 / Double(s.columns), v = 1 / Double(s.rows)
                        let hm = Homography([unit.a * u, unit.b * v, unit.c, unit.d * u, unit.e * v, unit.f, unit.g * u, unit.h * v])
                        // First the finder alone, in the two-level image: its bottom row and left
                        // column must be dark.
                        var finderDark = 0, finderSamples = 0
                        func finder(_ u: Double, _ v: Double) {
                            let q = hm.apply(u, v)
                            let x = Int(q.x.rounded(.down)), y = Int(q.y.rounded(.down))
                            finderSamples += 1
                            if x >= 0, y >= 0, x < bin.width, y < bin.height, bin.bits[y * bin.width + x] != 0 { finderDark += 1 }
                        }
                        // Given up as soon as the light samples seen already rule the 0.8 out.
                        let columnStep = max(1, s.columns / 24), rowStep = max(1, s.rows / 8)
                        let planned = Double((s.columns + columnStep - 1) / columnStep + (s.rows + rowStep - 1) / rowStep)
                        for c in stride(from: 0, to: s.columns, by: columnStep) {
                            finder(Double(c) + 0.5, Double(s.rows) - 0.5)
                            if planned - Double(finderSamples - finderDark) < 0.8 * planned { continue sizeLoop }
                        }
                        for r in stride(from: 0, to: s.rows, by: rowStep) {
                            finder(0.5, Double(r) + 0.5)
                            if planned - Double(finderSamples - finderDark) < 0.8 * planned { continue sizeLoop }
                        }
                        guard Double(finderDark) >= 0.8 * Double(finderSamples) else { continue }
                        let (score, dark, light) = agreement(hm, table.fixedModules[index], grey: grey)
                        guard light - dark >= Self.minimumContrast else { continue }
                        hypotheses.append(Hypothesis(table: t, size: index, homography: hm, corners: quad, score: score, dark: dark, light: light))
                    }
                }
            }
            hypotheses.sort { $0.score > $1.score }
            if let log {
                let corners = outline.map { "(\(Int($0.x)),\(Int($0.y)))" }.joined(separator: " ")
                let best = hypotheses.prefix(3).map { "\(tables[$0.table].sizes[$0.size]) \(String(format: "%.3f", $0.score))" }.joined(separator: ", ")
                log("dmre: outline \(corners): \(best)")
            }
            // A square size and its mirror image match the same finder and clock modules: the best
            // four, so that both of the best size's readings are tried.
            let ranked = hypotheses.prefix(4).filter { $0.score >= Self.minimumScore }
            nearMisses = Array(hypotheses.filter { $0.score >= Self.nearScore && $0.score < Self.minimumScore }.prefix(Self.nearMisses))
            return decode(ranked, tables: tables, grey: grey, log: log)
        }
    }

    /// Reads the symbol an outline holds, at the first look only.
    func read(_ outline: [Point], tables: [DMRE.Table] = [DMRE.table], log: ((String) -> Void)? = nil) -> DMRERead? {
        var nearMisses: [Hypothesis] = []
        return read(outline, tables: tables, nearMisses: &nearMisses, log: log)
    }

    /// Reads the sizes that came near in ``read(_:tables:nearMisses:log:)``, a second look for when
    /// time is left. Small modules seen in perspective: a hull's corner half a module off puts the
    /// right size's clock modules between cells. Each near miss is moved to where its finder and
    /// clock stand out most (``refine(_:table:grey:)``) and counted again.
    func readNearMisses(_ nearMisses: [Hypothesis], tables: [DMRE.Table], log: ((String) -> Void)? = nil) -> DMRERead? {
        gray.pixels.withUnsafeBufferPointer { p -> DMRERead? in
            let w = gray.width, h = gray.height
            func grey(_ q: Point) -> Double { Imaging.sampleFloat(p, w, h, q.x - 0.5, q.y - 0.5) }
            var ranked: [Hypothesis] = []
            var refined: [(near: Hypothesis, moved: Hypothesis?)] = []
            for near in nearMisses {
                let table = tables[near.table], s = table.sizes[near.size]
                var moved: Hypothesis?
                if s.rows == s.columns,
                    let twin = refined.first(where: { $0.near.table == near.table && $0.near.size == near.size && $0.near.corners == Self.transposed(near.corners) })
                {
                    // A square read transposed (its mirror image) has the same finder and clock
                    // modules: its twin's refined corners, transposed, without refining again.
                    moved = twin.moved.flatMap { twin in
                        var transposed = twin
                        transposed.corners = Self.transposed(twin.corners)
                        guard let hm = Homography(from: Self.grid(s), to: transposed.corners) else { return nil }
                        transposed.homography = hm
                        return transposed
                    }
                } else {
                    moved = refine(near, table: table, grey: grey)
                    if let hm = moved?.homography { moved?.score = agreement(hm, table.fixedModules[near.size], grey: grey).score }
                }
                refined.append((near, moved))
                guard let moved else { continue }
                log?("dmre: \(s) near miss \(String(format: "%.3f", near.score)), moved \(String(format: "%.3f", moved.score))")
                if moved.score >= Self.minimumScore { ranked.append(moved) }
            }
            ranked.sort { $0.score > $1.score }
            return decode(ranked, tables: tables, grey: grey, log: log)
        }
    }

    /// A size's modules as a rectangle (top-left, top-right, bottom-right, bottom-left), for the
    /// homography from module coordinates to an outline.
    static func grid(_ s: DMRE.Size) -> [Point] {
        [Point(x: 0, y: 0), Point(x: Double(s.columns), y: 0), Point(x: Double(s.columns), y: Double(s.rows)), Point(x: 0, y: Double(s.rows))]
    }

    /// An outline's corners for the reading with rows and columns exchanged: the ends of the finder's
    /// two arms swap, its corner and the opposite one stay.
    static func transposed(_ corners: [Point]) -> [Point] { [corners[2], corners[1], corners[0], corners[3]] }

    /// Samples and decodes the best four hypotheses, each as found and refined.
    func decode(_ ranked: [Hypothesis], tables: [DMRE.Table], grey: (Point) -> Double, log: ((String) -> Void)?) -> DMRERead? {
        for first in ranked.prefix(4) {
            let table = tables[first.table], s = table.sizes[first.size]
            log?("dmre: \(s) score \(String(format: "%.3f", first.score)) contrast \(Int(first.light - first.dark))")
            // The outline as found, then moved corner by corner to where the finder and clock
            // modules stand out most (a hull's corner can be off by a fraction of a module, too
            // much for small modules).
            var fits = [first]
            if let refined = refine(first, table: table, grey: grey), refined.light - refined.dark > first.light - first.dark {
                fits.append(refined)
            }
            for hyp in fits {
                if hyp.corners != first.corners {
                    log?("dmre: refined outline, contrast \(Int(hyp.light - hyp.dark))")
                }
                if let read = sampleAndDecode(hyp, table: table, grey: grey, log: log) { return read }
            }
        }
        return nil
    }

    /// How well `hm` lays a size's finder and clock modules (`fixed`) on the image: the fraction
    /// found as dark or light as they should be, at the threshold halfway between the mean levels
    /// of those that should be dark and those that should be light, and those two levels.
    func agreement(_ hm: Homography, _ fixed: [(Int, Int, Bool)], grey: (Point) -> Double) -> (score: Double, dark: Double, light: Double) {
        let values = fixed.map { grey(hm.apply(Double($0.1) + 0.5, Double($0.0) + 0.5)) }
        var darkSum = 0.0, darkCount = 0.0, lightSum = 0.0, lightCount = 0.0
        for (i, m) in fixed.enumerated() {
            if m.2 {
                darkSum += values[i]
                darkCount += 1
            } else {
                lightSum += values[i]
                lightCount += 1
            }
        }
        let dark = darkSum / max(1, darkCount), light = lightSum / max(1, lightCount)
        let threshold = (dark + light) / 2
        var agree = 0
        for (i, m) in fixed.enumerated() where (values[i] < threshold) == m.2 { agree += 1 }
        return (Double(agree) / Double(max(1, fixed.count)), dark, light)
    }

    /// Samples every module of a hypothesis's size through its homography and decodes them at a
    /// few thresholds between its finder's and clock's levels.
    func sampleAndDecode(_ hyp: Hypothesis, table: DMRE.Table, grey: (Point) -> Double, log: ((String) -> Void)?) -> DMRERead? {
        func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let s = table.sizes[hyp.size]
        // Each module's level: its centre and four points around it, a fifth of a module off.
        var values = [Double](repeating: 0, count: s.rows * s.columns)
        for r in 0..<s.rows {
            for c in 0..<s.columns {
                let x = Double(c) + 0.5, y = Double(r) + 0.5
                var sum = 2 * grey(hyp.homography.apply(x, y))
                for (dx, dy) in [(-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2), (0.2, 0.2)] { sum += grey(hyp.homography.apply(x + dx, y + dy)) }
                values[r * s.columns + c] = sum / 6
            }
        }
        // The threshold halfway between the finder's and the clock's levels, then to either
        // side (ink spreading into light modules, or light into dark).
        for shift in [0.5, 0.4, 0.6, 0.3, 0.7] {
            let threshold = hyp.dark + (hyp.light - hyp.dark) * shift
            let dark = values.map { $0 < threshold }
            guard let decoded = DMRE.decode(table.codewords(dark, size: hyp.size), size: s) else {
                if let log {
                    let fixedWrong = table.fixedModules[hyp.size].filter { dark[$0.0 * s.columns + $0.1] != $0.2 }.count
                    log("dmre: threshold \(shift): \(fixedWrong) finder and clock modules wrong, blocks beyond correction")
                }
                continue
            }
            log?("dmre: \(s) read, \(decoded.corrected) corrected")
            let module = (distance(hyp.corners[3], hyp.corners[2]) / Double(s.columns) + distance(hyp.corners[3], hyp.corners[0]) / Double(s.rows)) / 2
            return DMRERead(stream: decoded.stream, codewords: decoded.codewords, size: s, corners: hyp.corners, module: module)
        }
        return nil
    }

    /// The hypothesis with its corners moved, a fraction of a module at a time, while the contrast
    /// between the size's dark and light finder and clock modules grows; nil when no move helps.
    func refine(_ hyp: Hypothesis, table: DMRE.Table, grey: (Point) -> Double) -> Hypothesis? {
        let s = table.sizes[hyp.size], fixed = table.fixedModules[hyp.size]
        let grid = Self.grid(s)
        func measure(_ quad: [Point]) -> (Homography, Double, Double)? {
            guard let hm = Homography(from: grid, to: quad) else { return nil }
            var darkSum = 0.0, darkCount = 0.0, lightSum = 0.0, lightCount = 0.0
            for m in fixed {
                let v = grey(hm.apply(Double(m.1) + 0.5, Double(m.0) + 0.5))
                if m.2 {
                    darkSum += v
                    darkCount += 1
                } else {
                    lightSum += v
                    lightCount += 1
                }
            }
            return (hm, darkSum / darkCount, lightSum / lightCount)
        }
        func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let module = (distance(hyp.corners[3], hyp.corners[2]) / Double(s.columns) + distance(hyp.corners[3], hyp.corners[0]) / Double(s.rows)) / 2
        var best = hyp, improved = false
        var step = 0.4 * module
        // One corner moved at a time, in place, and put back when the move does not help.
        var quad = best.corners
        for _ in 0..<10 {
            var moved = false
            for k in 0..<4 {
                for (dx, dy) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                    let kept = quad[k]
                    quad[k] = Point(x: kept.x + dx * step, y: kept.y + dy * step)
                    guard let (hm, dark, light) = measure(quad), light - dark > best.light - best.dark else {
                        quad[k] = kept
                        continue
                    }
                    best.corners = quad
                    best.homography = hm
                    best.dark = dark
                    best.light = light
                    moved = true
                }
            }
            if moved {
                improved = true
            } else {
                step /= 2
                if step < 0.1 * module { break }
            }
        }
        return improved ? best : nil
    }
}

extension ReadSession {
    /// DMRE symbols on the reduced level: dark regions shaped like one, outlined and read
    /// (``DMRELocator``). Runs after libdmtx, which reads the other DataMatrix sizes; a region where a
    /// DataMatrix is already read is not tried again. The regions libdmtx read nothing in are tried
    /// for ECC 200's own squares and rectangles too, and square regions are outlined for them.
    mutating func readDMRE() {
        guard wantsDataMatrix, !outOfTime, let (image, scale) = level(.reduced) else { return }
        let started = elapsedMs
        guard let bin = reducedLocalBinary() else { return }
        if debug { debugLog("dmre: binarised in \(elapsedMs - started) ms") }
        readDMRE(DMRELocator(gray: image, bin: bin), scale: scale)
        // Light modules on a dark ground (marked metal, a label printed in negative): the level
        // inverted, when nothing at all was read in a close-up (a level no larger than libdmtx's
        // small pictures). Its regions are those lighter than their surroundings, so plain paper
        // stays light in both. The four largest only. On a larger photo with no code the
        // binarisation, the regions and their outlines cost a tenth of the read and more.
        if found.isEmpty, image.width * image.height <= Self.dataMatrixSmallSide * Self.dataMatrixSmallSide, !outOfTime {
            let inverted = image.inverted()
            if debug { debugLog("dmre: light on dark") }
            readDMRE(DMRELocator(gray: inverted, bin: binarize(inverted, .local)), scale: scale, limit: 4)
        }
        if debug { debugLog("dmre: \(String(format: "%.1f", elapsedMs - started)) ms") }
    }

    /// Reads the regions `locator` outlines on the reduced level (`scale`: its pixels in the work image's).
    mutating func readDMRE(_ locator: DMRELocator, scale: (Double, Double), limit: Int = 10) {
        let started = elapsedMs
        let logger = self.logger
        let candidates = locator.candidates(limit: limit, squares: true, log: debug ? { logger.trace("\($0)") } : nil)
        if debug { debugLog("dmre: \(candidates.count) candidates on \(locator.gray.width)x\(locator.gray.height) in \(String(format: "%.1f", elapsedMs - started)) ms") }
        for outline in candidates {
            if outOfTime { break }
            readDMRE(outline, locator, scale: scale)
        }
    }

    /// Reads one outline unless a code read already covers its centre (a QR Code's region is as
    /// square as a DataMatrix's; no other code lies inside one). The sizes that came near are kept
    /// for ``readDMRENearMisses()``.
    mutating func readDMRE(_ outline: [Point], _ locator: DMRELocator, scale: (Double, Double), nearMisses: [DMRELocator.Hypothesis]? = nil) {
        let logger = self.logger
        let log: ((String) -> Void)? = debug ? { logger.trace("\($0)") } : nil
        let centre = Point(x: outline.map(\.x).reduce(0, +) / 4 * scale.0, y: outline.map(\.y).reduce(0, +) / 4 * scale.1)
        if found.contains(where: { $0.contains(centre) }) { return }
        let tables = [DMRE.table, DMRE.squareAndRectangleTable]
        var near: [DMRELocator.Hypothesis] = []
        let read: DMRERead?
        if let nearMisses {
            read = locator.readNearMisses(nearMisses, tables: tables, log: log)
        } else {
            read = locator.read(outline, tables: tables, nearMisses: &near, log: log)
        }
        guard let read else {
            if !near.isEmpty { dmreUnread.append((locator, outline, scale, near)) }
            return
        }
        if debug {
            debugLog("decoder input \(DecoderInput.dataMatrixSymbol(codewords: read.codewords, blocks: read.size.blocks, errorWords: read.size.errorWords / read.size.blocks).hex)")
        }
        var raw = RawSymbol(symbology: .datamatrix, bytes: read.stream.bytes, points: [], quality: 1, isGS1: read.stream.gs1)
        raw.dataMatrix = read.stream
        let corners = read.corners.map { Point(x: $0.x * scale.0, y: $0.y * scale.1) }
        add(raw, corners: corners, module: read.module * (scale.0 + scale.1) / 2)
    }

    /// The outlines ``readDMRE()`` could not read, looked at again once every other reader has
    /// run, while time is left: the sizes that came near are refined (``DMRELocator/readNearMisses(_:tables:log:)``).
    /// Last, because it costs most where nothing is a DataMatrix (a PDF417 symbol's region has
    /// the shape of one), and a code read since covers its own outline.
    mutating func readDMRENearMisses() {
        let unread = dmreUnread
        dmreUnread = []
        guard !unread.isEmpty else { return }
        let started = elapsedMs
        for (locator, outline, scale, near) in unread {
            if outOfTime { break }
            readDMRE(outline, locator, scale: scale, nearMisses: near)
        }
        if debug { debugLog("dmre: near misses of \(unread.count) outlines in \(String(format: "%.2f", elapsedMs - started)) ms") }
    }
}
