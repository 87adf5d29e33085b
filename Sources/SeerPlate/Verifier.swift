import Foundation
import SeerImage

/// What the reader saw of one plate reading: the evidence its ``PlateReading/confidence`` is
/// computed from. Every value is measured on the reading's own straightened row (glyphs 40 px
/// tall) or taken from the reading's candidates; none depends on the photo's file or size.
public struct PlateEvidence: Codable, Sendable, Equatable {
    /// The best candidate's score (geometric mean of its characters' probabilities × format
    /// weight × swap and drop costs), 0–1.
    public var score: Double
    /// The runner-up candidate's score over the best one's, 0–1 (1: a tie).
    public var runnerUp: Double
    /// Whether the best candidate matched a format of the region's grammar.
    public var formatMatched: Bool
    /// The weight of the format matched (1 for a region's own layouts, lower for catch-alls such
    /// as the US `general` rule), 0 when none matched.
    public var formatWeight: Double
    /// Whether the text mixes letters and digits, as nearly every plate does (words and numbers
    /// on signs and labels do not).
    public var mixed: Bool
    /// Characters the grammar took against the readers' first choice (O read, 0 taken).
    public var swaps: Int
    /// Characters in the reading.
    public var length: Int
    /// How plate-like the glyph row's spacing is (``GlyphRow/layoutPrior``), 0–1.
    public var layout: Double
    /// The row's glyph height over the tallest credible row's in the photo, 0–1.
    public var heightRatio: Double
    /// Whether the row touches the photo's top or bottom edge (3 %).
    public var atEdge: Bool
    /// Whether the row touches the photo's left or right edge (1 %): text cut off by the frame.
    public var atSide: Bool
    /// Other text rows of about the same glyph height continuing the row's line or standing
    /// just above or below it: text in a sentence, a label or a sign; a plate's characters stand
    /// alone.
    public var neighbours: Int
    /// How much of a straight edge runs along the glyph band above it (0–1): the share of the
    /// band's width where, at the best distance between 0.15 and 1.2 glyph heights away, the
    /// intensity steps across, all the same way (dark to light or light to dark). A plate's own border or its edge against the car gives one; text
    /// on a wide sign or a page does not.
    public var frameTop: Double
    /// The same below the glyph band.
    public var frameBottom: Double
    /// The same left of the glyphs (0.1–1.5 glyph heights away), over the band's height.
    public var frameLeft: Double
    /// The same right of the glyphs.
    public var frameRight: Double
    /// Share of glyphs on which Tesseract's first choice is the glyph classifiers' first choice.
    public var agreement: Double
    /// Mean of the glyph classifiers' probability for the character chosen at each position.
    public var classifierMean: Double
    /// Ground level minus ink level in the contrast-stretched row, over 255.
    public var contrast: Double
    /// Mean absolute deviation of the ground between and around the glyphs, over the contrast
    /// (a plate's ground is one even colour; foliage, grilles and printed matter are not).
    public var groundSpread: Double
    /// Share of ink-dark pixels in the strips just above and below the glyph band (from 0.1 to
    /// 0.4 glyph heights away): a plate's characters have a clear border of ground; a line of
    /// text in a paragraph, a label or a screen has more text above or below it.
    public var borderInk: Double
    /// Share of ink-dark pixels in the glyph band outside the glyphs' boxes: a plate's ground
    /// between its characters is clear (a separator, a sticker at most); a code's modules or
    /// a texture leave ink everywhere.
    public var strayInk: Double
    /// Mean absolute deviation of the glyph heights over their median.
    public var heightSpread: Double
    /// Mean absolute deviation of the spacing between glyph centres over its median, the widest
    /// gap (a separator or an emblem) left out.
    public var pitchSpread: Double
    /// The glyph band's width over its height.
    public var aspect: Double
    /// Distinct text rows of about the same glyph height (0.7–1.45 times) standing above or below
    /// the row within 3.6 glyph heights and overlapping it sideways (the upper line of a two-row
    /// plate left out): the lines of a label, a screen, a receipt or a notice. A plate's other
    /// text (a state, a slogan, a dealer's frame) is much smaller.
    public var stacked: Int
    /// The reading's place in the photo's ranking (0: the first).
    public var rank: Int
    /// The reading's ranking value over the photo's first one's, 0–1.
    public var rankRatio: Double
}

