import Foundation
import SeerImage
import Testing

@testable import SeerPlate

/// The rendered scenes in `TestImages/plates` (see `generate.py` there).
struct Scene: Sendable, CustomStringConvertible {
    var file: String
    var text: String
    var region: PlateRegion
    var effects: String
    /// The format label expected with `region` (``PlateReading/label``: a format name, or tied
    /// names joined by `|`).
    var format: String
    /// The format label expected with no region given.
    var auto: String
    var description: String { "\(file) (\(effects))" }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TestImages/plates")

    static let all: [Scene] = {
        guard let csv = try? String(contentsOf: folder.appendingPathComponent("manifest.csv"), encoding: .utf8) else { return [] }
        return csv.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let f = line.split(separator: ",").map(String.init)
            guard f.count == 6, let region = PlateRegion(rawValue: f[2]) else { return nil }
            return Scene(file: f[0], text: f[1], region: region, effects: f[3], format: f[4], auto: f[5])
        }
    }()
}

@Suite struct ReaderTests {
    static let reader = Result { try PlateReader() }

    @Test func manifestListsTheScenes() {
        #expect(Scene.all.count >= 12)
    }

    @Test(arguments: Scene.all)
    func readsRenderedPlate(scene: Scene) throws {
        let reader = try Self.reader.get()
        let image = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent(scene.file).path)
        let plates = try reader.read(image.gray, region: scene.region, scaleX: image.scaleX, scaleY: image.scaleY)
        let top = try #require(plates.first, "no plate in \(scene.file)")
        #expect(top.text == scene.text)
        #expect(top.region == scene.region)
        // The format the plate is drawn in, or the formats it fits that the drawing cannot tell
        // apart (generate.py, docs/plates.md "Labels").
        #expect(top.label == scene.format)
        #expect(top.candidates.first?.grammar == top.grammar && top.candidates.first?.formats == top.formats)
        #expect(top.characters.map(\.character).joined() == top.text)
        #expect(top.candidates.first?.text == top.text)
        #expect(top.confidence > 0 && top.confidence <= 1)
        // The plate sits in the middle band of every scene (see generate.py).
        #expect(top.corners.count == 4)
        let cy = top.box[1] + top.box[3] / 2
        #expect(cy > Double(image.info.height) * 0.35 && cy < Double(image.info.height) * 0.75)
    }

    /// With no region given, the same text, labelled by what the image shows (the manifest's `auto`
    /// column): a French plate's two hyphens, a Dutch side code's; where the characters alone
    /// leave formats tied (`ABC 1234`: old Brazilian or a US `AAA-9999`; `BA 123 CD`: Slovak or
    /// Italian; the German plate, whose narrow second space is not seen as a wide gap), the EU
    /// band's code, the state's name or the city line drawn beside them.
    @Test(arguments: Scene.all)
    func labelsRenderedPlateWithoutRegion(scene: Scene) throws {
        let reader = try Self.reader.get()
        let image = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent(scene.file).path)
        let top = try #require(try reader.read(image.gray, region: nil, scaleX: image.scaleX, scaleY: image.scaleY).first)
        #expect(top.text == scene.text)
        #expect(top.label == scene.auto)
        if let formats = top.formats {
            // A tie names no format and says its region only when every tied format shares it.
            #expect(top.grammar == nil && formats.count >= 2)
            let regions = Set(formats.compactMap { name in PlateGrammar.standard.formats.first { $0.name == name }?.region })
            #expect(top.region == (regions.count == 1 ? regions.first : nil))
        } else {
            #expect(top.region == scene.region)
        }
    }

    @Test func cornersFollowTheDecodeScale() throws {
        let reader = try Self.reader.get()
        let path = Scene.folder.appendingPathComponent("br-old.png").path
        let full = try ImageDecoder.decode(contentsOf: path)
        let half = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(scale: 2))
        let a = try #require(try reader.read(full.gray, region: .br, scaleX: full.scaleX, scaleY: full.scaleY).first)
        let b = try #require(try reader.read(half.gray, region: .br, scaleX: half.scaleX, scaleY: half.scaleY).first)
        #expect(abs(a.box[0] - b.box[0]) < 12 && abs(a.box[1] - b.box[1]) < 12)
    }

    /// The CPU budget stops the reader: with a millisecond, locating alone spends it and no row is
    /// read; with the default the same scene reads. (How long hostile scenes take is measured in
    /// `plate-bench`, docs/plates.md.)
    @Test func spentBudgetStopsReading() throws {
        let scene = try #require(Scene.all.first { $0.file == "de.png" })
        let image = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent(scene.file).path)
        var options = PlateReader.Options()
        options.timeBudgetMilliseconds = 1
        let starved = try PlateReader(options: options)
        #expect(try starved.findings(image.gray, region: scene.region).isEmpty)
        #expect(PlateReader.Options().timeBudgetMilliseconds == PlateReader.Options.defaultTimeBudgetMilliseconds)
        let plates = try Self.reader.get().read(image.gray, region: scene.region, scaleX: image.scaleX, scaleY: image.scaleY)
        #expect(plates.first?.text == scene.text)
    }

    @Test func blankImageHasNoPlate() throws {
        let reader = try Self.reader.get()
        let plates = try reader.read(GrayImage(width: 320, height: 240, fill: 128), region: nil)
        #expect(plates.isEmpty)
    }

    @Test func readingEncodesAsDocumented() throws {
        let reader = try Self.reader.get()
        let image = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent("fr.png").path)
        let top = try #require(try reader.read(image.gray, region: .eu).first)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(top)) as? [String: Any]
        let keys = Set(json?.keys.map { $0 } ?? [])
        #expect(keys.isSuperset(of: ["text", "confidence", "region", "grammar", "corners", "box", "characters", "candidates"]))
        #expect(!keys.contains("formats"))
        let decoded = try JSONDecoder().decode(PlateReading.self, from: JSONEncoder().encode(top))
        #expect(decoded == top)
        // A tie (Slovak or Italian: one gap after the first pair) lists its formats instead of a
        // grammar. The Slovak scene's EU band decides it; with the band painted over, it stays tied.
        let sk = try ImageDecoder.decode(contentsOf: Scene.folder.appendingPathComponent("sk.png").path)
        let decided = try #require(try reader.read(sk.gray, region: .eu).first)
        #expect(decided.grammar == "sk" && decided.formats == nil)
        var plain = sk.gray
        let x0 = Int(decided.box[0]), y0 = Int(decided.box[1]), h = Int(decided.box[3])
        let ground = (y0..<(y0 + h)).flatMap { y in (x0..<(x0 + h)).map { plain.pixels[y * plain.width + $0] } }.max() ?? 255
        for y in max(0, y0 - h)..<min(plain.height, y0 + 2 * h) {
            for x in max(0, x0 - 3 * h / 2)..<(x0 - 1) { plain.pixels[y * plain.width + x] = ground }
        }
        let tied = try #require(try reader.read(plain, region: .eu).first)
        #expect(tied.text == decided.text)
        let tiedJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(tied)) as? [String: Any]
        #expect(tiedJSON?["formats"] as? [String] == ["it", "sk"])
        #expect(tiedJSON?["grammar"] == nil && tiedJSON?["region"] as? String == "eu")
        #expect(try JSONDecoder().decode(PlateReading.self, from: JSONEncoder().encode(tied)) == tied)
    }

    @Test func missingLanguageDataIsATypedError() {
        do {
            _ = try PlateReader(tessdata: "/nonexistent/tessdata")
            Issue.record("expected missingLanguageData")
        } catch let error as PlateError {
            #expect(error.code == .missingLanguageData)
            #expect(error.description.contains("/nonexistent/tessdata/eng.traineddata"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func withoutAFolderTheDebianLocationIsUsed() {
        // The library reads no environment: TESSDATA_PREFIX is the executable's to pass on.
        #expect(tessdataDirectory().hasSuffix("tessdata"))
    }
}
