import Foundation
import SeerImage
import Testing

@_spi(Fuzzing) @testable import SeerPlate

/// The sequence recogniser: the shipped weights load and read whole plate rows.
@Suite struct SequenceTests {
    static let rows = Scene.folder.appendingPathComponent("rows")

    /// A row as the recogniser sees it (32 px tall, rendered by `scripts/plate-ocr/render.py`)
    /// put back at the rectifier's scale: every pixel doubled, 12 rows of its edges above and below
    /// (the rectifier's crop is 88 px tall with its centre line in the middle).
    static func rectified(_ image: GrayImage) -> GrayImage {
        let w = image.width * 2, h = 88
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let sy = min(image.height - 1, max(0, (y - 12) / 2))
            for x in 0..<w { pixels[y * w + x] = image.pixels[sy * image.width + x / 2] }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    static func text(_ positions: [Position]) -> String {
        String(positions.compactMap { $0.options.first?.0 })
    }

    @Test func shippedModelLoads() throws {
        let model = try #require(SequenceRecognizer.standard)
        #expect(String(model.classes) == "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    }

    @Test func weightsLoadFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seer-\(UUID().uuidString).spr").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(PackageResources.plate_ctc_spr).write(to: URL(fileURLWithPath: path))
        let model = try #require(SequenceRecognizer(contentsOf: path))
        #expect(model.classes == SequenceRecognizer.standard?.classes)
        #expect(SequenceRecognizer(contentsOf: path + ".missing") == nil)
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: path))
        #expect(SequenceRecognizer(contentsOf: path) == nil)
    }

    /// A model file of the smallest shape (one channel per convolution) with the classes blank, A
    /// and B: every convolution has zero weights and bias 1 (so each gives 1 everywhere), and the
    /// last layer the Int8 weights `head` with scale `scale` and biases `bias`.
    static func smallestModelBytes(head: [Int8] = [0, 0, 0], scale: Float = 0, bias: [Float] = [0, 0, 0]) -> [UInt8] {
        var bytes = [UInt8]("SPR2".utf8)
        func float32(_ v: Float) { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
        for v: Int32 in [32, 1, 1, 1, 1, 1, 3] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        bytes += [UInt8]("-AB".utf8)
        for inputs in [9, 9, 9, 9, 6] {
            float32(0)
            bytes += [UInt8](repeating: 0, count: inputs)
            float32(1)
        }
        for _ in 0..<3 { float32(scale) }
        bytes += head.map { UInt8(bitPattern: $0) }
        for b in bias { float32(b) }
        return bytes
    }

    /// The smallest model (its weights are never run: only its classes matter to
    /// ``SequenceRecognizer/logLikelihood(of:columns:)``).
    static func twoClassModel() throws -> SequenceRecognizer {
        try #require(SequenceRecognizer(bytes: smallestModelBytes()))
    }

    /// The Int8 weights are their value times their output channel's scale: with every earlier
    /// layer giving 1, each column's logits are the last layer's weights plus its biases.
    @Test func int8WeightsAreScaled() throws {
        let bytes = Self.smallestModelBytes(head: [2, -4, 6], scale: 0.5, bias: [0, 0.5, -1])
        let model = try SequenceRecognizer(parsing: bytes)
        let logits: [Float] = [1, -1.5, 2]
        let e = logits.map { exp($0 - 2) }
        let expected = e.map { $0 / e.reduce(0, +) }
        let columns = model.columns(GrayImage(width: 64, height: 40) { x, _ in UInt8(x * 4) })
        #expect(columns.count == 64 / 8)
        for column in columns {
            for k in 0..<3 { #expect(abs(column[k] - expected[k]) < 1e-5, "\(column) against \(expected)") }
        }
    }

    /// Each way a file can be wrong is refused with its own error.
    @Test func refusalsSayWhy() throws {
        let good = Self.smallestModelBytes()
        func refusal(_ bytes: [UInt8]) -> PlateModelError? {
            do {
                _ = try SequenceRecognizer(parsing: bytes)
                return nil
            } catch { return error }
        }
        #expect(refusal(good) == nil)
        #expect(refusal([UInt8]("not a model".utf8)) == .notAModel(expected: "SPR2"))
        #expect(refusal([UInt8]("SPR1".utf8) + good.dropFirst(4)) == .oldVersion(found: "SPR1", expected: "SPR2"))
        #expect(refusal(Array(good.dropLast())) == .wrongSize(expected: good.count, actual: good.count - 1))
        #expect(refusal(good + [0]) == .wrongSize(expected: good.count, actual: good.count + 1))
        #expect(refusal(Array(good.prefix(10))) == .wrongSize(expected: 12, actual: 10))
        var shape = good
        shape[8] = 0  // c1
        #expect(refusal(shape) == .badShape(field: "c1", value: 0))
        #expect(refusal(Self.smallestModelBytes(scale: -1)) == .badLayer(5))
        #expect(refusal(Self.smallestModelBytes(bias: [0, .nan, 0])) == .badLayer(5))
        #expect(refusal(Self.smallestModelBytes(scale: .infinity)) == .badLayer(5))
        #expect(PlateModelError.oldVersion(found: "SPR1", expected: "SPR2").description.contains("modelfile.py"))
        // The glyph classifiers' loader refuses by the same rules.
        #expect(throws: PlateModelError.oldVersion(found: "SGC1", expected: "SGC2")) {
            try GlyphClassifier(parsing: [UInt8]("SGC1".utf8) + PackageResources.glyph_mask_sgc.dropFirst(4))
        }
        #expect(throws: PlateModelError.notAModel(expected: "SGC2")) { try GlyphClassifier(parsing: good) }
    }

    /// The shipped files are the current version, a quarter of the Float32 size: Int8 weights
    /// with one scale per output channel.
    @Test func shippedFilesAreInt8() throws {
        #expect(PackageResources.plate_ctc_spr.prefix(4).elementsEqual("SPR2".utf8))
        #expect(PackageResources.plate_ctc_spr.count == 175_237)
        for file in [PackageResources.glyph_mask_sgc, PackageResources.glyph_grey_sgc] {
            #expect(file.prefix(4).elementsEqual("SGC2".utf8))
            #expect(file.count == 42_212)
        }
    }

    /// CTC's probability of a text is the sum over every column path that collapses to it (repeats
    /// merged, then blanks dropped): checked against all 3⁴ paths of four columns.
    @Test func ctcLikelihoodSumsEveryAlignment() throws {
        let model = try Self.twoClassModel()
        let columns: [[Float]] = [[0.2, 0.7, 0.1], [0.5, 0.3, 0.2], [0.1, 0.2, 0.7], [0.6, 0.1, 0.3]]
        var expected: [String: Double] = [:]
        for code in 0..<81 {
            var path: [Int] = [], c = code
            for _ in 0..<4 { path.append(c % 3); c /= 3 }
            var text = "", previous = -1
            for k in path {
                if k != previous && k != 0 { text.append(k == 1 ? "A" : "B") }
                previous = k
            }
            expected[text, default: 0] += path.enumerated().map { Double(columns[$0.offset][$0.element]) }.reduce(1, *)
        }
        for text in ["", "A", "B", "AB", "BA", "AA", "ABA", "ABAB"] {
            let got = model.logLikelihood(of: text, columns: columns)
            if let p = expected[text] {
                #expect(abs(exp(got) - p) < 1e-9, "\(text): \(exp(got)) against \(p)")
            } else {
                #expect(got == -.infinity, "\(text)")
            }
        }
        #expect(model.logLikelihood(of: "AC", columns: columns) == -.infinity)
        #expect(model.logLikelihood(of: "AB", columns: []) == -.infinity)
    }

    @Test func truncatedWeightsAreRefused() {
        let bytes = PackageResources.plate_ctc_spr
        #expect(SequenceRecognizer(bytes: Array(bytes.dropLast(4))) == nil)
        #expect(SequenceRecognizer(bytes: [UInt8]("SPR0".utf8) + bytes.dropFirst(4)) == nil)
    }

    /// Damaged and hostile weight files, as `fuzz-plate-model` feeds them: each shipped file cut at
    /// 200 lengths, headers that claim the largest shapes (or negative ones) over a few bytes, and
    /// header bytes flipped. Every loader refuses what is not its file whole; a file it accepts
    /// runs and gives one probability per class.
    @Test func damagedWeightFilesAreRefused() {
        let files = [PackageResources.plate_ctc_spr, PackageResources.glyph_mask_sgc, PackageResources.glyph_grey_sgc]
        let row = GrayImage(width: 96, height: 40) { x, y in (x / 6) % 4 == 1 && y > 6 && y < 34 ? 30 : 220 }
        let glyph = GrayImage(width: 20, height: 28) { x, _ in x > 6 && x < 13 ? 20 : 230 }
        func int32s(_ values: [Int32]) -> [UInt8] { values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } } }
        var damaged: [[UInt8]] = []
        for file in files {
            for k in 0..<200 { damaged.append(Array(file.prefix(file.count * k / 200))) }
            for i in 4..<64 {
                var flipped = Array(file)
                flipped[i] ^= 0x80
                damaged.append(flipped)
            }
        }
        for magic in ["SPR2", "SGC2"] {
            for shape: [Int32] in [[32, 256, 256, 256, 256, 1024, 64], [256, 256, 256, 4096, 64], [-1, -1, -1, -1, -1, -1, -1], [32, 0, 1, 1, 1, 1, 2]] {
                damaged.append(Array(magic.utf8) + int32s(shape) + [UInt8](repeating: 65, count: 64) + [UInt8](repeating: 0, count: 4096))
            }
        }
        for bytes in damaged {
            let changedOrShort = !files.contains { $0.elementsEqual(bytes) }
            if let model = SequenceRecognizer(bytes: bytes) {
                for column in model.columns(row) { #expect(column.count == model.classes.count + 1) }
            } else {
                #expect(changedOrShort)
            }
            for grey in [false, true] {
                if let p = GlyphModelFile.classify(bytes, grey: grey, glyph: glyph) { #expect(!p.isEmpty) }
            }
        }
        // Cut short or with a byte too many, no file loads.
        for file in files {
            for bytes in [Array(file.dropLast()), Array(file) + [0], Array(file.prefix(file.count / 2))] {
                #expect(SequenceRecognizer(bytes: bytes) == nil)
                #expect(GlyphModelFile.classify(bytes, grey: false, glyph: glyph) == nil)
            }
        }
    }

    @Test func columnsAreProbabilitiesOnePerEightColumns() throws {
        let model = try #require(SequenceRecognizer.standard)
        var pixels = [UInt8](repeating: 220, count: 200 * 88)
        for i in pixels.indices where (i % 200) / 10 % 2 == 0 && (24..<64).contains(i / 200) { pixels[i] = 30 }
        let columns = model.columns(GrayImage(width: 200, height: 88, pixels: pixels))
        #expect(columns.count == 200 / 8)
        for c in columns {
            #expect(c.count == 37)
            #expect(abs(c.reduce(0, +) - 1) < 1e-3)
        }
        // A row too narrow to read gives nothing rather than garbage.
        #expect(model.columns(GrayImage(width: 10, height: 88, pixels: [UInt8](repeating: 128, count: 880))).isEmpty)
    }

    /// Rows rendered with a seed training never used (`render.py TestImages/plates/rows --count 24
    /// --seed 5000000`): blur, glare, JPEG, a rectifier's jitter. Most must read exactly without
    /// any grammar.
    @Test func readsRenderedRows() throws {
        let model = try #require(SequenceRecognizer.standard)
        let csv = try String(contentsOf: Self.rows.appendingPathComponent("rows.csv"), encoding: .utf8)
        var right = 0, total = 0
        for line in csv.split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: ",").map(String.init)
            let image = try ImageDecoder.decode(contentsOf: Self.rows.appendingPathComponent(f[0]).path).gray
            let read = model.read(Self.rectified(image))
            total += 1
            if Self.text(read.positions) == f[1] { right += 1 }
            #expect(read.positions.count == read.centres.count)
            #expect(zip(read.centres, read.centres.dropFirst()).allSatisfy { $0 < $1 })
        }
        #expect(total == 24)
        #expect(right >= Self.minimumRowsRead, "\(right) of \(total) rows read exactly")
    }

    /// Of the 24 rendered rows, at least this many read exactly: half (the shipped weights read
    /// 76.9 % of the 2 000 rendered validation rows exactly; an untrained network reads none).
    static let minimumRowsRead = 12
}
