import Foundation
import SeerImage

/// A small convolutional network that reads a whole straightened plate row at once, without
/// segmenting it into glyphs: one output column per 8 columns of the rectified row, each a
/// probability over blank and A–Z 0–9, trained with CTC (connectionist temporal classification).
///
/// It was trained only on plate rows rendered from fonts Debian ships (US, EU and Brazilian
/// layouts with their frames, bands, state names, bolts and stickers, photographed with blur,
/// glare, shadow, dirt, JPEG loss and noise, and cut out as the rectifier cuts them): see
/// `scripts/plate-ocr/`, which writes `Resources/plate-ctc.spr`.
///
/// Layers: four 3×3 convolutions with ReLU and max-pooling (height 32 → 2, width ÷ 4), a 2×3
/// convolution over the remaining two rows (ReLU), and a linear layer per column.
public struct SequenceRecognizer: Sendable {
    /// The classes after the blank (output 0), in output order.
    public let classes: [Character]
    private let layers: [Layer]

    /// Rows of the network's input: the rectified row's band of ±0.8 glyph heights around its
    /// centre line, averaged 2×2 (the rectifier's glyphs are 40 px tall, so 20 px here).
    static let height = 32
    /// Input columns per output column.
    static let stride = 4

    struct Layer: Sendable {
        var inputs: Int, outputs: Int, kh: Int, kw: Int, padY: Int, padX: Int
        /// Max-pooling after the ReLU (1 = none); the last layer has neither.
        var poolY: Int, poolX: Int
        var relu: Bool
        var weights: [Float]
        var bias: [Float]
    }

    /// The model shipped with Seer, or nil if its data is unreadable (a build error caught by tests).
    public static let standard: SequenceRecognizer? = SequenceRecognizer(bytes: PackageResources.plate_ctc_spr)

