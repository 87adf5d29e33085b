import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// Micro QR Code (ISO/IEC 18004, versions M1–M4): one finder pattern in a corner, timing patterns
/// along the row and column that leave it, 15 bits of format information around it, and one
/// Reed–Solomon block. The reader starts from a finder pattern the QR locator saw and no QR Code
/// explained; like the QR decoder it guesses nothing: the format information must be within 3 bits
/// of a valid word, the block within its correction capacity, and the data stream valid to its end.
enum MicroQR {
    /// One of the eight symbol numbers: its version (1–4 for M1–M4), error-correction level (nil for
    /// M1's error detection), data codewords (the last one 4 bits long in M1 and M3), check codewords
    /// and the errors it may correct (fewer than half the check codewords where the standard keeps
    /// some for misdecode protection).
    struct SymbolType {
        var version: Int
        var level: QRErrorCorrection?
        var dataCodewords: Int
        var checkCodewords: Int
        var correctable: Int
        var size: Int { 9 + 2 * version }
        /// Whether the last data codeword has 4 bits (M1 and M3).
        var shortLast: Bool { version == 1 || version == 3 }
        var dataBits: Int { dataCodewords * 8 - (shortLast ? 4 : 0) }
    }

    static let types: [SymbolType] = [
        SymbolType(version: 1, level: nil, dataCodewords: 3, checkCodewords: 2, correctable: 0),
        SymbolType(version: 2, level: .low, dataCodewords: 5, checkCodewords: 5, correctable: 2),
        SymbolType(version: 2, level: .medium, dataCodewords: 4, checkCodewords: 6, correctable: 3),
        SymbolType(version: 3, level: .low, dataCodewords: 11, checkCodewords: 6, correctable: 2),
        SymbolType(version: 3, level: .medium, dataCodewords: 9, checkCodewords: 8, correctable: 4),
        SymbolType(version: 4, level: .low, dataCodewords: 16, checkCodewords: 8, correctable: 3),
        SymbolType(version: 4, level: .medium, dataCodewords: 14, checkCodewords: 10, correctable: 5),
        SymbolType(version: 4, level: .quartile, dataCodewords: 10, checkCodewords: 14, correctable: 7),
    ]

    /// The 32 valid format words: BCH(15,5) of (symbol number << 2 | mask), as QR Code's, masked with
    /// 0x4445.
    static let formatWords: [Int] = (0..<32).map { QRSpec.bchFormatCode($0) ^ 0x4445 }

    /// The format modules, most significant bit first: row 8 from column 1 to 8, then column 8 from
    /// row 7 up to row 1, as (x, y).
    static let formatPositions: [(Int, Int)] = (1...8).map { ($0, 8) } + (1...7).reversed().map { (8, $0) }

    /// Micro QR's four masks are QR Code's masks 1, 4, 6 and 7.
    static func isMasked(_ mask: Int, x: Int, y: Int) -> Bool {
        QRSpec.maskCondition([1, 4, 6, 7][mask], x, y)
    }

    static func isFunction(_ x: Int, _ y: Int) -> Bool { (x < 9 && y < 9) || x == 0 || y == 0 }

    /// The symbol type and mask the format bits name, with the bits that differed, or nil when no
    /// valid word is within 3 bits.
    static func decodeFormat(_ bits: Int) -> (type: SymbolType, mask: Int, distance: Int)? {
        var best: (value: Int, distance: Int)?
        for (value, word) in formatWords.enumerated() {
            let d = (word ^ bits).nonzeroBitCount
            if d < (best?.distance ?? 4) { best = (value, d) }
        }
        guard let best else { return nil }
        return (types[best.value >> 2], best.value & 3, best.distance)
    }

