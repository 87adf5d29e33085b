import Foundation
import SeerImage
import Testing

@testable import SeerPlate

/// The pieces under the reader: connected components, line removal, the glyph classifier.
@Suite struct GlyphTests {
    /// A reproducible pseudo-random mask with blobs of every shape, touching the borders too.
    static func randomMask(width: Int, height: Int, seed: UInt64, density: Double) -> Mask {
        var state = seed
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        return Mask(width: width, height: height, bits: (0..<(width * height)).map { _ in next() < density ? 1 : 0 })
    }

    @Test(arguments: [(0.2, 1), (0.45, 2), (0.6, 3), (0.9, 4)])
    func runComponentsMatchFloodFill(density: Double, seed: Int) {
        let mask = Self.randomMask(width: 97, height: 61, seed: UInt64(seed), density: density)
        var floodLabels: [Int32] = [], runLabels: [Int32] = []
        let flood = Binarize.floodComponents(mask, labels: &floodLabels)
        let runs = Binarize.components(mask, labels: &runLabels)
        #expect(runs.count == flood.count)
        for (a, b) in zip(flood, runs) {
            #expect((a.x0, a.y0, a.x1, a.y1, a.area, a.label) == (b.x0, b.y0, b.x1, b.y1, b.area, b.label))
        }
        #expect(runLabels == floodLabels)
        #expect(Binarize.componentBoxes(mask).map(\.area) == runs.map(\.area))
    }

    @Test func componentsOfKnownShapes() {
        // A U (one component through its bottom) and a separate bar.
        let rows = [
            "#..#..#",
            "#..#..#",
            "####..#",
        ]
        let bits = rows.flatMap { $0.map { $0 == "#" ? UInt8(1) : 0 } }
        let blobs = Binarize.componentBoxes(Mask(width: 7, height: 3, bits: bits))
        #expect(blobs.count == 2)
        #expect((blobs[0].x0, blobs[0].x1, blobs[0].area) == (0, 3, 8))
        #expect((blobs[1].x0, blobs[1].x1, blobs[1].area) == (6, 6, 3))
    }

    @Test func longRunsGoShortStrokesStay() {
        let w = 40
        var bits = [UInt8](repeating: 0, count: w * 3)
        for x in 0..<w { bits[x] = 1 }  // a frame edge across the top row
        for x in 5..<12 { bits[w + x] = 1 }  // a glyph's bar
        bits[2 * w + 5] = 1
        let cleaned = Binarize.withoutLongRuns(Mask(width: w, height: 3, bits: bits), longerThan: 10)
        #expect(cleaned.bits[0..<w].allSatisfy { $0 == 0 })
        #expect(cleaned.bits[(w + 5)..<(w + 12)].allSatisfy { $0 == 1 })
        #expect(cleaned.bits[2 * w + 5] == 1)
    }

    /// A row of glyph boxes (x0, x1, width of the ink) 40 px tall.
    static func row(_ boxes: [(Int, Int)]) -> GlyphRow {
        GlyphRow(
            image: GrayImage(width: 1, height: 1, pixels: [255]), glyphs: boxes.map { (x0: $0.0, x1: $0.1) },
            masks: boxes.map { GlyphMask(width: $0.1 - $0.0 + 1, height: 40, bits: []) }, extent: (0, 0, 0, 0))
    }

    @Test func strokeHardAgainstAnEndGlyphIsStray() {
        // Five glyphs 20 px wide at a 28 px pitch, then a 5 px stroke 2 px after the last.
        let glyphs = (0..<5).map { (28 * $0, 28 * $0 + 19) }
        #expect(Self.row(glyphs + [(134, 138)]).strayEnds == [5])
        #expect(Self.row([(-8, -4)] + glyphs).strayEnds == [0])
        // A 1 one pitch after the last glyph is a character.
        #expect(Self.row(glyphs + [(146, 150)]).strayEnds == [])
        // A wide glyph close by is no stroke; short rows are left alone.
        #expect(Self.row(glyphs + [(134, 150)]).strayEnds == [])
        #expect(Self.row(Array(glyphs.prefix(3)) + [(78, 82)]).strayEnds == [])
    }

    static func symbol(_ c: Character, _ x0: Int, _ x1: Int) -> OCRSymbol {
        OCRSymbol(character: c, confidence: 0.9, choices: [], x0: x0, x1: x1)
    }

    @Test func thinEndTheLineReaderSkipsIsStray() {
        // Six glyphs 20 px wide at a 28 px pitch, then a 5 px stroke a full pitch after the last
        // (a frame's edge where a 1 would stand): stray only when the line read has nothing on it.
        let glyphs = (0..<6).map { (28 * $0, 28 * $0 + 19) }
        let row = Self.row(glyphs + [(174, 178)])
        #expect(row.strayEnds == [])
        let six = glyphs.map { Self.symbol("A", $0.0, $0.1) }
        #expect(PlateReader.unreadEnds(six, in: row) == [6])
        #expect(PlateReader.unreadEnds(six + [Self.symbol("1", 174, 178)], in: row) == [])
        // A wide glyph the line reader skipped is no stroke.
        #expect(PlateReader.unreadEnds(six, in: Self.row(glyphs + [(168, 187)])) == [])
    }

