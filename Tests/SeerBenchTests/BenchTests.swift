import Foundation
import Seer
import SeerBench
import SeerCodegen
import SeerImage
import SeerQR
import SeerTestSupport
import Testing

/// Fixture folders for the bench, built in a temporary folder from committed test images (ZXing's
/// QR and 1-D photos, generated plates) and generated QR codes.
enum BenchFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let testImages = root + "/TestImages"

    static func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    static func folder(_ dir: TemporaryDirectory, _ name: String) throws -> String {
        let path = dir.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A white canvas with QR codes of `texts` at `origins` (module size 4, no quiet zone drawn
    /// apart from the canvas's white); returns the photo and the codes' corners.
    static func qrPhoto(_ texts: [String], origins: [(Int, Int)], width: Int = 480, height: Int = 360) throws -> (GrayImage, [[(Double, Double)]]) {
        var canvas = GrayImage(width: width, height: height, fill: 255)
        var quads: [[(Double, Double)]] = []
        for (text, (ox, oy)) in zip(texts, origins) {
            let code = try QREncoder.encode(text)
            let img = code.image(moduleSize: 4, quietZone: 0)
            for y in 0..<img.height { for x in 0..<img.width { canvas.pixels[(oy + y) * width + ox + x] = img[x, y] } }
            let s = Double(img.width)
            let x0 = Double(ox), y0 = Double(oy)
            quads.append([(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s)])
        }
        return (canvas, quads)
    }
}

@Suite struct ScoringRuleTests {
    @Test func qrTextDropsOneTrailingNewlineAndNeedsExactText() {
        let e = ExpectedText.text("hello")
        #expect(TextScoring.scoreQR(e, texts: ["hello\n"]).outcome == .correct)
        #expect(TextScoring.scoreQR(e, texts: ["hello\r\n"]).outcome == .correct)
        #expect(TextScoring.scoreQR(e, texts: ["Hello"]).outcome == .wrong)
        #expect(TextScoring.scoreQR(e, texts: ["", "\n"]).outcome == .missed)
        #expect(TextScoring.scoreQR(e, texts: []).outcome == .missed)
        #expect(TextScoring.scoreQR(e, texts: ["x", "hello"]).outcome == .correct)
        // Expected bytes match a text whose UTF-8 or Latin-1 encoding they are.
        #expect(TextScoring.scoreQR(.bytes([0xE9]), texts: ["é"]).outcome == .correct)
        #expect(TextScoring.scoreQR(.bytes([0xC3, 0xA9]), texts: ["é"]).outcome == .correct)
        #expect(TextScoring.scoreQR(.bytes([0xC3]), texts: ["é"]).outcome == .wrong)
    }

    @Test func barcodeNormalisationRules() {
        #expect(TextScoring.match("0036000291452", "036000291452", family: .upca) == "gtin13")
        #expect(TextScoring.match("0036000291452", "036000291452", family: .code128) == nil)
        // UPC-E 8 digits against its 13-digit expansion; EAN-8 stays exact.
        #expect(TextScoring.match("0012345000058", "01234558", family: .upce) == "gtin13")
        #expect(TextScoring.match("01234565", "001234565", family: .ean8) == nil)
        #expect(TextScoring.match("0104412345678909", "(01)04412345678909", family: .databar) == "gs1")
        #expect(TextScoring.match("0104412345678909", "]e00104412345678909", family: .databar) == "gs1")
        #expect(TextScoring.match("0104412345678909", "04412345678909", family: .databar) == "ai01")
        #expect(TextScoring.match("10AB\u{1D}21X", "]C110AB21X", family: .code128) == "gs1")
        #expect(TextScoring.match("Code39 a!", "C+O+D+E39 +A/A", family: .code39) == "c39-ascii")
        #expect(TextScoring.match("A1", "A+1", family: .code39) == nil)
        #expect(TextScoring.match("Ab!", "A+B/A", family: .code39) == "c39-ascii")
        #expect(TextScoring.match("A%B", "A%B", family: .code39) == "exact")
        #expect(TextScoring.match("A012345679", "0H1DMH", family: .code39) == nil)
        // Code 32: base-32 "00BCDF" = 0*32^5+…; check by the rule's own arithmetic.
        let v = ((((0 * 32 + 0) * 32 + 10) * 32 + 11) * 32 + 12) * 32 + 13
        #expect(TextScoring.match("A" + String(format: "%09d", v), "00BCDF", family: .code39) == "code32")
        #expect(TextScoring.scoreBarcode(.text("123"), family: .ean13, texts: []).outcome == .missed)
        #expect(TextScoring.scoreBarcode(.text("123"), family: .ean13, texts: ["124"]).outcome == .wrong)
        let nothing = TextScoring.scoreNothing(texts: ["a", "b"])
        #expect(nothing.outcome == .falseReading && nothing.falseReadings == 2 && nothing.expected == 0)
        #expect(TextScoring.scoreNothing(texts: []).outcome == .clean)
    }

    @Test func familiesComeFromFolderNames() {
        #expect(TextScoring.family(ofSet: "upca-3") == .upca)
        #expect(TextScoring.family(ofSet: "rss14-1") == .databar)
        #expect(TextScoring.family(ofSet: "falsepositives-2") == .noBarcode)
        #expect(TextScoring.family(ofSet: "qrcode-1") == .other)
    }

    @Test func boofcvLocationScoring() throws {
        let quads = try BoofCVScoring.readQuads("# comment\nSETS\n0 0 100 0 100 100 0 100\n200 0 300 0 300 100 200 100\n")
        #expect(quads.count == 2)
        let one = try BoofCVScoring.readQuads("10 10\n20 10\n20 20\n10 20\n")
        #expect(one.count == 1)
        #expect(throws: TruthError.self) { try BoofCVScoring.readQuads("SETS\n1 2 3\n") }
        #expect(throws: TruthError.self) { try BoofCVScoring.readQuads("hello world") }
        func reading(_ cx: Double, _ cy: Double, _ text: String? = "x") -> BenchReading {
            BenchReading(text: text, corners: [BenchPoint(cx - 5, cy - 5), BenchPoint(cx + 5, cy - 5), BenchPoint(cx + 5, cy + 5), BenchPoint(cx - 5, cy + 5)])
        }
        // Inside the first; 9 px outside the second (within 10 % of its size, 100); a duplicate; far away;
        // no position; no text (ignored).
        let s = BoofCVScoring.score(
            quads: quads,
            readings: [
                reading(50, 50), reading(309, 50), reading(60, 60), reading(500, 500), BenchReading(text: "y"), reading(50, 50, nil),
            ])
        #expect(s.expected == 2 && s.correct == 2 && s.missed == 0)
        #expect(s.duplicates == 1 && s.falseReadings == 1 && s.unlocated == 1)
        // 11 px outside is past the tolerance.
        let far = BoofCVScoring.score(quads: quads, readings: [reading(311, 50)])
        #expect(far.correct == 0 && far.falseReadings == 1 && far.missed == 2)
    }

    @Test func aReaderWithoutPositionsIsNotScoredOnCorners() throws {
        let quads = try BoofCVScoring.readQuads("0 0\n10 0\n10 10\n0 10\n")
        let score = Scoring.score(.quads(quads), category: "nominal", codes: [BenchReading(text: "a"), BenchReading(text: "b")])
        #expect(score.unlocated == 2 && score.correct == 0 && score.falseReadings == 0)
        let photo = PhotoResult(file: "p.jpg", category: "nominal", reader: "zbarimg", score: score, readings: ["a", "b"], expected: "1 code")
        #expect(!Totals([photo]).located)
        var located = photo
        located.score = Scoring.score(.quads(quads), category: "nominal", codes: [BenchReading(text: "a", corners: [BenchPoint(5, 5)])])
        #expect(Totals([photo, located]).located)
    }

    @Test func storedGridMappingInvertsForEveryOrientation() {
        for n in 1...8 {
            let swaps = n >= 5
            let (wd, hd) = swaps ? (30.0, 40.0) : (40.0, 30.0)
            let p = BenchPoint(7, 11)
            let stored = BoofCVScoring.toStored(p.x, p.y, orientation: n, width: wd, height: hd)
            #expect(HTMLReport.toDisplayed(stored, orientation: n, width: wd, height: hd) == p, "orientation \(n)")
        }
        #expect(BoofCVScoring.toStored(7, 11, orientation: 6, width: 30, height: 40) == BenchPoint(11, 23))
    }

    @Test func plateScoring() {
        #expect(PlateScoring.normalise("ab-12 3") == "AB123")
        #expect(PlateScoring.levenshtein("ABC123", "ABC124") == 1)
        #expect(PlateScoring.levenshtein("", "ABC") == 3)
        let exact = PlateScoring.score(truth: "ABC123", predicted: "abc-123")
        #expect(exact.outcome == .correct && exact.withinOne == 1)
        let near = PlateScoring.score(truth: "ABC123", predicted: "ABC128")
        #expect(near.outcome == .wrong && near.withinOne == 1 && near.wrong == 1)
        let none = PlateScoring.score(truth: "ABC123", predicted: "")
        #expect(none.outcome == .missed && none.withinOne == 0)
        #expect(Scoring.score(.plate("ABC123"), plates: ["XYZ999", "ABC123"]).outcome == .wrong)
    }

    @Test func seerFormatScoring() throws {
        let table = try SeerTruth.parse("# comment\na.jpg\tone\na.jpg\ttwo\nb.jpg\n\nc.png\tABC123\r\n")
        #expect(table["a.jpg"] == ["one", "two"])
        #expect(table["b.jpg"] == [])
        #expect(table["c.png"] == ["ABC123"])
        #expect(throws: TruthError.self) { try SeerTruth.parse("\tx\n") }
        let s = SeerScoring.score(expected: ["one", "two"], read: ["one", "three"], normalise: { $0 })
        #expect(s.correct == 1 && s.wrong == 1 && s.missed == 0 && s.falseReadings == 1 && s.outcome == .wrong)
        let m = SeerScoring.score(expected: ["one", "two"], read: ["two\n"], normalise: { $0 })
        #expect(m.correct == 1 && m.missed == 1 && m.outcome == .missed)
        #expect(SeerScoring.score(expected: [], read: ["x"], normalise: { $0 }).outcome == .falseReading)
        #expect(SeerScoring.score(expected: [], read: [], normalise: { $0 }).outcome == .clean)
        #expect(Scoring.score(.texts(["AB 123"]), plates: ["ab123"]).outcome == .correct)
    }

    @Test func tesseractWordsToPlate() {
        let tsv = """
            level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
            5\t1\t1\t1\t1\t1\t10\t10\t40\t10\t90\tFORD
            5\t1\t2\t1\t1\t1\t100\t100\t60\t30\t70\tAB12
            5\t1\t2\t1\t1\t2\t165\t100\t40\t30\t90\tCDE
            5\t1\t3\t1\t1\t1\t10\t200\t10\t5\t95\tX
            """
        let words = OCRWords.parseTSV(tsv)
        #expect(words.count == 4)
        // The tall neighbours make the 7-character plate; FORD is short text of plate length but low.
        #expect(OCRWords.pick(OCRWords.candidates(words)) == "AB12CDE")
        #expect(OCRWords.pick([]) == "")
    }

    @Test func distributionsUseNearestRank() throws {
        let d = try #require(Distribution((1...20).map(Double.init)))
        #expect(d.min == 1 && d.max == 20 && d.median == 10.5 && d.p95 == 19)
        #expect(Distribution([]) == nil)
    }
}

@Suite struct TruthFormatTests {
    @Test func textFoldersQRAndBarcodes() throws {
        let dir = try TemporaryDirectory("bench-text")
        let qr = try BenchFixtures.folder(dir, "qr/qrcode-2")
        for n in ["1", "10", "11"] {
            try BenchFixtures.copy(BenchFixtures.testImages + "/qr/zxing/qrcode-2/\(n).png", qr + "/\(n).png")
            try BenchFixtures.copy(BenchFixtures.testImages + "/qr/zxing/qrcode-2/\(n).txt", qr + "/\(n).txt")
        }
        let upca = try BenchFixtures.folder(dir, "qr/upca-2")
        try BenchFixtures.copy(BenchFixtures.testImages + "/codes/zxing/upca-2-25.png", upca + "/25.png")
        try BenchFixtures.copy(BenchFixtures.testImages + "/codes/zxing/upca-2-25.txt", upca + "/25.txt")
        // A drawn UPC-A, its truth written as zxing-cpp's sets write it: the 13-digit GTIN.
        try BenchFixtures.copy(BenchFixtures.testImages + "/codes/upca-036000291452.png", upca + "/36.png")
        try "0036000291452\n".write(toFile: upca + "/36.txt", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: BenchFixtures.testImages + "/codes/zxing/upca-4-14.png", toPath: upca + "/14.png")  // no truth
        let fp = try BenchFixtures.folder(dir, "qr/falsepositives-1")
        try BenchFixtures.copy(BenchFixtures.testImages + "/plates/nonplates/poster.png", fp + "/poster.png")

        let (items, skipped) = try TruthLoader.load([dir.file("qr")], format: .auto)
        #expect(items.count == 6)
        #expect(skipped == [upca + "/14.png"])
        #expect(Set(items.map(\.format)) == [.text])
        #expect(items.filter { $0.truth == .nothing }.map(\.category) == ["falsepositives-1"])
        let expected = try String(contentsOfFile: qr + "/1.txt", encoding: .utf8)
        #expect(items.first { $0.path.hasSuffix("qrcode-2/1.png") }?.truth == .text(.text(TextScoring.stripNewline(expected))))

        var options = BenchOptions()
        #expect(options.symbologies(for: items) == [.qr])
        #expect(options.symbologies(for: items.filter { $0.category != "qrcode-2" }) == Set(Symbology.allCases))
        options.symbologies = Set(Symbology.allCases)
        let (report, _) = try Bench.run(items: items, paths: [dir.file("qr")], options: options, peers: .none)
        let seer = try #require(report.readers.first)
        #expect(seer.all.photos == 6)
        // Each photo's outcome is one of the four and the totals add up per unit expected.
        #expect(seer.all.correct + seer.all.wrong + seer.all.missed == seer.all.expected)
        #expect(seer.all.expected == 5)
        // The UPC-A photos' truth is a 13-digit GTIN; Seer reads 12 digits: correct by the gtin13 rule.
        let upcaTotals = try #require(seer.categories.first { $0.category == "upca-2" }?.totals)
        #expect(upcaTotals.correct == 2)
        #expect(report.photos.filter { $0.category == "upca-2" }.allSatisfy { $0.score.rule == "gtin13" })
        let qrTotals = try #require(seer.categories.first { $0.category == "qrcode-2" }?.totals)
        #expect(qrTotals.correct >= 1)
        #expect(seer.all.latency != nil && seer.all.decode != nil)
    }

    @Test func boofcvCornersFindCodesByPosition() throws {
        let dir = try TemporaryDirectory("bench-boofcv")
        let folder = try BenchFixtures.folder(dir, "nominal")
        let (photo, quads) = try BenchFixtures.qrPhoto(["first code", "second code"], origins: [(40, 60), (300, 150)])
        try PNGWriter.write(photo, to: folder + "/image001.png")
        // SETS form, corners in another order than drawn (the scoring orders them itself).
        let lines = quads.map { q in [q[2], q[3], q[0], q[1]].map { "\($0.0) \($0.1)" }.joined(separator: " ") }
        try "# hand-selected points\nSETS\n\(lines.joined(separator: "\n"))\n".write(toFile: folder + "/image001.txt", atomically: true, encoding: .utf8)
        // The single-code form, with one code where none is drawn: a miss.
        try PNGWriter.write(photo, to: folder + "/image002.png")
        try "0 300\n30 300\n30 330\n0 330\n".write(toFile: folder + "/image002.txt", atomically: true, encoding: .utf8)

        let (items, _) = try TruthLoader.load([dir.path], format: .auto)
        #expect(items.count == 2 && items.allSatisfy { $0.format == .boofcv })
        let (report, _) = try Bench.run(items: items, paths: [dir.path], options: BenchOptions(), peers: .none)
        let photos = report.photos.filter { $0.reader == "seer" }
        #expect(photos[0].score.correct == 2 && photos[0].score.falseReadings == 0)
        #expect(photos[1].score.correct == 0 && photos[1].score.missed == 1 && photos[1].score.falseReadings == 2)
        #expect(report.readers[0].all.expected == 3 && report.readers[0].all.correct == 2)
    }

    @Test func plateTruthCSV() throws {
        let dir = try TemporaryDirectory("bench-plates")
        let folder = try BenchFixtures.folder(dir, "eu")
        var csv = "file,plate_text,x,y,w,h\n"
        for line in try String(contentsOfFile: BenchFixtures.testImages + "/plates/manifest.csv", encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: ",")
            guard f.count >= 3, f[2] == "eu" else { continue }
            try BenchFixtures.copy(BenchFixtures.testImages + "/plates/\(f[0])", folder + "/\(f[0])")
            csv += "\(f[0]),\(f[1].lowercased()),0,0,1,1\n"
        }
        try csv.write(toFile: folder + "/truth.csv", atomically: true, encoding: .utf8)
        let (items, _) = try TruthLoader.load([dir.path], format: .auto)
        #expect(items.count >= 5 && items.allSatisfy { $0.format == .plates })
        // Truth is normalised (upper case).
        #expect(items.allSatisfy { if case .plate(let p) = $0.truth { p == p.uppercased() && !p.isEmpty } else { false } })
        var options = BenchOptions()
        options.read = .plates
        #expect(options.region(forCategory: "eu") == .eu)
        let (report, _) = try Bench.run(items: items, paths: [dir.path], options: options, peers: .none)
        let all = report.readers[0].all
        #expect(all.expected == items.count && all.correct + all.wrong + all.missed == items.count)
        #expect(all.correct >= 1)
        #expect(all.withinOne >= all.correct)
        // Every plate photo has an outcome; the exact ones are the ones scored correct.
        #expect(items.allSatisfy { $0.plateBox == [0, 0, 1, 1] })
        #expect(report.photos.allSatisfy { $0.plateOutcome != nil })
        #expect(report.photos.filter { $0.plateOutcome == .exact }.count == all.correct)
        #expect(TextTables.render(report).contains("by outcome"))
    }

    /// A reading as the reader reports it: `text` at `box` with `confidence`, and its candidates.
    static func reading(_ text: String, confidence: Double, box: [Double], candidates: [String] = []) throws -> PlateReading {
        let candidateJSON = ([text] + candidates).map { "{\"text\":\"\($0)\",\"score\":0.5}" }.joined(separator: ",")
        let json = """
            {"text":"\(text)","confidence":\(confidence),"corners":[],"box":[\(box.map { "\($0)" }.joined(separator: ","))],
            "characters":[],"candidates":[\(candidateJSON)]}
            """
        return try JSONDecoder().decode(PlateReading.self, from: Data(json.utf8))
    }

    @Test func plateOutcomesTakeTheFirstClassThatApplies() throws {
        let plate: [Double] = [100, 100, 200, 50], elsewhere: [Double] = [400, 300, 100, 30]
        func outcome(_ readings: [PlateReading], box: [Double]? = plate) -> PlateOutcome {
            PlateOutcome.classify(truth: "ABC1234", box: box, readings: readings, minimumConfidence: 0.15)
        }
        #expect(outcome([try Self.reading("ABC1234", confidence: 0.9, box: plate)]) == .exact)
        #expect(outcome([try Self.reading("ABC1284", confidence: 0.9, box: plate, candidates: ["ABC1234"])]) == .rightNotFirst)
        #expect(outcome([try Self.reading("SALE50", confidence: 0.5, box: elsewhere), try Self.reading("ABC1234", confidence: 0.4, box: plate)]) == .rightNotFirst)
        #expect(outcome([]) == .notFound)
        #expect(outcome([try Self.reading("SALE50", confidence: 0.9, box: elsewhere)]) == .notFound)
        #expect(outcome([try Self.reading("ABC1284", confidence: 0.1, box: plate)]) == .belowFloor)
        // The right text under the floor is not read: it counts as found below the floor.
        #expect(outcome([try Self.reading("ABC1234", confidence: 0.1, box: plate)]) == .belowFloor)
        #expect(outcome([try Self.reading("SALE50", confidence: 0.9, box: elsewhere), try Self.reading("ABC1284", confidence: 0.5, box: plate)]) == .otherTextFirst)
        #expect(outcome([try Self.reading("ABC12345", confidence: 0.9, box: plate)]) == .wrongLength)
        #expect(outcome([try Self.reading("ABC1284", confidence: 0.9, box: plate)]) == .wrongCharacters)
        // Without the plate's box every reading counts as on the plate.
        #expect(outcome([try Self.reading("SALE50", confidence: 0.9, box: elsewhere)], box: nil) == .wrongLength)
    }

    @Test func seerTruthFile() throws {
        let dir = try TemporaryDirectory("bench-seer")
        let (photo, _) = try BenchFixtures.qrPhoto(["https://example.com/p/1"], origins: [(100, 100)])
        try PNGWriter.write(photo, to: dir.file("one.png"))
        try PNGWriter.write(GrayImage(width: 200, height: 150, fill: 255), to: dir.file("blank.png"))
        try PNGWriter.write(photo, to: dir.file("other.png"))
        try "# seer bench truth\none.png\thttps://example.com/p/1\nblank.png\nother.png\tsomething else\n".write(
            toFile: dir.file(TruthLoader.seerTruthFile), atomically: true, encoding: .utf8)
        let (items, _) = try TruthLoader.load([dir.path], format: .auto)
        #expect(items.count == 3 && items.allSatisfy { $0.format == .seer })
        let (report, _) = try Bench.run(items: items, paths: [dir.path], options: BenchOptions(), peers: .none)
        let outcome = Dictionary(uniqueKeysWithValues: report.photos.map { (TruthLoader.lastComponent($0.file), $0.score.outcome) })
        let want: [String: PhotoScore.Outcome] = ["blank.png": .clean, "one.png": .correct, "other.png": .wrong]
        #expect(outcome == want)
        #expect(report.readers[0].all.falseReadings == 1)
    }

    @Test func explicitFormatOverridesDetection() throws {
        let dir = try TemporaryDirectory("bench-explicit")
        try PNGWriter.write(GrayImage(width: 20, height: 20, fill: 255), to: dir.file("a.png"))
        try "1 2\n3 4\n5 6\n7 8\n".write(toFile: dir.file("a.txt"), atomically: true, encoding: .utf8)
        #expect(try TruthLoader.load([dir.path], format: .auto).items.first?.format == .boofcv)
        #expect(try TruthLoader.load([dir.path], format: .text).items.first?.truth == .text(.text("1 2\n3 4\n5 6\n7 8")))
        #expect(throws: TruthError.self) { try TruthLoader.load([dir.file("missing")], format: .auto) }
    }
}