/// Plate-likeness measured on a straightened row: the ground, border and regularity of the
/// glyphs the segmenter kept.
enum PlateLikeness {
    struct Measure {
        var contrast = 0.0
        var groundSpread = 1.0
        var strayInk = 1.0
        var borderInk = 1.0
        var heightSpread = 1.0
        var pitchSpread = 1.0
        var aspect = 0.0
        var frame = Frame()
    }

    /// Edge coverage on each side of the glyph band (see ``PlateEvidence/frameTop``).
    struct Frame {
        var top = 0.0, bottom = 0.0, left = 0.0, right = 0.0
    }

    static func measure(_ rect: RectifiedRow, _ row: GlyphRow, in source: GrayImage) -> Measure {
        var out = Measure()
        out.frame = frame(rect, row, in: source)
        let boxes = row.boxes
        guard boxes.count >= 2, boxes.count == row.masks.count else { return out }
        let image = Rectifier.stretched(rect.image)
        let w = image.width, h = image.height
        let heights = boxes.map { Double($0.y1 - $0.y0 + 1) }.sorted()
        let g = heights[heights.count / 2]
        let (left, right, top, bottom) = row.extent
        // Ink: the kept glyphs' own pixels. Ground: the band's pixels outside every glyph box.
        var inside = [Bool](repeating: false, count: w * h)
        var ink: [UInt8] = []
        for (b, m) in zip(boxes, row.masks) {
            for y in b.y0...b.y1 where y >= 0 && y < h {
                for x in b.x0...b.x1 where x >= 0 && x < w {
                    inside[y * w + x] = true
                    if m.bits[(y - b.y0) * m.width + x - b.x0] != 0 { ink.append(image.pixels[y * w + x]) }
                }
            }
        }
        var ground: [UInt8] = []
        guard max(0, top) <= min(h - 1, bottom), max(0, left) <= min(w - 1, right) else { return out }
        for y in max(0, top)...min(h - 1, bottom) {
            for x in max(0, left)...min(w - 1, right) where !inside[y * w + x] { ground.append(image.pixels[y * w + x]) }
        }
        guard !ink.isEmpty, ground.count >= 8 else { return out }
        let inkLevel = median(ink), groundLevel = median(ground)
        let contrast = groundLevel - inkLevel
        out.contrast = contrast / 255
        if contrast > 1 {
            out.groundSpread = ground.reduce(0.0) { $0 + abs(Double($1) - groundLevel) } / Double(ground.count) / contrast
            let cut = (groundLevel + inkLevel) / 2
            out.strayInk = Double(ground.filter { Double($0) < cut }.count) / Double(ground.count)
            // Border strips above and below the band.
            var dark = 0, total = 0
            for (from, to) in [(Double(top) - 0.4 * g, Double(top) - 0.1 * g), (Double(bottom) + 0.1 * g, Double(bottom) + 0.4 * g)] {
                let y0 = max(0, Int(from.rounded(.up))), y1 = min(h - 1, Int(to.rounded(.down)))
                let x0 = max(0, left), x1 = min(w - 1, right)
                guard y0 <= y1, x0 <= x1 else { continue }
                for y in y0...y1 {
                    for x in x0...x1 {
                        total += 1
                        if Double(image.pixels[y * w + x]) < cut { dark += 1 }
                    }
                }
            }
            out.borderInk = total > 0 ? Double(dark) / Double(total) : 1
        }
        out.heightSpread = heights.reduce(0) { $0 + abs($1 - g) } / Double(heights.count) / g
        let centres = boxes.map { Double($0.x0 + $0.x1) / 2 }.sorted()
        var pitches = zip(centres.dropFirst(), centres).map { $0 - $1 }.sorted()
        if pitches.count >= 3 { pitches.removeLast() }
        let pitch = pitches[pitches.count / 2]
        out.pitchSpread = pitch > 0 ? pitches.reduce(0) { $0 + abs($1 - pitch) } / Double(pitches.count) / pitch : 1
        out.aspect = Double(right - left + 1) / Double(max(1, bottom - top + 1))
        return out
    }