    @Test func severalSymbolsNeedABlobWideEnoughForThem() {
        // Glyphs 20 px wide at a 28 px pitch; the first blob 38 px wide (a glyph and some edge)
        // cannot hold two glyphs, one of 42 px (two touching glyphs) can.
        let rest = (1..<7).map { (28 * $0, 28 * $0 + 19) }
        #expect(!PlateReader.holds(2, glyph: 0, Self.row([(-18, 19)] + rest)))
        #expect(PlateReader.holds(2, glyph: 0, Self.row([(-22, 19)] + rest)))
        #expect(!PlateReader.holds(3, glyph: 0, Self.row([(-22, 19)] + rest)))
        #expect(PlateReader.holds(1, glyph: 0, Self.row([(-18, 19)] + rest)))
    }

    @Test func wideGapsAreFound() {
        // Seven glyphs at a 28 px pitch with the fourth moved on by 16 px: a separator after the third.
        func moved(_ after: [Int]) -> [(Int, Int)] {
            (0..<7).map { i in
                let shift = 16 * after.filter { i > $0 }.count
                return (28 * i + shift, 28 * i + 19 + shift)
            }
        }
        #expect(Self.row(moved([2])).gaps == [2])
        #expect(Self.row(moved([])).gaps == [])
        // Two wide gaps (France's AB-123-CD), both found; three are no plate's layout.
        #expect(Self.row(moved([1, 4])).gaps == [1, 4])
        #expect(Self.row(moved([0, 2, 4])).gaps == [])
    }

    @Test func rowKeepsTheGlyphsAReadingUses() {
        var row = Self.row((0..<5).map { (28 * $0, 28 * $0 + 19) })
        row.boxes = (0..<5).map { (x0: 28 * $0, y0: 10 + $0, x1: 28 * $0 + 19, y1: 49 - $0) }
        row.crops = (0..<5).map { _ in GrayImage(width: 1, height: 1, pixels: [0]) }
        row.extent = (0, 131, 10, 49)
        let kept = row.keeping([1, 2, 3])
        #expect(kept.glyphs.map(\.x0) == [28, 56, 84])
        #expect(kept.masks.count == 3 && kept.boxes.count == 3 && kept.crops.count == 3)
        #expect(kept.extent == (28, 103, 11, 48))
        #expect(row.keeping([0, 1, 2, 3, 4]).extent == row.extent)
        #expect(row.keeping([]).glyphs.count == 5)
    }

    @Test func glyphsInEmptySlotsAreRecovered() throws {
        // Glyph boxes 20×40 at a 30 px pitch (rows 10–49), with slot 2 empty of a found glyph.
        let w = 200, h = 60
        func scene(slots: [Int], extraBars: [(Int, Int, Int, Int)]) -> (Mask, [Int32], [Blob]) {
            var bits = [UInt8](repeating: 0, count: w * h)
            var labels = [Int32](repeating: 0, count: w * h)
            var row: [Blob] = []
            for (n, i) in slots.enumerated() {
                let x0 = 10 + 30 * i
                for y in 10...49 { for x in x0...(x0 + 19) { bits[y * w + x] = 1; labels[y * w + x] = Int32(n + 1) } }
                row.append(Blob(x0: x0, y0: 10, x1: x0 + 19, y1: 49, area: 800, label: Int32(n + 1)))
            }
            for (x0, x1, y0, y1) in extraBars { for y in y0...y1 { for x in x0...x1 { bits[y * w + x] = 1 } } }
            return (Mask(width: w, height: h, bits: bits), labels, row)
        }
        // A 1 in slot 2 and a 1 one pitch after the last glyph, against a frame's side that runs
        // from top to bottom: both 1s come back, the frame does not.
        var (mask, labels, row) = scene(slots: [0, 1, 3, 4], extraBars: [(77, 81, 10, 49), (167, 171, 10, 49), (176, 178, 0, 59)])
        let recovered = try #require(Rectifier.recoverSlots(row, median: 40, mask: mask, labels: &labels))
        #expect(recovered.map(\.x0) == [10, 40, 77, 100, 130, 167])
        #expect(recovered[5].x1 == 171)
        #expect(labels[30 * w + 169] == recovered[5].label)
        #expect(labels[30 * w + 177] == 0)
        // Ink that does not span the glyphs' band (a dash between groups) is no glyph; nothing else
        // gives one, so there is no variant.
        (mask, labels, row) = scene(slots: [0, 1, 3, 4], extraBars: [(72, 86, 28, 32), (176, 178, 0, 59)])
        #expect(Rectifier.recoverSlots(row, median: 40, mask: mask, labels: &labels) == nil)
    }

