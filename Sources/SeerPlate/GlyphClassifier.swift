import Foundation
import SeerImage

/// One segmented glyph: its ink as a bit mask cropped to its bounding box.
struct GlyphMask: Sendable {
    var width: Int
    var height: Int
    /// Row-major, 1 = ink.
    var bits: [UInt8]
}

/// A small convolutional network that reads one plate glyph (A–Z, 0–9).
///
/// The network was trained on glyphs rendered from the fonts Debian ships (condensed, regular and
/// wide sans faces, DIN and gothic faces), distorted the way photographed plates are (scale, shear,
/// blur, noise, uneven light, JPEG) and binarised as the segmenter binarises: see
/// `scripts/plate-glyphs/`, which writes `Resources/glyph-mask.sgc` and `Resources/glyph-grey.sgc`.
/// It gives every character a probability, which Tesseract's LSTM choices do not, so the candidate
/// search can weigh real alternatives.
///
/// Layers: three 3×3 convolutions (ReLU, 2×2 max-pooling) over a 32×32 canvas, a hidden layer
/// (ReLU) and a softmax over the classes.
struct GlyphClassifier: Sendable {
    /// The classes, in output order.
    let classes: [Character]
    private let channels: [Int]
    private let hidden: Int
    private let convWeights: [[Float]]
    private let convBiases: [[Float]]
    private let hiddenWeights: [Float]
    private let hiddenBias: [Float]
    private let outWeights: [Float]
    private let outBias: [Float]

    static let size = 32
    static let glyphHeight = 28
    static let maxWidth = 30

    /// The models shipped with Seer (one reads the glyph's mask, one the grey row under its box),
    /// or empty if their data is unreadable (a build error caught by tests). Their weights are the
    /// binary resources `Resources/glyph-mask.sgc` and `Resources/glyph-grey.sgc`, embedded in the
    /// library at build time.
    static let standard: [GlyphClassifier] = [
        GlyphClassifier(bytes: PackageResources.glyph_mask_sgc, input: .mask),
        GlyphClassifier(bytes: PackageResources.glyph_grey_sgc, input: .grey),
    ].compactMap { $0 }

    /// What a model reads.
    enum Input: Sendable {
        /// The glyph's binarised ink.
        case mask
        /// The grey straightened row under the glyph's box.
        case grey
    }

    /// What this model reads.
    let input: Input

    /// ``init(parsing:input:)``, nil when the bytes are refused.
    init?(bytes: [UInt8], input: Input = .mask) {
        guard let model = try? Self(parsing: bytes, input: input) else { return nil }
        self = model
    }

    /// Parses the model format written by `scripts/plate-glyphs/train.py` (`scripts/plate-ocr/modelfile.py`
    /// describes it): the ASCII magic `SGC2`, little-endian Int32 `c1 c2 c3 hidden classes`, the
    /// class characters (one byte each), then layer by layer in PyTorch's order one Float32 scale per
    /// output channel, the weights as Int8 and the Float32 biases.
    init(parsing bytes: [UInt8], input: Input = .mask) throws(PlateModelError) {
        self.input = input
        var reader = try ModelBytes(bytes, family: "SGC")
        var c: [Int] = []
        for k in 1...3 { c.append(try reader.field("c\(k)", in: 1...256)) }
        let hidden = try reader.field("hidden", in: 1...4096)
        let classCount = try reader.field("classes", in: 1...64)
        classes = try reader.bytes(classCount).map { Character(UnicodeScalar($0)) }
        let side = Self.size / 8
        let layers = try reader.layers([
            (c[0], 9), (c[1], c[0] * 9), (c[2], c[1] * 9), (hidden, c[2] * side * side), (classCount, hidden),
        ])
        channels = c
        self.hidden = hidden
        convWeights = layers[0..<3].map(\.weights)
        convBiases = layers[0..<3].map(\.bias)
        hiddenWeights = layers[3].weights
        hiddenBias = layers[3].bias
        outWeights = layers[4].weights
        outBias = layers[4].bias
    }

    /// The glyph on the network's canvas: 28 px tall, aspect kept (at most 30 px wide), centred,
    /// each pixel the fraction of ink it covers (area averaging).
    static func canvas(_ glyph: GlyphMask) -> [Float] {
        place(glyph.bits.map { Float($0) }, width: glyph.width, height: glyph.height)
    }

    /// The grey row under a glyph's box (dark glyph on light ground) on the canvas, as ink: 1 at
    /// the crop's 5th percentile and darker, 0 at its 95th and lighter (at least 8 levels apart).
    static func greyCanvas(_ crop: GrayImage) -> [Float] {
        let sorted = crop.pixels.sorted()
        let n = sorted.count
        guard n > 0 else { return [Float](repeating: 0, count: size * size) }
        let lo = Int(sorted[(n - 1) * 5 / 100])
        let hi = max(Int(sorted[(n - 1) * 95 / 100]), lo + 8)
        let range = Float(hi - lo)
        let ink = crop.pixels.map { max(0, min(1, Float(hi - Int($0)) / range)) }
        return place(ink, width: crop.width, height: crop.height)
    }

