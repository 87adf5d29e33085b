import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// Rectangular Micro QR Code (rMQR, ISO/IEC 23941): 32 sizes from 7 × 43 to 17 × 139 modules. A
/// finder pattern at the top left, a smaller sub-finder at the bottom right, timing patterns along
/// the top and bottom edges and down the columns of the alignment patterns, 18 bits of format
/// information twice (beside the finder and beside the sub-finder), one fixed mask and QR Code's
/// codeword placement and Reed–Solomon blocks. Like the QR decoder it guesses nothing: a copy of
/// the format information within 3 bits of a valid word naming this size, every block within its
/// correction capacity, and a data stream valid to its end.
enum RMQR {
    /// One size: its modules, character count lengths by mode (numeric, alphanumeric, byte, Kanji),
    /// the columns of its alignment patterns, and its blocks at levels M and H (check codewords per
    /// block, and each block's data codewords, short blocks first).
    struct Size: Sendable, Equatable, CustomStringConvertible {
        var height: Int
        var width: Int
        var countBits: [Int]
        var alignment: [Int]
        var medium: (ecc: Int, blocks: [Int])
        var high: (ecc: Int, blocks: [Int])

        static func == (a: Size, b: Size) -> Bool { a.height == b.height && a.width == b.width }
        var description: String { "R\(height)x\(width)" }

        func blocks(_ level: QRErrorCorrection) -> (ecc: Int, blocks: [Int]) { level == .high ? high : medium }
        func totalCodewords(_ level: QRErrorCorrection) -> Int {
            let b = blocks(level)
            return b.blocks.reduce(0, +) + b.ecc * b.blocks.count
        }
    }

    /// The alignment pattern columns of each width.
    static let alignmentColumns: [Int: [Int]] = [27: [], 43: [21], 59: [19, 39], 77: [25, 51], 99: [23, 49, 75], 139: [27, 55, 83, 111]]

    /// The sizes in the order of their 5-bit indicator in the format information.
    static let sizes: [Size] = {
        // (height, width, count lengths, M: check codewords per block and data codewords per block,
        // H: the same).
        let table: [(Int, Int, [Int], Int, [Int], Int, [Int])] = [
            (7, 43, [4, 3, 3, 2], 7, [6], 10, [3]),
            (7, 59, [5, 5, 4, 3], 9, [12], 14, [7]),
            (7, 77, [6, 5, 5, 4], 12, [20], 22, [10]),
            (7, 99, [7, 6, 5, 5], 16, [28], 30, [14]),
            (7, 139, [7, 6, 6, 5], 24, [44], 22, [12, 12]),
            (9, 43, [5, 5, 4, 3], 9, [12], 14, [7]),
            (9, 59, [6, 5, 5, 4], 12, [21], 22, [11]),
            (9, 77, [7, 6, 5, 5], 18, [31], 16, [8, 9]),
            (9, 99, [7, 6, 6, 5], 24, [42], 22, [11, 11]),
            (9, 139, [8, 7, 6, 6], 18, [31, 32], 22, [11, 11, 11]),
            (11, 27, [4, 4, 3, 2], 8, [7], 10, [5]),
            (11, 43, [6, 5, 5, 4], 12, [19], 20, [11]),
            (11, 59, [7, 6, 5, 5], 16, [31], 16, [7, 8]),
            (11, 77, [7, 6, 6, 5], 24, [43], 22, [11, 12]),
            (11, 99, [8, 7, 6, 6], 16, [28, 29], 30, [14, 15]),
            (11, 139, [8, 7, 7, 6], 24, [42, 42], 30, [14, 14, 14]),
            (13, 27, [5, 5, 4, 3], 9, [12], 14, [7]),
            (13, 43, [6, 6, 5, 5], 14, [27], 28, [13]),
            (13, 59, [7, 6, 6, 5], 22, [38], 20, [10, 10]),
            (13, 77, [7, 7, 6, 6], 16, [26, 27], 28, [14, 15]),
            (13, 99, [8, 7, 7, 6], 20, [36, 37], 26, [11, 12, 12]),
            (13, 139, [8, 8, 7, 7], 20, [35, 35, 36], 28, [13, 13, 14, 14]),
            (15, 43, [7, 6, 6, 5], 18, [33], 18, [7, 8]),
            (15, 59, [7, 7, 6, 5], 26, [48], 24, [13, 13]),
            (15, 77, [8, 7, 7, 6], 18, [33, 34], 24, [10, 10, 11]),
            (15, 99, [8, 7, 7, 6], 24, [44, 44], 22, [12, 12, 12, 12]),
            (15, 139, [9, 8, 7, 7], 24, [42, 42, 43], 26, [13, 14, 14, 14, 14]),
            (17, 43, [7, 6, 6, 5], 22, [39], 20, [10, 11]),
            (17, 59, [8, 7, 6, 6], 16, [28, 28], 30, [14, 14]),
            (17, 77, [8, 7, 7, 6], 22, [39, 39], 28, [12, 13, 13]),
            (17, 99, [8, 8, 7, 6], 20, [33, 33, 34], 26, [14, 14, 14, 14]),
            (17, 139, [9, 8, 8, 7], 20, [38, 38, 38, 38], 26, [12, 12, 13, 13, 13, 13]),
        ]
        return table.map { h, w, counts, eccM, m, eccH, hi in
            Size(height: h, width: w, countBits: counts, alignment: alignmentColumns[w] ?? [], medium: (eccM, m), high: (eccH, hi))
        }
    }()