    @Test func shippedModelsLoad() throws {
        let models = GlyphClassifier.standard
        #expect(models.count == 2)
        #expect(models.map(\.input) == [.mask, .grey])
        for model in models { #expect(String(model.classes) == "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") }
        #expect(GlyphClassifier(bytes: Array("SGC2".utf8)) == nil)
        #expect(GlyphClassifier(bytes: Array("not a model, not at all".utf8)) == nil)
        // A model cut short by one byte is refused, not read past its end.
        #expect(GlyphClassifier(bytes: Array(PackageResources.glyph_mask_sgc.dropLast())) == nil)
    }

    /// A glyph mask drawn from a few strokes (so the test needs no font).
    static func strokes(_ rows: [String]) -> GlyphMask {
        let height = rows.count, width = rows[0].count
        // Scale up 4× so the glyph is the size the segmenter hands over.
        var bits = [UInt8](repeating: 0, count: width * 4 * height * 4)
        for (y, row) in rows.enumerated() {
            for (x, c) in row.enumerated() where c == "#" {
                for dy in 0..<4 { for dx in 0..<4 { bits[(y * 4 + dy) * width * 4 + x * 4 + dx] = 1 } }
            }
        }
        return GlyphMask(width: width * 4, height: height * 4, bits: bits)
    }

    @Test(arguments: [
        ("L", ["##....", "##....", "##....", "##....", "##....", "##....", "##....", "##....", "######", "######"]),
        ("T", ["######", "######", "..##..", "..##..", "..##..", "..##..", "..##..", "..##..", "..##..", "..##.."]),
        ("7", ["######", "######", "....##", "...##.", "...##.", "..##..", "..##..", ".##...", ".##...", ".##..."]),
    ])
    func classifiesSimpleGlyphs(expected: String, rows: [String]) throws {
        let model = try #require(GlyphClassifier.standard.first)
        let p = model.probabilities(Self.strokes(rows))
        #expect(abs(p.reduce(0, +) - 1) < 1e-4)
        let best = p.indices.max { p[$0] < p[$1] }!
        #expect(String(model.classes[best]) == expected, "read \(model.classes[best]) at \(p[best])")
    }

    @Test func canvasKeepsAspectAndInk() {
        let tall = GlyphMask(width: 7, height: 28, bits: [UInt8](repeating: 1, count: 7 * 28))
        let canvas = GlyphClassifier.canvas(tall)
        // 28 rows of 7 fully inked columns, centred: columns 12...18, rows 2...29.
        #expect(abs(canvas.reduce(0, +) - 7 * 28) < 1e-3)
        #expect(canvas[2 * 32 + 12] == 1 && canvas[2 * 32 + 11] == 0 && canvas[1 * 32 + 12] == 0)
    }
}

extension Binarize {
    /// 4-connected components by flood fill (the reference the run-based labelling is tested
    /// against). `labels` gets each pixel's blob index + 1 (0 = background).
    /// 4-connected components of `mask`. `labels` gets each pixel's blob index + 1 (0 = background).
    static func floodComponents(_ mask: Mask, labels: inout [Int32]) -> [Blob] {
        let w = mask.width, h = mask.height
        labels = [Int32](repeating: 0, count: w * h)
        var blobs: [Blob] = []
        var stack: [Int] = []
        stack.reserveCapacity(4096)
        mask.bits.withUnsafeBufferPointer { m in
            labels.withUnsafeMutableBufferPointer { lab in
                for start in 0..<(w * h) where m[start] != 0 && lab[start] == 0 {
                    let label = Int32(blobs.count + 1)
                    var blob = Blob(x0: start % w, y0: start / w, x1: start % w, y1: start / w, area: 0, label: label)
                    lab[start] = label
                    stack.append(start)
                    while let p = stack.popLast() {
                        let x = p % w, y = p / w
                        blob.area += 1
                        if x < blob.x0 { blob.x0 = x }
                        if x > blob.x1 { blob.x1 = x }
                        if y < blob.y0 { blob.y0 = y }
                        if y > blob.y1 { blob.y1 = y }
                        if x > 0, m[p - 1] != 0, lab[p - 1] == 0 { lab[p - 1] = label; stack.append(p - 1) }
                        if x < w - 1, m[p + 1] != 0, lab[p + 1] == 0 { lab[p + 1] = label; stack.append(p + 1) }
                        if y > 0, m[p - w] != 0, lab[p - w] == 0 { lab[p - w] = label; stack.append(p - w) }
                        if y < h - 1, m[p + w] != 0, lab[p + w] == 0 { lab[p + w] = label; stack.append(p + w) }
                    }
                    blobs.append(blob)
                }
            }
        }
        return blobs
    }
}