    /// Looks for the plate's border around the glyph band, in the photo itself along the row's
    /// straightened axes (the straightened crop is too tight to hold it).
    static func frame(_ rect: RectifiedRow, _ row: GlyphRow, in source: GrayImage) -> Frame {
        let (u0, u1, v0, v1) = row.extent
        let g = Double(max(4, v1 - v0))
        guard u1 > u0 else { return Frame() }
        // Nearest-pixel samples of the photo at straightened coordinates.
        func at(_ u: Double, _ v: Double) -> Int? {
            let (x, y) = rect.toSource(u, v)
            let xi = Int(x.rounded()), yi = Int(y.rounded())
            guard xi >= 0, yi >= 0, xi < source.width, yi < source.height else { return nil }
            return Int(source.pixels[yi * source.width + xi])
        }
        // The step that counts: a quarter of the band's own spread of grey (10th to 90th percentile).
        var band: [Int] = []
        for v in stride(from: Double(v0), through: Double(v1), by: 2) {
            for u in stride(from: Double(u0), through: Double(u1), by: 2) { if let p = at(u, v) { band.append(p) } }
        }
        guard band.count >= 8 else { return Frame() }
        band.sort()
        let step = max(12, Double(band[band.count * 9 / 10] - band[band.count / 10]) / 4)
        let d = 0.06 * g  // half the distance a step is measured across
        // Along a side: the best coverage over distances `from`–`to` beyond the band's edge at
        // `edge`, going outwards in `direction`; `along` spans the side.
        func side(vertical: Bool, edge: Double, direction: Double, from: Double, to: Double, along: ClosedRange<Double>) -> Double {
            var best = 0.0
            let samples = Array(stride(from: along.lowerBound, through: along.upperBound, by: max(1, (along.upperBound - along.lowerBound) / 60)))
            for k in stride(from: from * g, through: to * g, by: max(1, 0.05 * g)) {
                let at0 = edge + direction * k
                // Steps one way and the other are counted apart: an edge steps the same way all
                // along, texture (a code's modules, foliage) half one way and half the other.
                var up = 0, down = 0
                for t in samples {
                    let a = vertical ? at(at0 - d, t) : at(t, at0 - d)
                    let b = vertical ? at(at0 + d, t) : at(t, at0 + d)
                    guard let a, let b else { continue }
                    if Double(a - b) >= step { up += 1 } else if Double(b - a) >= step { down += 1 }
                }
                best = max(best, Double(max(up, down)) / Double(samples.count))
            }
            return best
        }
        let across = Double(u0)...Double(u1), down = Double(v0)...Double(v1)
        return Frame(
            top: side(vertical: false, edge: Double(v0), direction: -1, from: 0.15, to: 1.2, along: across),
            bottom: side(vertical: false, edge: Double(v1), direction: 1, from: 0.15, to: 1.2, along: across),
            left: side(vertical: true, edge: Double(u0), direction: -1, from: 0.1, to: 1.5, along: down),
            right: side(vertical: true, edge: Double(u1), direction: 1, from: 0.1, to: 1.5, along: down))
    }

    private static func median(_ values: [UInt8]) -> Double {
        var hist = [Int](repeating: 0, count: 256)
        for v in values { hist[Int(v)] += 1 }
        var acc = 0
        for (v, n) in hist.enumerated() {
            acc += n
            if acc * 2 >= values.count { return Double(v) }
        }
        return 255
    }
}

/// A reading with the evidence behind its confidence.
public struct PlateFinding: Codable, Sendable, Equatable {
    /// The reading, as ``PlateReader/read(_:region:scaleX:scaleY:minimumConfidence:)`` returns it.
    public var reading: PlateReading
    /// What its confidence was computed from.
    public var evidence: PlateEvidence
}