    /// Loads a model written by `scripts/plate-ocr/train.py` from a file; nil when the file cannot be
    /// read or is not such a model (see ``init(parsing:)``).
    public init?(contentsOf path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    /// ``init(parsing:)``, nil when the bytes are refused.
    @_spi(Fuzzing) public init?(bytes: [UInt8]) {
        guard let model = try? Self(parsing: bytes) else { return nil }
        self = model
    }

    /// Parses the format written by `scripts/plate-ocr/train.py` (`scripts/plate-ocr/modelfile.py`
    /// describes it): the ASCII magic `SPR2`, little-endian Int32 `height c1 c2 c3 c4 head classes`,
    /// the class characters (one byte each, the blank first), then layer by layer in PyTorch's order
    /// one Float32 scale per output channel, the weights as Int8 and the Float32 biases. Throws when
    /// the bytes are not such a file (a wrong magic, version or shape, too few or too many bytes).
    public init(parsing bytes: [UInt8]) throws(PlateModelError) {
        var reader = try ModelBytes(bytes, family: "SPR")
        _ = try reader.field("height", in: Self.height...Self.height)
        var c: [Int] = []
        for k in 1...4 { c.append(try reader.field("c\(k)", in: 1...256)) }
        let head = try reader.field("head", in: 1...1024)
        let classCount = try reader.field("classes", in: 2...64)
        classes = try reader.bytes(classCount).dropFirst().map { Character(UnicodeScalar($0)) }
        let shapes: [(inputs: Int, outputs: Int, kh: Int, kw: Int, padY: Int, padX: Int, poolY: Int, poolX: Int, relu: Bool)] = [
            (1, c[0], 3, 3, 1, 1, 2, 2, true), (c[0], c[1], 3, 3, 1, 1, 2, 1, true), (c[1], c[2], 3, 3, 1, 1, 2, 2, true),
            (c[2], c[3], 3, 3, 1, 1, 2, 1, true), (c[3], head, 2, 3, 0, 1, 1, 1, true), (head, classCount, 1, 1, 0, 0, 1, 1, false),
        ]
        let values = try reader.layers(shapes.map { ($0.outputs, $0.inputs * $0.kh * $0.kw) })
        layers = zip(shapes, values).map { s, v in
            Layer(
                inputs: s.inputs, outputs: s.outputs, kh: s.kh, kw: s.kw, padY: s.padY, padX: s.padX, poolY: s.poolY, poolX: s.poolX,
                relu: s.relu, weights: v.weights, bias: v.bias)
        }
    }

    /// The network's input from a rectified row (glyphs dark on light, 40 px tall, centre line
    /// at mid-height): the band of ±32 rows around the middle averaged 2×2, stretched between its
    /// 2nd and 98th percentiles (at least 8 levels apart) to 0 (dark) … 1 (light), and padded to a
    /// multiple of `stride` columns by repeating the last one. Nil when the row is too narrow.
    static func input(_ rect: GrayImage) -> (values: [Float], width: Int, used: Int)? {
        let used = rect.width / 2
        guard used >= stride * 2, rect.height >= 8 else { return nil }
        let width = (used + stride - 1) / stride * stride
        let top = Int((Double(rect.height) / 2).rounded()) - height
        var values = [Float](repeating: 0, count: height * width)
        rect.pixels.withUnsafeBufferPointer { src in
            let w = rect.width, h = rect.height
            for r in 0..<height {
                let y0 = min(h - 1, max(0, top + 2 * r)), y1 = min(h - 1, max(0, top + 2 * r + 1))
                for x in 0..<used {
                    let a = Int(src[y0 * w + 2 * x]) + Int(src[y0 * w + 2 * x + 1]) + Int(src[y1 * w + 2 * x]) + Int(src[y1 * w + 2 * x + 1])
                    values[r * width + x] = Float(a) / 4
                }
            }
        }
        var sorted = [Float]()
        sorted.reserveCapacity(height * used)
        for r in 0..<height { sorted += values[(r * width)..<(r * width + used)] }
        sorted.sort()
        let n = sorted.count
        let lo = sorted[(n - 1) * 2 / 100]
        let hi = max(sorted[(n - 1) * 98 / 100], lo + 8)
        for r in 0..<height {
            for x in 0..<width {
                let v = values[r * width + min(x, used - 1)]
                values[r * width + x] = max(0, min(1, (v - lo) / (hi - lo)))
            }
        }
        return (values, width, used)
    }

    /// Per output column (`used / stride` of them), the probabilities of blank (index 0) and of
    /// each of ``classes``.
    public func columns(_ rect: GrayImage) -> [[Float]] {
        guard let (values, width, used) = Self.input(rect) else { return [] }
        var plane = values
        var h = Self.height, w = width
        for layer in layers {
            (plane, h, w) = Self.apply(layer, plane, height: h, width: w)
        }
        // plane: classes × 1 × w.
        let count = classes.count + 1
        let t = min(w, used / Self.stride)
        return (0..<t).map { x in
            var logits = (0..<count).map { plane[$0 * w + x] }
            let m = logits.max() ?? 0
            var sum: Float = 0
            for k in logits.indices {
                logits[k] = exp(logits[k] - m)
                sum += logits[k]
            }
            return logits.map { $0 / sum }
        }
    }

    /// One layer: convolution (zero padding), then ReLU and max-pooling where the layer has them.
    /// The convolution is a matrix product: the input's patches are laid out one row per weight
    /// (input plane, ky, kx; zero outside the input) and one column per output pixel, and each
    /// output plane is its bias plus its weights times those rows, computed four planes by eight
    /// pixels at a time in registers.
    private static func apply(_ layer: Layer, _ input: [Float], height h: Int, width w: Int) -> ([Float], Int, Int) {
        let ho = h + 2 * layer.padY - layer.kh + 1, wo = w + 2 * layer.padX - layer.kw + 1
        let n = ho * wo, k = layer.inputs * layer.kh * layer.kw
        var patches = [Float](repeating: 0, count: k * n)
        input.withUnsafeBufferPointer { src in
            patches.withUnsafeMutableBufferPointer { dst in
                var row = 0
                for i in 0..<layer.inputs {
                    for ky in 0..<layer.kh {
                        for kx in 0..<layer.kw {
                            defer { row += 1 }
                            let dx = kx - layer.padX
                            let xStart = max(0, -dx), xEnd = min(wo, w - dx)
                            guard xEnd > xStart else { continue }
                            for y in 0..<ho {
                                let sy = y + ky - layer.padY
                                guard sy >= 0, sy < h else { continue }
                                let d = row * n + y * wo, s = (i * h + sy) * w + dx
                                for x in xStart..<xEnd { dst[d + x] = src[s + x] }
                            }
                        }
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: layer.outputs * n)
        patches.withUnsafeBufferPointer { a in
            layer.weights.withUnsafeBufferPointer { wt in
                layer.bias.withUnsafeBufferPointer { bias in
                    out.withUnsafeMutableBufferPointer { dst in
                        Self.multiply(a.baseAddress!, wt.baseAddress!, bias.baseAddress!, dst.baseAddress!, outputs: layer.outputs, k: k, n: n)
                    }
                }
            }
        }
        guard layer.relu else { return (out, ho, wo) }
        let hp = ho / layer.poolY, wp = wo / layer.poolX
        if layer.poolY == 1 && layer.poolX == 1 {
            return (out.map { max(0, $0) }, ho, wo)
        }
        var pooled = [Float](repeating: 0, count: layer.outputs * hp * wp)
        out.withUnsafeBufferPointer { src in
            pooled.withUnsafeMutableBufferPointer { dst in
                for o in 0..<layer.outputs {
                    for y in 0..<hp {
                        for x in 0..<wp {
                            var m: Float = 0  // ReLU: the maximum is at least 0
                            for py in 0..<layer.poolY {
                                for px in 0..<layer.poolX {
                                    m = max(m, src[(o * ho + y * layer.poolY + py) * wo + x * layer.poolX + px])
                                }
                            }
                            dst[(o * hp + y) * wp + x] = m
                        }
                    }
                }
            }
        }
        return (pooled, hp, wp)
    }

    /// `out[o][t] = bias[o] + Σ_r weights[o][r] · a[r][t]` for `outputs` × `n` outputs, `k` terms:
    /// blocks of four outputs by eight columns kept in registers, the rest one by one.
    private static func multiply(
        _ a: UnsafePointer<Float>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
        outputs: Int, k: Int, n: Int
    ) {
        let n8 = n / 8 * 8
        var o = 0
        while o + 4 <= outputs {
            let w0 = weights + o * k, w1 = w0 + k, w2 = w1 + k, w3 = w2 + k
            var t = 0
            while t < n8 {
                var s0 = SIMD8<Float>(repeating: bias[o]), s1 = SIMD8<Float>(repeating: bias[o + 1])
                var s2 = SIMD8<Float>(repeating: bias[o + 2]), s3 = SIMD8<Float>(repeating: bias[o + 3])
                for r in 0..<k {
                    let v = UnsafeRawPointer(a + r * n + t).loadUnaligned(as: SIMD8<Float>.self)
                    s0 += w0[r] * v
                    s1 += w1[r] * v
                    s2 += w2[r] * v
                    s3 += w3[r] * v
                }
                UnsafeMutableRawPointer(out + o * n + t).storeBytes(of: s0, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(out + (o + 1) * n + t).storeBytes(of: s1, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(out + (o + 2) * n + t).storeBytes(of: s2, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(out + (o + 3) * n + t).storeBytes(of: s3, as: SIMD8<Float>.self)
                t += 8
            }
            o += 4
        }
        // What the blocks left: whole planes past the last four, and the last columns of the others.
        for p in 0..<outputs {
            let from = p < o ? n8 : 0
            guard from < n else { continue }
            let wp = weights + p * k
            for t in from..<n {
                var sum = bias[p]
                for r in 0..<k { sum += wp[r] * a[r * n + t] }
                out[p * n + t] = sum
            }
        }
    }

    /// A reading as positions for the candidate search: CTC's best path (the likeliest class per
    /// column, repeats merged, blanks dropped), each character's probabilities the mean of its
    /// columns' non-blank probabilities, renormalised. `centres` are the characters' centres in
    /// the rectified row's columns.
    func read(_ rect: GrayImage) -> (positions: [Position], centres: [Double]) {
        let cols = columns(rect)
        var positions: [Position] = [], centres: [Double] = []
        var run: [Int] = []
        var runClass = 0
        func close() {
            guard !run.isEmpty, runClass != 0 else { return }
            var p = [Float](repeating: 0, count: classes.count)
            for t in run {
                for k in 0..<classes.count { p[k] += cols[t][k + 1] }
            }
            let sum = max(1e-6, p.reduce(0, +))
            let ranked = p.indices.sorted { p[$0] > p[$1] }.prefix(6).filter { p[$0] / sum > 0.002 }
            positions.append(Position(options: ranked.map { (classes[$0], Double(p[$0] / sum)) }))
            let mid = Double(run.first! + run.last!) / 2
            centres.append((mid + 0.5) * Double(2 * Self.stride))
        }
        for (t, c) in cols.enumerated() {
            let best = c.indices.max { c[$0] < c[$1] } ?? 0
            if best != runClass || best == 0 {
                close()
                run = []
            }
            runClass = best
            if best != 0 { run.append(t) }
        }
        close()
        return (positions, centres)
    }

    /// The natural log of the probability that CTC's columns spell exactly `text` (summed over every
    /// alignment: blanks anywhere, each character over one or more columns, a repeated character
    /// with a blank between its copies). `-infinity` when the text has a character outside
    /// ``classes`` or needs more columns than there are.
    public func logLikelihood(of text: String, columns: [[Float]]) -> Double {
        var labels: [Int] = []
        for c in text {
            guard let k = classes.firstIndex(of: c) else { return -.infinity }
            labels.append(k + 1)
        }
        let states = 2 * labels.count + 1
        guard !columns.isEmpty, columns.count >= labels.count else { return -.infinity }
        // State s: even = a blank before label s/2 (or after the last), odd = label (s-1)/2.
        func symbol(_ s: Int) -> Int { s % 2 == 0 ? 0 : labels[s / 2] }
        var alpha = [Double](repeating: 0, count: states)
        alpha[0] = Double(columns[0][0])
        if states > 1 { alpha[1] = Double(columns[0][symbol(1)]) }
        var logScale = 0.0
        func normalise() -> Bool {
            let sum = alpha.reduce(0, +)
            guard sum > 0 else { return false }
            for s in alpha.indices { alpha[s] /= sum }
            logScale += Foundation.log(sum)
            return true
        }
        guard normalise() else { return -.infinity }
        var next = alpha
        for t in columns.indices.dropFirst() {
            let column = columns[t]
            for s in 0..<states {
                var a = alpha[s]
                if s >= 1 { a += alpha[s - 1] }
                if s >= 2, s % 2 == 1, symbol(s) != symbol(s - 2) { a += alpha[s - 2] }
                next[s] = a * Double(column[symbol(s)])
            }
            swap(&alpha, &next)
            guard normalise() else { return -.infinity }
        }
        let end = alpha[states - 1] + (states > 1 ? alpha[states - 2] : 0)
        guard end > 0 else { return -.infinity }
        return logScale + Foundation.log(end)
    }
}