    /// The codewords in placement order (data, then check codewords), read from unmasked modules:
    /// two-module columns from the right, upward then downward in turn, skipping function modules.
    static func codewords(_ dark: (Int, Int) -> Bool, _ type: SymbolType) -> [UInt8] {
        let n = type.size
        var bits: [Bool] = []
        var upward = true
        var x = n - 1
        while x > 0 {
            for step in 0..<n {
                let y = upward ? n - 1 - step : step
                for dx in 0..<2 where x - dx > 0 && !isFunction(x - dx, y) { bits.append(dark(x - dx, y)) }
            }
            upward.toggle()
            x -= 2
        }
        var out: [UInt8] = []
        var index = 0
        let total = type.dataCodewords + type.checkCodewords
        for k in 0..<total {
            let length = (type.shortLast && k == type.dataCodewords - 1) ? 4 : 8
            var value = 0
            for _ in 0..<length {
                value = value << 1 | (index < bits.count && bits[index] ? 1 : 0)
                index += 1
            }
            out.append(UInt8(value << (8 - length)))
        }
        return out
    }

    /// Decodes a module grid `size` × `size` (x right, y down, the finder at the top left).
    static func decode(_ dark: [Bool], size: Int) -> (DecodedQR, SymbolType)? {
        func at(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }
        var bits = 0
        for (x, y) in formatPositions { bits = bits << 1 | (at(x, y) ? 1 : 0) }
        guard let format = decodeFormat(bits), format.type.size == size else { return nil }
        let type = format.type
        var block = codewords({ x, y in at(x, y) != isMasked(format.mask, x: x, y: y) }, type)
        let corrected: Int
        if type.correctable == 0 {
            // M1: the check codewords only detect errors.
            var copy = block
            guard ReedSolomon.correct(&copy, eccCount: type.checkCodewords, limit: 0) == 0 else { return nil }
            corrected = 0
        } else {
            guard let errors = ReedSolomon.correct(&block, eccCount: type.checkCodewords, limit: type.correctable) else { return nil }
            corrected = errors
        }
        // A corrected 4-bit codeword must still have its low bits clear.
        if type.shortLast, block[type.dataCodewords - 1] & 0x0F != 0 { return nil }
        guard let stream = QRBitstream(micro: Array(block.prefix(type.dataCodewords)), version: type.version, dataBits: type.dataBits) else {
            return nil
        }
        let decoded = DecodedQR(
            version: type.version, level: type.level ?? .low, mask: format.mask, stream: stream, errorsCorrected: corrected,
            worstBlockLoad: type.correctable > 0 ? Double(corrected) / Double(type.correctable) : 0,
            formatDistance: format.distance, mirrored: false)
        return (decoded, type)
    }

    // MARK: Reading from an image

