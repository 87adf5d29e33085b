import Foundation
import Seer
import SeerCodegen
import SeerQR
import Testing

/// Codes and plates from one decode: the code reader gets an area-averaged reduction of the
/// full-size photo, and its corners still come back in full-size displayed pixels.
@Suite("photo scan: codes and plates from one decode")
struct PhotoScanTests {
    /// A 3200×2400 PNG (codes are read at half size) with one QR code whose symbol starts at (1800, 1000).
    static func largePhoto() throws -> (path: String, payload: String, topLeft: (x: Double, y: Double), side: Double) {
        let payload = "https://seer.example/large/\(UUID().uuidString.prefix(8))"
        let module = 6
        let code = try QREncoder.encode(payload, errorCorrection: .medium)
        let symbol = code.image(moduleSize: module, quietZone: 4)
        let (ox, oy) = (1800 - 4 * module, 1000 - 4 * module)
        let canvas = GrayImage(width: 3200, height: 2400) { x, y in
            let (sx, sy) = (x - ox, y - oy)
            if sx >= 0, sy >= 0, sx < symbol.width, sy < symbol.height { return symbol[sx, sy] }
            return UInt8(200 + (x / 50 + y / 50) % 2 * 30)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seer-large-\(UUID().uuidString).png").path
        try PNGWriter.write(canvas, to: path)
        return (path, payload, (1800, 1000), Double((symbol.width / module - 8) * module))
    }

    @Test func cornersAreInFullSizePixelsEitherWay() throws {
        let photo = try Self.largePhoto()
        defer { try? FileManager.default.removeItem(atPath: photo.path) }
        #expect(CodeReader.decodeScale(width: 3200, height: 2400, preset: .balanced) == 4)
        #expect(CodeReader.decodeScale(width: 3200, height: 2400, preset: .balanced, symbologies: [.qr, .ean13]) == 4)
        #expect(CodeReader.decodeScale(width: 3200, height: 2400, preset: .thorough) == 1)
        let engine = Engine()
        let codes = try engine.scanPhoto(contentsOf: photo.path, reading: .codes)
        let both = try engine.scanPhoto(contentsOf: photo.path, reading: .all, region: .eu, includeImage: true)
        #expect(codes.report.plates == nil)
        #expect(both.report.plates != nil)
        for scan in [codes, both] {
            let symbol = try #require(scan.symbols.first)
            #expect(scan.symbols.count == 1)
            #expect(symbol.text == photo.payload)
            #expect(scan.report.width == 3200 && scan.report.height == 2400)
            let expected = [
                (photo.topLeft.x, photo.topLeft.y), (photo.topLeft.x + photo.side, photo.topLeft.y),
                (photo.topLeft.x + photo.side, photo.topLeft.y + photo.side), (photo.topLeft.x, photo.topLeft.y + photo.side),
            ]
            for (corner, truth) in zip(symbol.corners, expected) {
                #expect(abs(corner.x - truth.0) <= 6 && abs(corner.y - truth.1) <= 6, "\(corner) vs \(truth)")
            }
        }
        // The full-size decode is kept for annotation when plates are read.
        #expect(both.image?.width == 3200)
        #expect(both.imageScale == 1)
        let a = codes.symbols[0].corners, b = both.symbols[0].corners
        for (p, q) in zip(a, b) { #expect(abs(p.x - q.x) <= 2 && abs(p.y - q.y) <= 2) }
    }

    @Test func scanCodesIsTheCodesOnlyPhotoScan() throws {
        let path = Fixtures.generated.appendingPathComponent("several-4.png").path
        let engine = Engine()
        let legacy = try engine.scanCodes(contentsOf: path)
        let scan = try engine.scanPhoto(contentsOf: path, reading: .codes)
        #expect(legacy.symbols == scan.symbols)
        #expect(legacy.plates.isEmpty && legacy.report.plates == nil)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let fromBytes = try engine.scanPhoto(bytes, file: "x.png", reading: [.codes, .plates])
        #expect(fromBytes.report.file == "x.png")
        #expect(Set(fromBytes.symbols.compactMap(\.text)) == Set(scan.symbols.compactMap(\.text)))
        #expect(fromBytes.report.plates != nil)
    }
    /// Reading gets what the photo's own CPU budget leaves after decoding: with nothing left, the
    /// readers stop before their first pass; with no photo budget they read everything.
    @Test func aPhotosBudgetBoundsTheReadingAfterDecoding() throws {
        let path = Fixtures.generated.appendingPathComponent("several-4.png").path
        var spent = Engine.Configuration()
        spent.limits.photoCPUMilliseconds = 0
        let none = try Engine(configuration: spent).scanPhoto(contentsOf: path, reading: .all)
        #expect(none.symbols.isEmpty)
        #expect(none.report.plates == [])
        var unbounded = Engine.Configuration()
        unbounded.limits.photoCPUMilliseconds = nil
        let all = try Engine(configuration: unbounded).scanPhoto(contentsOf: path, reading: .all)
        #expect(all.symbols.count == 4)
        #expect(Engine.Configuration().limits.photoCPUMilliseconds == 2500)
    }
}