    /// `values` (row-major, `width` × `height`) resampled by area averaging to 28 rows, aspect kept
    /// (at most 30 columns), centred on the zero canvas.
    static func place(_ values: [Float], width: Int, height: Int) -> [Float] {
        let th = glyphHeight
        let tw = max(1, min(maxWidth, Int((Double(width) * Double(th) / Double(height) + 0.5).rounded(.down))))
        // Separable area averaging: rows first, then columns.
        let ry = areaWeights(from: height, to: th)
        let rx = areaWeights(from: width, to: tw)
        var rows = [Float](repeating: 0, count: th * width)
        for (o, taps) in ry.enumerated() {
            for (i, w) in taps {
                for x in 0..<width where values[i * width + x] != 0 { rows[o * width + x] += w * values[i * width + x] }
            }
        }
        var out = [Float](repeating: 0, count: size * size)
        let y0 = (size - th) / 2, x0 = (size - tw) / 2
        for y in 0..<th {
            for (o, taps) in rx.enumerated() {
                var v: Float = 0
                for (i, w) in taps { v += w * rows[y * width + i] }
                out[(y0 + y) * size + x0 + o] = v
            }
        }
        return out
    }

    /// For each output sample, the input samples it covers and their normalised overlaps.
    static func areaWeights(from n: Int, to m: Int) -> [[(Int, Float)]] {
        let scale = Double(n) / Double(m)
        return (0..<m).map { o in
            let lo = Double(o) * scale, hi = Double(o + 1) * scale
            var taps: [(Int, Double)] = []
            for i in Int(lo.rounded(.down))..<min(n, Int(hi.rounded(.up))) {
                let w = max(0, min(hi, Double(i + 1)) - max(lo, Double(i)))
                if w > 0 { taps.append((i, w)) }
            }
            let total = taps.reduce(0) { $0 + $1.1 }
            return taps.map { ($0.0, Float($0.1 / total)) }
        }
    }

    /// Class probabilities for one glyph, in ``classes`` order, from its mask or its grey crop
    /// (whichever this model reads).
    func probabilities(_ glyph: GlyphMask, crop: GrayImage? = nil) -> [Float] {
        guard glyph.width > 0, glyph.height > 0 else { return Array(repeating: 1 / Float(classes.count), count: classes.count) }
        var planes: [Float]
        switch input {
        case .mask: planes = Self.canvas(glyph)
        case .grey:
            guard let crop, crop.width > 0, crop.height > 0 else { return Array(repeating: 1 / Float(classes.count), count: classes.count) }
            planes = Self.greyCanvas(crop)
        }
        var side = Self.size
        var inputs = 1
        for layer in 0..<3 {
            planes = Self.convolveReLUPool(planes, inputs: inputs, side: side, weights: convWeights[layer], biases: convBiases[layer], outputs: channels[layer])
            inputs = channels[layer]
            side /= 2
        }
        let features = planes.count
        var h = hiddenBias
        hiddenWeights.withUnsafeBufferPointer { w in
            planes.withUnsafeBufferPointer { x in
                for j in 0..<hidden {
                    var s: Float = 0
                    let row = j * features
                    for i in 0..<features { s += w[row + i] * x[i] }
                    h[j] = max(0, h[j] + s)
                }
            }
        }
        var logits = outBias
        for k in 0..<logits.count {
            var s: Float = 0
            for j in 0..<hidden { s += outWeights[k * hidden + j] * h[j] }
            logits[k] += s
        }
        let top = logits.max() ?? 0
        let e = logits.map { Float(exp(Double($0 - top))) }
        let sum = e.reduce(0, +)
        return e.map { $0 / sum }
    }

    /// A 3×3 convolution (zero padding), ReLU and 2×2 max-pooling over planar channels.
    ///
    /// Each input plane is copied into a zero-bordered plane `side + 2` wide; the output is
    /// accumulated on the same wide grid, so every kernel tap is one multiply-add over a contiguous
    /// run of the whole plane (the border columns collect junk that is never read).
    static func convolveReLUPool(_ input: [Float], inputs: Int, side: Int, weights: [Float], biases: [Float], outputs: Int) -> [Float] {
        let stride = side + 2
        let planeSize = stride * stride
        // One zero row after the last plane so the largest tap offset stays in bounds.
        var pad = [Float](repeating: 0, count: inputs * planeSize + stride)
        for c in 0..<inputs {
            for y in 0..<side {
                for x in 0..<side { pad[c * planeSize + (y + 1) * stride + x + 1] = input[c * side * side + y * side + x] }
            }
        }
        let run = side * stride  // output rows 0..<side on the wide grid
        let half = side / 2
        var out = [Float](repeating: 0, count: outputs * half * half)
        var acc = [Float](repeating: 0, count: run)
        pad.withUnsafeBufferPointer { p in
            weights.withUnsafeBufferPointer { w in
                acc.withUnsafeMutableBufferPointer { a in
                    out.withUnsafeMutableBufferPointer { o in
                        guard let pa = p.baseAddress, let aa = a.baseAddress else { return }
                        for oc in 0..<outputs {
                            let bias = biases[oc]
                            for i in 0..<run { aa[i] = bias }
                            for ic in 0..<inputs {
                                let k = (oc * inputs + ic) * 9
                                for tap in 0..<9 {
                                    let wv = w[k + tap]
                                    let src = pa + ic * planeSize + (tap / 3) * stride + tap % 3
                                    for i in 0..<run { aa[i] += wv * src[i] }
                                }
                            }
                            let base = oc * half * half
                            for y in 0..<half {
                                for x in 0..<half {
                                    let i = 2 * y * stride + 2 * x
                                    let m = max(max(aa[i], aa[i + 1]), max(aa[i + stride], aa[i + stride + 1]))
                                    o[base + y * half + x] = max(0, m)
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