    /// Reads a Micro QR Code whose finder pattern is centred at `center` with modules of about
    /// `module` pixels: the finder's tilt from its outline, then each of the eight ways the symbol may
    /// lie against it (four turns, mirrored or not), the format information deciding which, the
    /// module pitch along each timing pattern fitted, and the grid decoded.
    /// Returns the decoding and the symbol's corners (top-left, top-right, bottom-right, bottom-left).
    /// `log` hears each grid handed to the decoder.
    static func read(_ image: GrayImage, center: Point, module: Double, log: ((String) -> Void)? = nil) -> (DecodedQR, [Point])? {
        guard module >= 1, let (angle, pitch, dark, light) = finderGeometry(image, center: center, module: module) else { return nil }
        let threshold = (dark + light) / 2
        let invert = dark > light
        let u = (cos(angle), sin(angle)), v = (-sin(angle), cos(angle))
        let axes: [((Double, Double), (Double, Double))] = [
            (u, v), (v, neg(u)), (neg(u), neg(v)), (neg(v), u),  // turns
            (v, u), (u, neg(v)), (neg(v), neg(u)), (neg(u), v),  // mirrored
        ]
        return image.pixels.withUnsafeBufferPointer { p -> (DecodedQR, [Point])? in
            func grey(_ q: Point) -> Double {
                let g = Imaging.sampleFloat(p, image.width, image.height, q.x - 0.5, q.y - 0.5)
                return invert ? 255 - g : g
            }
            for (a, b) in axes {
                // Module (i, j)'s centre: the finder's centre is at (3.5, 3.5).
                var sa = pitch, sb = pitch
                func point(_ i: Double, _ j: Double) -> Point {
                    Point(x: center.x + (i - 3.5) * sa * a.0 + (j - 3.5) * sb * b.0, y: center.y + (i - 3.5) * sa * a.1 + (j - 3.5) * sb * b.1)
                }
                var bits = 0
                for (x, y) in formatPositions { bits = bits << 1 | (grey(point(Double(x) + 0.5, Double(y) + 0.5)) < threshold ? 1 : 0) }
                guard let format = decodeFormat(bits) else { continue }
                let n = format.type.size
                // The pitch along each timing pattern: the scale at which its modules alternate best.
                func timingScore(_ along: (Int) -> Point) -> Double {
                    var score = 0.0
                    for k in 8..<n { score += (k % 2 == 0 ? 1 : -1) * (threshold - grey(along(k))) }
                    return score
                }
                let base = pitch
                var bestA = (score: -Double.infinity, scale: base), bestB = bestA
                for step in -12...12 {
                    let s = base * (1 + Double(step) * 0.01)
                    sa = s
                    let scoreA = timingScore { point(Double($0) + 0.5, 0.5) }
                    if scoreA > bestA.score { bestA = (scoreA, s) }
                    sa = base
                    sb = s
                    let scoreB = timingScore { point(0.5, Double($0) + 0.5) }
                    if scoreB > bestB.score { bestB = (scoreB, s) }
                    sb = base
                }
                sa = bestA.scale
                sb = bestB.scale
                var modules = [Bool](repeating: false, count: n * n)
                for y in 0..<n {
                    for x in 0..<n { modules[y * n + x] = grey(point(Double(x) + 0.5, Double(y) + 0.5)) < threshold }
                }
                // The timing patterns must alternate (a wrong turn or size breaks them).
                var timingErrors = 0
                for k in 8..<n {
                    if modules[k] != (k % 2 == 0) { timingErrors += 1 }
                    if modules[k * n] != (k % 2 == 0) { timingErrors += 1 }
                }
                guard timingErrors <= 1 else { continue }
                if let log { log("decoder input \(DecoderInput.microQR(modules: modules, size: n).hex)") }
                guard let (decoded, _) = decode(modules, size: n) else { continue }
                let e = Double(n)
                return (decoded, [point(0, 0), point(e, 0), point(e, e), point(0, e)])
            }
            return nil
        }
    }

    private static func neg(_ p: (Double, Double)) -> (Double, Double) { (-p.0, -p.1) }

    /// The finder's tilt (radians, 0..<π/2), its module pitch from its outline, and the grey of its
    /// dark centre and of its light ring: from the distance to the outer edge along 72 rays, which
    /// for a square of half-side s tilted by θ is s / max(|cos(φ − θ)|, |sin(φ − θ)|).
    static func finderGeometry(_ image: GrayImage, center: Point, module: Double) -> (Double, Double, Double, Double)? {
        image.pixels.withUnsafeBufferPointer { p -> (Double, Double, Double, Double)? in
            func grey(_ x: Double, _ y: Double) -> Double { Imaging.sampleFloat(p, image.width, image.height, x - 0.5, y - 0.5) }
            let dark = grey(center.x, center.y)
            // The light ring at 2 modules, the lightest of four directions' diagonals left out.
            let ring = [(2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0)].map { grey(center.x + $0.0 * module, center.y + $0.1 * module) }
            let light = ring.sorted()[2]
            guard abs(light - dark) > 30 else { return nil }
            let threshold = (dark + light) / 2
            let isDark = dark < light
            let rays = 72
            var radii: [(phi: Double, r: Double)] = []
            for k in 0..<rays {
                let phi = Double(k) * 2 * Double.pi / Double(rays)
                let (c, s) = (cos(phi), sin(phi))
                // Out from the centre: its dark square, the light ring, the dark ring, then the light
                // outside (phases 0 to 3).
                var r = 0.0, phase = 0, edge: Double?
                while r < 6.5 * module {
                    let x = center.x + r * c, y = center.y + r * s
                    let g = grey(x, y)
                    // Past the image's edge is the quiet zone, whichever way the symbol is printed
                    // (a tightly cropped light-on-dark symbol has none in the image).
                    let outside = x < 0 || y < 0 || x >= Double(image.width) || y >= Double(image.height)
                    let d = !outside && (isDark ? g < threshold : g > threshold)
                    if d == (phase % 2 == 1) {
                        phase += 1
                        if phase == 3 {
                            edge = r
                            break
                        }
                    }
                    r += module / 8
                }
                if let edge { radii.append((phi, edge)) }
            }
            guard radii.count >= rays * 3 / 4 else { return nil }
            var best: (theta: Double, spread: Double, side: Double)?
            for step in 0..<90 {
                let theta = Double(step) * Double.pi / 180
                let halves = radii.map { $0.r * max(abs(cos($0.phi - theta)), abs(sin($0.phi - theta))) }
                let mean = halves.reduce(0, +) / Double(halves.count)
                let spread = halves.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(halves.count)
                if spread < best?.spread ?? .infinity { best = (theta, spread, mean) }
            }
            guard let best, best.spread.squareRoot() < 0.6 * module else { return nil }
            // The edge is found a sixteenth of a module past it on average.
            let pitch = (best.side - module / 16) / 3.5
            return (best.theta, pitch, dark, light)
        }
    }
}

