import Foundation
import SeerImage
import Testing

@testable import SeerPlate

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

    @Test func truncatedWeightsAreRefused() {
        let bytes = PackageResources.plate_ctc_spr
        #expect(SequenceRecognizer(bytes: Array(bytes.dropLast(4))) == nil)
        #expect(SequenceRecognizer(bytes: [UInt8]("SPR0".utf8) + bytes.dropFirst(4)) == nil)
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