@Suite struct BenchCLITests {
    @Test func jsonCSVAndHTMLFromTheCommand() throws {
        let dir = try TemporaryDirectory("bench-cli")
        let folder = try BenchFixtures.folder(dir, "data/qrcode-3")
        for n in ["01", "02"] {
            try BenchFixtures.copy(BenchFixtures.testImages + "/qr/zxing/qrcode-3/\(n).png", folder + "/\(n).png")
            try BenchFixtures.copy(BenchFixtures.testImages + "/qr/zxing/qrcode-3/\(n).txt", folder + "/\(n).txt")
        }
        let (photo, _) = try BenchFixtures.qrPhoto(["wrong truth here"], origins: [(60, 60)])
        try PNGWriter.write(photo, to: folder + "/3.png")
        try "the expected text\n".write(toFile: folder + "/3.txt", atomically: true, encoding: .utf8)

        let json = try SeerBinary.run(["bench", dir.file("data"), "--peers", "none", "--format", "json", "--jobs", "2", "--report", dir.file("r.html")])
        #expect(json.status == 0, "\(json.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let readers = try #require(object["readers"] as? [[String: Any]])
        let all = try #require(readers.first?["all"] as? [String: Any])
        #expect(all["photos"] as? Int == 3)
        #expect((all["wrong"] as? Int ?? 0) >= 1)
        #expect((all["correct"] as? Int ?? 0) + (all["missed"] as? Int ?? 0) + (all["wrong"] as? Int ?? 0) == 3)
        #expect(object["truth"] as? [String: String] == ["qrcode-3": "text"])

        let html = try String(contentsOfFile: dir.file("r.html"), encoding: .utf8)
        #expect(html.contains("<svg") && html.contains("data:image/png;base64,"))
        #expect(!html.contains("src=\"http"))

        let csv = try SeerBinary.run(["bench", dir.file("data"), "--peers", "none", "--format", "csv"])
        #expect(csv.status == 0)
        #expect(csv.lines.count == 4)
        #expect(csv.lines.first?.hasPrefix("reader,category,file,outcome") == true)
        #expect(csv.lines.contains { $0.contains(",wrong,") && $0.contains("wrong truth here") })

        let text = try SeerBinary.run(["bench", dir.file("data"), "--peers", "none"])
        #expect(text.status == 0)
        #expect(text.out.contains("ALL"))
        #expect(text.err.isEmpty)  // no progress bar without a terminal

        let bad = try SeerBinary.run(["bench", dir.file("data"), "--peers", "nosuchpeer"])
        #expect(bad.status == 64)
        let empty = try SeerBinary.run(["bench", dir.path + "/nothing-here"])
        #expect(empty.status == 1)
    }
}