extension QRBitstream {
    /// Reads a Micro QR data stream of `dataBits` bits for version M`version`: mode indicators of
    /// version − 1 bits, the character count lengths and terminator of that version; nil when the
    /// stream is not valid (a mode the version lacks, a count past the data, non-zero bits after the
    /// terminator).
    init?(micro data: [UInt8], version: Int, dataBits: Int) {
        var reader = BitReader(data)
        let modeBits = version - 1
        let terminator = 2 * version + 1
        // Count lengths by mode (numeric, alphanumeric, byte, Kanji), 0 where the version lacks it.
        let counts = [[3, 0, 0, 0], [4, 3, 0, 0], [5, 4, 4, 3], [6, 5, 5, 4]][version - 1]
        loop: while true {
            let left = dataBits - reader.position
            if left <= 0 { break }
            if left < terminator || (0..<terminator).allSatisfy({ k in reader.peekBit(k) == 0 }) {
                // The terminator, or what remains of it: zeros to the end of the data (padding after
                // it is checked below).
                break loop
            }
            let mode = modeBits == 0 ? 0 : reader.read(modeBits)
            guard mode < 4, counts[mode] > 0 else { return nil }
            let count = reader.read(counts[mode])
            guard count > 0 else { return nil }
            switch mode {
            case 0:
                guard let digits = Self.numeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .numeric, bytes: digits, eci: nil))
            case 1:
                guard let chars = Self.alphanumeric(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .alphanumeric, bytes: chars, eci: nil))
            case 2:
                guard dataBits - reader.position >= 8 * count else { return nil }
                segments.append(QRSegment(mode: .byte, bytes: (0..<count).map { _ in UInt8(reader.read(8)) }, eci: nil))
            default:
                guard let pairs = Self.kanji(&reader, count) else { return nil }
                segments.append(QRSegment(mode: .kanji, bytes: pairs, eci: nil))
            }
            if reader.overrun || reader.position > dataBits { return nil }
        }
        guard !segments.isEmpty else { return nil }
        // After the terminator: zero bits to a codeword boundary, then the pad codewords 0xEC, 0x11
        // (a last 4-bit codeword is padded with zeros).
        var bit = reader.position
        while bit < dataBits && (bit % 8 != 0 || dataBits - bit < 8) {
            if data[bit / 8] >> (7 - bit % 8) & 1 != 0 { return nil }
            bit += 1
        }
        var expected: UInt8 = 0xEC
        while bit + 8 <= dataBits {
            if data[bit / 8] != expected { paddingIsStandard = false }
            expected = expected == 0xEC ? 0x11 : 0xEC
            bit += 8
        }
    }
}

extension BitReader {
    /// The bit `offset` bits ahead, without moving (0 past the end).
    func peekBit(_ offset: Int) -> Int {
        let bit = position + offset
        guard bit < bytes.count * 8 else { return 0 }
        return Int(bytes[bit / 8] >> (7 - bit % 8) & 1)
    }
}