/// Turns a reading's evidence into the probability that its text is exactly the plate's: a
/// logistic model over ``features(_:)`` whose weights `scripts/plate-calibration/calibrate.py`
/// fits (one weight per measured feature and a bias; docs/plates.md, "Confidence"). Text that is
/// not a plate (signs, labels, codes' modules, screens) is never exactly a plate's text, so the
/// same probability is low for it.
struct Calibration: Sendable {
    /// The model's weights, bias first, in the order of ``features(_:)``.
    var weights: [Double]

    /// The evidence as the model's inputs (the order `calibrate.py` uses).
    static func features(_ e: PlateEvidence) -> [Double] {
        [
            log(max(e.score, 1e-4)), e.runnerUp, e.formatMatched ? 1 : 0, e.formatWeight, e.mixed ? 1 : 0, Double(e.swaps), e.layout,
            e.length > 8 ? 1 : 0, e.length < 5 ? 1 : 0, e.heightRatio, e.atEdge ? 1 : 0, e.atSide ? 1 : 0, Double(min(e.neighbours, 3)), min(e.frameTop, e.frameBottom),
            max(e.frameTop, e.frameBottom), min(e.frameLeft, e.frameRight), max(e.frameLeft, e.frameRight),
            e.agreement, e.classifierMean, e.contrast, e.groundSpread, e.strayInk, e.borderInk, e.heightSpread, e.pitchSpread,
            Double(e.rank == 0 ? 1 : 0), e.rankRatio, Double(min(e.stacked, 3)),
        ]
    }

    /// Below this share of characters on which Tesseract's first choice is the glyph classifiers'
    /// first choice, the two readers disagree, and neither is believed: the confidence is 0. No right
    /// reading of the plate sets is below it (the least is 2 of 7); text that is not Latin (CJK
    /// strokes the segmenter cut apart and the classifiers took for letters) and textures are.
    static let leastAgreement = 0.25

    /// A word or a number (a reading that does not mix letters and digits: a vanity plate, or the
    /// text of a sign, a caption or a label) is a plate only inside a plate's whole border: below
    /// this coverage on its weakest side (``PlateEvidence/frameTop`` and the others) the confidence
    /// is 0. The right readings of the plate sets that are words or numbers have at least 0.66;
    /// a caption under a code's modules or a word on a wall has an edge on three sides at most.
    static let wordFrame = 0.5

    /// The probability that the reading with evidence `e` is exactly right, 0–1.
    func confidence(_ e: PlateEvidence) -> Double {
        if e.agreement < Self.leastAgreement { return 0 }
        if !e.mixed && min(e.frameTop, e.frameBottom, e.frameLeft, e.frameRight) < Self.wordFrame { return 0 }
        let x = Self.features(e)
        guard weights.count == x.count + 1 else { return 0 }
        return 1 / (1 + exp(-zip(weights.dropFirst(), x).reduce(weights[0]) { $0 + $1.0 * $1.1 }))
    }

    /// The shipped weights: `calibrate.py --ridge 3 --weigh synthetic=0.2 synthetic-us=0.2 --photo-scale --swift`
    /// over the findings of the plate sets (region given, read by the default recogniser: US plates by
    /// glyphs and the sequence recogniser combined), of the photos with no plate and of 400 rendered
    /// scenes of text that is not a plate (`negatives.py`, each reading weighed a fifth of a photo's),
    /// the photos and scenes read both with no region and as US plates; the fit's log-odds then
    /// rescaled (two numbers, folded in) so that the photos' readings are calibrated (docs/plates.md).
    static let standard = Calibration(weights: [
        -12.3289, 2.23341, -0.119868, 0.6564, 3.26124, 2.01939, -1.22546, 1.08805, -0.373964, -0.674917, 0.309503,
        -1.10374, 0.166657, -0.272598, 3.83682, 1.07784, 2.12286, -0.895287, -0.690833, 3.76834, -1.77563, -0.0499313,
        -0.304178, 0.436089, -23.6251, -10.3342, 1.27777, 1.11943, -0.635063,
    ])
}
