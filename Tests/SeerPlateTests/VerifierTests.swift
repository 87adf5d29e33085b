import Foundation
import SeerImage
import Testing

@testable import SeerPlate

/// The rendered scenes of text that is not a plate in `TestImages/plates/nonplates` (see
/// `TestImages/plates/generate.py`).
struct NonPlate: Sendable, CustomStringConvertible {
    var file: String
    var what: String
    var description: String { "\(file) (\(what))" }

    static let folder = Scene.folder.appendingPathComponent("nonplates")

    static let all: [NonPlate] = {
        guard let csv = try? String(contentsOf: folder.appendingPathComponent("manifest.csv"), encoding: .utf8) else { return [] }
        return csv.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            guard let comma = line.firstIndex(of: ",") else { return nil }
            return NonPlate(file: String(line[..<comma]), what: String(line[line.index(after: comma)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
    }()
}

@Suite struct VerifierTests {
    static var reader: PlateReader { get throws { try ReaderTests.reader.get() } }

    @Test func manifestListsTheNonPlates() {
        #expect(NonPlate.all.count >= 8)
    }

    /// Signs, labels, captions, screens, shirts and receipts: no plate at the default minimum
    /// confidence, whatever region's grammar decides.
    @Test(arguments: NonPlate.all)
    func textThatIsNotAPlateIsNotRead(scene: NonPlate) throws {
        let reader = try Self.reader
        let image = try ImageDecoder.decode(contentsOf: NonPlate.folder.appendingPathComponent(scene.file).path)
        let check = {
            for region in [nil, PlateRegion.us, .eu, .br] {
                let plates = try reader.read(image.gray, region: region)
                #expect(plates.isEmpty, "\(scene.file), region \(region?.rawValue ?? "auto"): \(plates.map { "\($0.text) \($0.confidence)" })")
            }
        }
        if let why = Self.knownMisreads[scene.file] {
            withKnownIssue(Comment(rawValue: why)) { try check() }
        } else {
            try check()
        }
    }

    /// Scenes still read as plates at the default floor, and why (docs/plates.md, "What is left").
    /// Each is a known issue: the test fails the day one of them is no longer read, so the list
    /// stays true.
    static let knownMisreads: [String: String] = [:]

    /// What `scripts/demo` shows: the code and product fixtures hold no plate.
    @Test func fixturesWithoutPlatesGiveNone() throws {
        let reader = try Self.reader
        let root = Scene.folder.deletingLastPathComponent()
        var files: [String] = []
        for folder in ["qr", "products"] {
            let base = root.appendingPathComponent(folder).path
            for case let name as String in FileManager.default.enumerator(atPath: base) ?? FileManager.DirectoryEnumerator()
            where name.hasSuffix(".png") || name.hasSuffix(".jpg") {
                files.append("\(base)/\(name)")
            }
        }
        #expect(files.count > 100)
        for file in files.sorted() {
            let image = try ImageDecoder.decode(contentsOf: file)
            let plates = try reader.read(image.gray, region: nil)
            // Among them a station sign (東大455) in a bordered white box beside a code, once read
            // as the Illinois-style plate RA455: Tesseract and the glyph classifiers agree on one
            // character of five there.
            #expect(plates.isEmpty, "\(file): \(plates.map { "\($0.text) \($0.confidence)" })")
        }
    }

    /// The confidence floor is the reader's option, and a caller can lower it per call: what the
    /// floor removes is still found below it, with the evidence that decided.
    @Test func minimumConfidenceFiltersFindings() throws {
        let reader = try Self.reader
        let image = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent("sk.png").path)
        let all = try reader.findings(image.gray, region: .eu)
        let top = try #require(all.first)
        #expect(top.reading.text == "BA123CD")
        #expect(top.reading.confidence >= reader.options.minimumConfidence)
        #expect(top.evidence.formatMatched && top.evidence.mixed && top.evidence.rank == 0)
        // Every finding's confidence is a probability, and the floor keeps exactly those at or above it.
        for f in all { #expect(f.reading.confidence >= 0 && f.reading.confidence <= 1) }
        for floor in [0.0, 0.3, 0.9, 1.0] {
            let kept = try reader.read(image.gray, region: .eu, minimumConfidence: floor)
            #expect(kept.map(\.text) == all.filter { $0.reading.confidence >= floor }.map(\.reading.text))
        }
        #expect(PlateReader.Options().minimumConfidence == PlateReader.Options.defaultMinimumConfidence)
    }

    /// A plate's border is measured as a straight edge along the glyph band; texture is not one.
    @Test func frameSeesAPlateBorderNotTexture() throws {
        func measure(_ draw: (inout GrayImage) -> Void) -> PlateLikeness.Frame {
            var image = GrayImage(width: 400, height: 200, fill: 90)
            draw(&image)
            // Five glyph-like bars 40 px tall across the middle.
            for k in 0..<5 {
                for y in 80..<120 { for x in (120 + k * 34)..<(132 + k * 34) { image.pixels[y * 400 + x] = 20 } }
            }
            let row = TextRow(
                blobs: (0..<5).map { Blob(x0: 120 + $0 * 34, y0: 80, x1: 131 + $0 * 34, y1: 119, area: 480, label: Int32($0 + 1)) },
                slope: 0, intercept: 99.5, glyphHeight: 40, lightOnDark: false, score: 1)
            let rect = Rectifier.rectify(image, row: row)
            guard let glyphs = Rectifier.segment(rect).first else { return PlateLikeness.Frame() }
            return PlateLikeness.frame(rect, glyphs, in: image)
        }
        // A light plate with a dark surround 14 px beyond the glyphs on every side.
        let plate = measure { image in
            for y in 66..<134 { for x in 100..<290 { image.pixels[y * 400 + x] = 230 } }
        }
        #expect(plate.top > 0.9 && plate.bottom > 0.9 && plate.left > 0.9 && plate.right > 0.9)
        // The same ground with a checkerboard of 6 px cells around it: steps both ways, no edge.
        let texture = measure { image in
            for y in 0..<200 { for x in 0..<400 { image.pixels[y * 400 + x] = ((x / 6 + y / 6) % 2 == 0) ? 40 : 230 } }
            for y in 76..<124 { for x in 110..<280 { image.pixels[y * 400 + x] = 230 } }
        }
        #expect(texture.top < 0.7 && texture.bottom < 0.7)
    }

    /// A row of five 40 px glyphs across x 100–280 with its centre line at `y`.
    static func row(y: Int, glyphHeight: Int = 40, x0: Int = 100) -> TextRow {
        let blobs = (0..<5).map { k in
            Blob(x0: x0 + k * 36, y0: y - glyphHeight / 2, x1: x0 + k * 36 + 24, y1: y + glyphHeight / 2 - 1, area: 24 * glyphHeight / 2, label: Int32(k + 1))
        }
        return TextRow(blobs: blobs, slope: 0, intercept: Double(y), glyphHeight: Double(glyphHeight), lightOnDark: false, score: 1)
    }

    /// Lines of one size stacked as in a label count; a plate's smaller state name, the same line
    /// found again in another binarisation, text beside the row and a two-row plate's upper line do not.
    @Test func stackedLinesAreTheLinesOfABlock() {
        let middle = Self.row(y: 200)
        let above = Self.row(y: 136), below = Self.row(y: 264), again = Self.row(y: 201)
        #expect(PlateReader.stackedLines(of: middle, among: [above, middle, again, below], except: nil) == 2)
        #expect(PlateReader.stackedLines(of: middle, among: [above, again], except: nil) == 1)
        // The upper line of a two-row plate is the plate's own.
        #expect(PlateReader.stackedLines(of: middle, among: [above], except: above) == 0)
        // A state name a third as tall, just above; text continuing the line to the right.
        let state = Self.row(y: 160, glyphHeight: 14), beside = Self.row(y: 200, x0: 300)
        #expect(PlateReader.stackedLines(of: middle, among: [state, beside, middle], except: nil) == 0)
        // A line far above (more than 3.6 glyph heights) or off to the side is not part of the block.
        #expect(PlateReader.stackedLines(of: middle, among: [Self.row(y: 40), Self.row(y: 136, x0: 400)], except: nil) == 0)
    }

    /// When Tesseract and the glyph classifiers agree on fewer than a quarter of the characters,
    /// neither is believed, however plate-like the rest of the evidence.
    @Test func readersThatDisagreeGiveNoConfidence() {
        var e = PlateEvidence.sample(stacked: 0)
        #expect(Calibration.standard.confidence(e) > 0.5)
        e.agreement = 0.2
        #expect(Calibration.standard.confidence(e) == 0)
        e.agreement = 0
        #expect(Calibration.standard.confidence(e) == 0)
        e.agreement = 2.0 / 7
        #expect(Calibration.standard.confidence(e) > 0)
    }

    /// A word or a number is believed only inside a plate's whole border; a plate that mixes
    /// letters and digits may miss a side (a bumper, a frame's shadow).
    @Test func wordsNeedTheWholeBorder() {
        var e = PlateEvidence.sample(stacked: 0)
        e.frameTop = 0.3
        #expect(Calibration.standard.confidence(e) > 0.3)
        e.mixed = false
        #expect(Calibration.standard.confidence(e) == 0)
        for side in [\PlateEvidence.frameTop, \.frameBottom, \.frameLeft, \.frameRight] {
            var word = PlateEvidence.sample(stacked: 0)
            word.mixed = false
            #expect(Calibration.standard.confidence(word) > 0)
            word[keyPath: side] = Calibration.wordFrame - 0.01
            #expect(Calibration.standard.confidence(word) == 0)
            word[keyPath: side] = Calibration.wordFrame
            #expect(Calibration.standard.confidence(word) > 0)
        }
    }

    /// The same reading is less likely a plate the deeper it stands in a block of lines.
    @Test func stackedLinesLowerConfidence() {
        let c = (0...3).map { Calibration.standard.confidence(PlateEvidence.sample(stacked: $0)) }
        #expect(c[0] > 0.5)
        #expect(zip(c, c.dropFirst()).allSatisfy { $0 > $1 })
    }
}

extension PlateEvidence {
    /// Evidence of a clean plate reading standing `stacked` lines deep in a block of text.
    static func sample(stacked: Int) -> PlateEvidence {
        PlateEvidence(
            score: 0.9, runnerUp: 0.2, formatMatched: true, formatWeight: 1, mixed: true, swaps: 0, length: 7, layout: 1,
            heightRatio: 1, atEdge: false, atSide: false, neighbours: 0, frameTop: 1, frameBottom: 1, frameLeft: 1,
            frameRight: 1, agreement: 1, classifierMean: 0.9, contrast: 0.6, groundSpread: 0.1, borderInk: 0.3, strayInk: 0.03,
            heightSpread: 0.01, pitchSpread: 0.02, aspect: 5, stacked: stacked, rank: 0, rankRatio: 1)
    }
}
