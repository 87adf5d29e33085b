import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// The cheap look for bars that decides whether the fallback zbar passes run on a photo where the
/// first passes read nothing.
@Suite struct BarEvidenceTests {
    static let codes = Fixtures.root.appendingPathComponent("TestImages/codes")

    static var linear: [String] {
        ["upca-036000291452.png", "code128-fnc4.png", "code39-fullascii.png"].map { codes.appendingPathComponent($0).path }
            + ["linear-code128.png", "linear-ean13.png", "linear-i25.png"].map { Fixtures.generated.appendingPathComponent($0).path }
            + ((try? FileManager.default.contentsOfDirectory(atPath: codes.appendingPathComponent("zxing").path)) ?? [])
            .filter { $0.hasSuffix(".png") }.sorted().map { codes.appendingPathComponent("zxing/" + $0).path }
    }

    @Test("drawn and photographed 1-D codes show a patch of bars", arguments: linear)
    func barsAreSeen(_ path: String) throws {
        let image = try Fixtures.gray(path)
        let patches = BarEvidence.patches(in: image)
        #expect(!patches.isEmpty, "\(path)")
        #expect(BarEvidence.mayHoldBars(image))
    }

    @Test("flat ground, noise, a QR Code and lines of text show none")
    func noBars() throws {
        let flat = GrayImage(width: 640, height: 480, fill: 128)
        #expect(!BarEvidence.mayHoldBars(flat))
        var generator = SystemRandomNumberGenerator()
        let noise = GrayImage(width: 640, height: 480, pixels: (0..<(640 * 480)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        #expect(!BarEvidence.mayHoldBars(noise))
        // Text and a QR Code's modules run every way: at most small patches of cells whose edges
        // happen to line up, never a patch of bars.
        let plates = Fixtures.root.appendingPathComponent("TestImages/plates/nonplates")
        for path in [Fixtures.generated.appendingPathComponent("far-away.png").path, plates.appendingPathComponent("poster.png").path,
            plates.appendingPathComponent("label-lines.png").path]
        {
            #expect(!BarEvidence.mayHoldBars(try Fixtures.gray(path)), "\(path)")
        }
    }

    @Test("a blurred code's thin bars count: its patch lies on the code")
    func blurredBars() throws {
        // A book's EAN-13, soft enough that its thin bars stay on one side of the mid-level its
        // wide bars set: counted by turns of the profile, not only by crossings of that level.
        let image = try Fixtures.gray(Self.codes.appendingPathComponent("zxing/ean13-2-12.png").path)
        // The bars span x 95–385 and y 60–290 of the 480 × 360 photo.
        let onCode = BarEvidence.patches(in: image).filter { $0.x0 < 385 && $0.x1 > 95 && $0.y0 < 290 && $0.y1 > 60 }
        #expect((onCode.map(\.cells).max() ?? 0) >= 100, "\(onCode.map(\.cells))")
    }

    @Test("an image too small to cut into cells is never ruled out")
    func tinyImages() {
        #expect(BarEvidence.mayHoldBars(GrayImage(width: 20, height: 20, fill: 0)))
        #expect(BarEvidence.mayHoldBars(GrayImage(width: 100, height: 1, fill: 0)))
    }

    @Test("with every symbology asked for, a poster reads as nothing and a drawn UPC-A still reads")
    func readsWithTheGate() throws {
        let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))
        let plates = Fixtures.root.appendingPathComponent("TestImages/plates/nonplates")
        #expect(reader.read(try Fixtures.gray(plates.appendingPathComponent("poster.png").path)).isEmpty)
        let code = reader.read(try Fixtures.gray(Self.codes.appendingPathComponent("upca-036000291452.png").path))
        #expect(code.compactMap(\.text).contains { $0.hasSuffix("036000291452") })
    }

    /// Runs the preset's tables with every symbology over a photo, with a budget no debug build
    /// reaches, and returns the session: what it read and which zbar scans it made.
    static func session(_ path: String, preset: CodeReader.Preset) throws -> ReadSession {
        let options = CodeReader.Options(symbologies: Set(Symbology.allCases), preset: preset, timeBudgetMilliseconds: 100_000)
        var session = ReadSession(image: try Fixtures.gray(path), scanner: ZBarScanner(symbologies: options.symbologies), options: options)
        session.run()
        return session
    }

    @Test("a carpet's stripes: the linear table's scans, not the QR table's fallbacks nor the enlarged level")
    func textureScans() throws {
        // 480 × 480, zxing-cpp's sample of a carpet: patches of bars all over, no pair of finder patterns.
        let path = Self.codes.appendingPathComponent("nocode/falsepositives-2-07.png").path
        for preset in [CodeReader.Preset.fast, .balanced] {
            let session = try Self.session(path, preset: preset)
            #expect(session.found.isEmpty)
            #expect(session.barsSeen == true)
            #expect(!session.finderPairSeen)
            #expect(session.zbarScans.contains("480x480/plain"), "\(session.zbarScans)")
            // The QR table's binarised and smoothed scans wait for a pair of finder patterns; the
            // enlarged level (960 × 960) is for photos of at most 2^17 pixels.
            #expect(session.zbarScans.allSatisfy { !$0.hasSuffix("/binarized") && !$0.hasSuffix("/smoothed") }, "\(session.zbarScans)")
            #expect(!session.zbarScans.contains { $0.hasPrefix("960x960") }, "\(session.zbarScans)")
        }
        // thorough pays for every scan.
        let thorough = try Self.session(path, preset: .thorough)
        #expect(thorough.zbarScans.contains("960x960/plain"), "\(thorough.zbarScans)")
    }

    @Test("a small photo its code fills is read by the enlarged scans at balanced")
    func smallPhotoEnlarged() throws {
        // 240 × 240: zbar reads the UPC-A only on the photo enlarged 2×.
        let path = Self.codes.appendingPathComponent("zxing/upca-3-13.png").path
        let session = try Self.session(path, preset: .balanced)
        #expect(session.zbarScans.contains { $0.hasPrefix("480x480/") }, "\(session.zbarScans)")
        let texts = session.found.map { String(decoding: $0.raw.bytes, as: UTF8.self) }
        #expect(texts == ["854818000116"] || texts == ["0854818000116"], "\(texts)")
    }
}