    /// The 64 valid format words before masking: level (H = 1) and size indicator, BCH(18,6)
    /// protected as QR Code's version information is.
    static let formatWords: [Int] = (0..<64).map { QRSpec.versionBits($0) }
    /// The masks of the copy beside the finder and of the copy beside the sub-finder.
    static let finderSideMask = 0b011111101010110010
    static let subFinderSideMask = 0b100000101001111011

    /// The modules of the format information beside the finder, bit 0 first, as (x, y): three
    /// columns of five from (8, 1), then three down column 11.
    static let finderSidePositions: [(Int, Int)] = (0..<18).map { (n: Int) -> (Int, Int) in
        n < 15 ? (8 + n / 5, 1 + n % 5) : (11, n - 14)
    }

    /// The copy beside the sub-finder, bit 0 first: three columns of five from (width − 8,
    /// height − 6), then three along row height − 6.
    static func subFinderSidePositions(_ s: Size) -> [(Int, Int)] {
        let x0 = s.width - 8, y0 = s.height - 6
        return (0..<18).map { (n: Int) -> (Int, Int) in n < 15 ? (x0 + n / 5, y0 + n % 5) : (x0 + n - 12, y0) }
    }

    /// The nearest valid format word to `bits` read beside the finder (or, with `subFinder`, beside
    /// the sub-finder): its size, level and the bits that differed; nil when none is within 3 bits.
    static func decodeFormat(_ bits: Int, subFinder: Bool = false) -> (size: Size, level: QRErrorCorrection, distance: Int)? {
        let unmasked = bits ^ (subFinder ? subFinderSideMask : finderSideMask)
        var best: (value: Int, distance: Int)?
        for (value, word) in formatWords.enumerated() {
            let d = (word ^ unmasked).nonzeroBitCount
            if d < (best?.distance ?? 4) { best = (value, d) }
        }
        guard let best else { return nil }
        return (sizes[best.value & 31], best.value >> 5 == 1 ? .high : .medium, best.distance)
    }

    /// Whether module (x, y) belongs to a function pattern or the format information.
    static func isFunction(_ s: Size, _ x: Int, _ y: Int) -> Bool {
        let w = s.width, h = s.height
        if y == 0 || y == h - 1 || x == 0 || x == w - 1 { return true }  // timing, edges
        if x <= 7 && y <= 7 { return true }  // finder and separator
        if x <= 11 && y <= 5 && (x <= 10 || y <= 3) { return true }  // format beside the finder
        if x >= w - 5 && y >= h - 5 { return true }  // sub-finder
        if x >= w - 8 && x <= w - 6 && y >= h - 6 { return true }  // format beside the sub-finder
        if y == h - 6 && x >= w - 5 && x <= w - 3 { return true }
        if x >= w - 2 && y <= 1 { return true }  // top-right corner pattern
        if h >= 11 && x <= 1 && y == h - 2 { return true }  // bottom-left corner pattern
        for c in s.alignment {
            if x == c { return true }  // vertical timing
            if abs(x - c) <= 1 && (y <= 2 || y >= h - 3) { return true }
        }
        return false
    }

    /// The data modules in placement order, as y × width + x: two-module columns from the right
    /// edge less one, upward then downward in turn between the timing rows, skipping function
    /// modules.
    static let placements: [[Int]] = sizes.map { s in
        var order: [Int] = []
        var upward = true
        var x = s.width - 2
        while x >= 1 {
            for step in 0..<(s.height - 2) {
                let y = upward ? s.height - 2 - step : 1 + step
                for dx in 0..<2 where x - dx >= 0 && !isFunction(s, x - dx, y) { order.append(y * s.width + x - dx) }
            }
            upward.toggle()
            x -= 2
        }
        return order
    }

    /// The fixed mask: QR Code's mask 4, (x / 3 + y / 2) even.
    static func isMasked(_ x: Int, _ y: Int) -> Bool { (x / 3 + y / 2) % 2 == 0 }

    /// Decodes a module grid `width` × `height` (row-major, x right, y down, the finder at the top
    /// left). Both copies of the format information are tried, nearest first.
    static func decode(_ dark: [Bool], width: Int, height: Int) -> DecodedQR? {
        guard let index = sizes.firstIndex(where: { $0.width == width && $0.height == height }), dark.count == width * height else {
            return nil
        }
        let size = sizes[index]
        func bits(_ positions: [(Int, Int)]) -> Int {
            var v = 0
            for (n, (x, y)) in positions.enumerated() where dark[y * width + x] { v |= 1 << n }
            return v
        }
        var candidates: [(level: QRErrorCorrection, distance: Int)] = []
        for (positions, sub) in [(finderSidePositions, false), (subFinderSidePositions(size), true)] {
            if let f = decodeFormat(bits(positions), subFinder: sub), f.size == size, !candidates.contains(where: { $0.level == f.level }) {
                candidates.append((f.level, f.distance))
            }
        }
        candidates.sort { $0.distance < $1.distance }
        for c in candidates {
            if var decoded = decode(dark, index: index, level: c.level) {
                decoded.formatDistance = c.distance
                return decoded
            }
        }
        return nil
    }

    /// Decodes the grid of size `index` at `level`: codewords unmasked in placement order,
    /// de-interleaved into the blocks, each corrected within its capacity, and the data stream read.
    static func decode(_ dark: [Bool], index: Int, level: QRErrorCorrection) -> DecodedQR? {
        let size = sizes[index]
        let (ecc, lengths) = size.blocks(level)
        let total = size.totalCodewords(level)
        let order = placements[index]
        guard order.count >= total * 8 else { return nil }
        var codewords = [UInt8](repeating: 0, count: total)
        for c in 0..<total {
            var byte: UInt8 = 0
            for b in 0..<8 {
                let i = order[c * 8 + b]
                let bit = dark[i] != isMasked(i % size.width, i / size.width)
                byte = byte << 1 | (bit ? 1 : 0)
            }
            codewords[c] = byte
        }
        var blocks = lengths.map { [UInt8](repeating: 0, count: $0 + ecc) }
        var next = 0
        for column in 0..<(lengths.max() ?? 0) {
            for b in blocks.indices where column < lengths[b] {
                blocks[b][column] = codewords[next]
                next += 1
            }
        }
        for column in 0..<ecc {
            for b in blocks.indices {
                blocks[b][lengths[b] + column] = codewords[next]
                next += 1
            }
        }
        let limit = ecc / 2
        var corrected = 0, worst = 0.0
        var data: [UInt8] = []
        for b in blocks.indices {
            var block = blocks[b]
            guard let errors = ReedSolomon.correct(&block, eccCount: ecc, limit: limit) else { return nil }
            corrected += errors
            worst = max(worst, Double(errors) / Double(max(1, limit)))
            data += block[0..<lengths[b]]
        }
        guard let stream = QRBitstream(rmqr: data, countBits: size.countBits) else { return nil }
        return DecodedQR(
            version: index + 1, level: level, mask: 4, stream: stream, errorsCorrected: corrected, worstBlockLoad: worst,
            formatDistance: 0, mirrored: false)
    }
}

extension QRBitstream {
    /// Reads an rMQR data stream: 3-bit mode indicators (terminator, numeric, alphanumeric, byte,
    /// Kanji, FNC1 in first and second position, ECI) and the size's character count lengths; nil
    /// when the stream is not valid.
    init?(rmqr data: [UInt8], countBits: [Int]) {
        var reader = BitReader(data)
        var eci: Int?
        loop: while reader.remaining >= 3 {
            let mode = reader.read(3)
            switch mode {
            case 0b000:
                break loop
            case 0b001:
                let count = reader.read(countBits[0])
                guard count > 0, let digits = Self.numeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .numeric, bytes: digits, eci: eci))
            case 0b010:
                let count = reader.read(countBits[1])
                guard count > 0, let chars = Self.alphanumeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .alphanumeric, bytes: chars, eci: eci))
            case 0b011:
                let count = reader.read(countBits[2])
                guard count > 0, reader.remaining >= 8 * count else { return nil }
                segments.append(QRSegment(mode: .byte, bytes: (0..<count).map { _ in UInt8(reader.read(8)) }, eci: eci))
            case 0b100:
                let count = reader.read(countBits[3])
                guard count > 0, let pairs = Self.kanji(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .kanji, bytes: pairs, eci: eci))
            case 0b101:  // FNC1, first position
                guard segments.isEmpty, !gs1, applicationIndicator == nil else { return nil }
                gs1 = true
            case 0b110:  // FNC1, second position, with its application indicator
                guard segments.isEmpty, !gs1, applicationIndicator == nil, reader.remaining >= 8 else { return nil }
                applicationIndicator = reader.read(8)
            default:  // ECI
                guard let designator = Self.eciDesignator(&reader) else { return nil }
                eci = designator
            }
            if reader.overrun { return nil }
        }
        guard !segments.isEmpty else { return nil }
        // Fewer than three bits left: what remains of the terminator, zeros.
        if reader.remaining < 3, reader.remaining > 0, reader.read(reader.remaining) != 0 { return nil }
        paddingIsStandard = Self.checkPadding(data, fromBit: reader.position)
    }
}

extension RMQR {
    // MARK: Reading from an image

    /// Reads an rMQR whose finder pattern is centred at `center` with modules of about `module`
    /// pixels: the finder's tilt and pitch from its outline (as for Micro QR), then each of the
    /// eight ways the symbol may lie against it. The format information beside the finder names the
    /// size; the sub-finder is looked for where that size puts it, and the grid spanned by the two
    /// patterns is read and decoded. Returns the decoding and the symbol's corners (top-left,
    /// top-right, bottom-right, bottom-left). `log` hears each grid handed to the decoder.
    static func read(_ image: GrayImage, center: Point, module: Double, log: ((String) -> Void)? = nil) -> (DecodedQR, [Point])? {
        guard module >= 1, let (angle, pitch, dark, light) = MicroQR.finderGeometry(image, center: center, module: module) else { return nil }
        let threshold = (dark + light) / 2
        let invert = dark > light
        let u = (cos(angle), sin(angle)), v = (-sin(angle), cos(angle))
        func neg(_ p: (Double, Double)) -> (Double, Double) { (-p.0, -p.1) }
        let axes: [((Double, Double), (Double, Double))] = [
            (u, v), (v, neg(u)), (neg(u), neg(v)), (neg(v), u),  // turns
            (v, u), (u, neg(v)), (neg(v), neg(u)), (neg(u), v),  // mirrored
        ]
        return image.pixels.withUnsafeBufferPointer { p -> (DecodedQR, [Point])? in
            func grey(_ q: Point) -> Double {
                // Past the image's edge is the light quiet zone, whichever way the symbol is printed.
                if q.x < 0 || q.y < 0 || q.x >= Double(image.width) || q.y >= Double(image.height) { return 255 }
                let g = Imaging.sampleFloat(p, image.width, image.height, q.x - 0.5, q.y - 0.5)
                return invert ? 255 - g : g
            }
            for (turn, (a, b)) in axes.enumerated() {
                // Module (i, j)'s centre is at (i + 0.5, j + 0.5); the finder's centre at (3.5, 3.5).
                var ax = a.0 * pitch, ay = a.1 * pitch, bx = b.0 * pitch, by = b.1 * pitch
                // Perspective along the symbol: the projective denominator grows by `depth` a module
                // from the finder's centre (0 until the timing rows are fitted).
                var depth = 0.0
                func point(_ i: Double, _ j: Double) -> Point {
                    let q = 1 / (1 + depth * (i - 3.5))
                    return Point(x: center.x + ((i - 3.5) * ax + (j - 3.5) * bx) * q, y: center.y + ((i - 3.5) * ay + (j - 3.5) * by) * q)
                }
                var bits = 0
                for (n, (x, y)) in finderSidePositions.enumerated() where grey(point(Double(x) + 0.5, Double(y) + 0.5)) < threshold {
                    bits |= 1 << n
                }
                guard let format = decodeFormat(bits) else { continue }
                let size = format.size
                let w = Double(size.width), h = Double(size.height)
                // The sub-finder: a 5 × 5 dark ring around a light ring and a dark centre, looked
                // for around where the finder's pitch and tilt put it, coarsely then finely.
                func subFinderScore(_ i: Double, _ j: Double) -> Double {
                    var score = 0.0
                    for dy in -2...2 {
                        for dx in -2...2 {
                            let ring = max(abs(dx), abs(dy))
                            let expectDark = ring != 1
                            let g = grey(point(i + Double(dx), j + Double(dy)))
                            score += expectDark ? threshold - g : g - threshold
                        }
                    }
                    return score
                }
                let predicted = (w - 2.5, h - 2.5)
                let reachA = 0.08 * (w - 6) + 2, reachB = 0.025 * (w - 6) + 1.5
                var best = (score: -Double.infinity, i: predicted.0, j: predicted.1)
                var di = -reachA
                while di <= reachA {
                    var dj = -reachB
                    while dj <= reachB {
                        let s = subFinderScore(predicted.0 + di, predicted.1 + dj)
                        if s > best.score { best = (s, predicted.0 + di, predicted.1 + dj) }
                        dj += 0.5
                    }
                    di += 0.5
                }
                let coarse = best
                for fi in -3...3 {
                    for fj in -3...3 {
                        let i = coarse.i + Double(fi) / 6, j = coarse.j + Double(fj) / 6
                        let s = subFinderScore(i, j)
                        if s > best.score { best = (s, i, j) }
                    }
                }
                // Every one of the 25 modules on its side of the threshold by a clear margin on average.
                guard best.score > 25 * 0.3 * abs(threshold - dark) else {
                    log?("rmqr \(size): no sub-finder (score \(Int(best.score)))")
                    continue
                }
                // The long axis from the finder to the sub-finder; the short one perpendicular to it,
                // at the finder's pitch (in the turn's handedness).
                let s = point(best.i, best.j)
                let pitchB = (bx * bx + by * by).squareRoot()
                let cross = ax * by - ay * bx
                for _ in 0..<2 {
                    let rx = s.x - center.x - (h - 6) * bx, ry = s.y - center.y - (h - 6) * by
                    ax = rx / (w - 6)
                    ay = ry / (w - 6)
                    let length = (ax * ax + ay * ay).squareRoot()
                    guard length > 0 else { break }
                    let sign: Double = cross >= 0 ? 1 : -1
                    bx = -ay / length * pitchB * sign
                    by = ax / length * pitchB * sign
                }
                // The perspective that makes the timing rows alternate best: the projective
                // denominator at the sub-finder from 0.8 to 1.25 of the finder's (the pitch there
                // 0.64 to 1.56 times the finder's), the sub-finder's centre kept where it was found.
                let timingColumns = (8..<(size.width - 5)).filter { x in !size.alignment.contains { abs(x - $0) <= 1 } }
                func timingScore() -> Double {
                    var score = 0.0
                    for x in timingColumns {
                        let sign: Double = x % 2 == 0 ? 1 : -1
                        score += sign * (threshold - grey(point(Double(x) + 0.5, 0.5)))
                        score += sign * (threshold - grey(point(Double(x) + 0.5, h - 0.5)))
                    }
                    return score
                }
                let affine = (ax, ay)
                var bestFit = (score: timingScore(), ratio: 1.0)
                for step in -8...10 where step != 0 {
                    let ratio = 1 + Double(step) * 0.025
                    depth = (ratio - 1) / (w - 6)
                    ax = (ratio * (s.x - center.x) - (h - 6) * bx) / (w - 6)
                    ay = (ratio * (s.y - center.y) - (h - 6) * by) / (w - 6)
                    let score = timingScore()
                    if score > bestFit.score { bestFit = (score, ratio) }
                }
                depth = (bestFit.ratio - 1) / (w - 6)
                if bestFit.ratio == 1 {
                    (ax, ay) = affine
                } else {
                    ax = (bestFit.ratio * (s.x - center.x) - (h - 6) * bx) / (w - 6)
                    ay = (bestFit.ratio * (s.y - center.y) - (h - 6) * by) / (w - 6)
                }
                var modules = [Bool](repeating: false, count: size.width * size.height)
                for y in 0..<size.height {
                    for x in 0..<size.width { modules[y * size.width + x] = grey(point(Double(x) + 0.5, Double(y) + 0.5)) < threshold }
                }
                // The timing rows must alternate where no alignment pattern interrupts them.
                var timingErrors = 0, timingCount = 0
                for x in timingColumns {
                    timingCount += 2
                    if modules[x] != (x % 2 == 0) { timingErrors += 1 }
                    if modules[(size.height - 1) * size.width + x] != (x % 2 == 0) { timingErrors += 1 }
                }
                guard timingErrors * 8 <= timingCount else {
                    log?("rmqr \(size): timing rows broken (\(timingErrors) of \(timingCount))")
                    continue
                }
                log?("rmqr \(size) decoder input \(modules.map { $0 ? "1" : "0" }.joined())")
                guard var decoded = decode(modules, width: size.width, height: size.height) else { continue }
                decoded.mirrored = turn >= 4
                return (decoded, [point(0, 0), point(w, 0), point(w, h), point(0, h)])
            }
            return nil
        }
    }
}
