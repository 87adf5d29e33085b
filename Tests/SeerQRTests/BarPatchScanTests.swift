import Foundation
import Logging
import SeerCodegen
import SeerImage
import Testing

@testable import SeerQR

/// Once a code is read, the linear table's scans read only the parts of the picture around its
/// patches of bars (`ReadSession.barCrops`): a barcode beside a QR Code is still read, where it lies.
@Suite("Scans of the bar patches")
struct BarPatchScanTests {
    /// A light page with `parts` drawn at their places.
    static func page(width: Int, height: Int, _ parts: [(image: GrayImage, x: Int, y: Int)]) -> GrayImage {
        var pixels = [UInt8](repeating: 225, count: width * height)
        for part in parts {
            for y in 0..<part.image.height where part.y + y < height {
                for x in 0..<part.image.width where part.x + x < width {
                    pixels[(part.y + y) * width + part.x + x] = part.image[x, y]
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    static func read(_ image: GrayImage) -> (symbols: [Symbol], trace: [String]) {
        let trace = DecoderInputTests.Trace()
        var logger = Logger(label: "seer.test") { _ in trace }
        logger.logLevel = .trace
        #if DEBUG
        let budget = 40 * CodeReader.Preset.balanced.defaultBudgetMilliseconds
        #else
        let budget = CodeReader.Preset.balanced.defaultBudgetMilliseconds
        #endif
        let reader = CodeReader(options: .init(timeBudgetMilliseconds: budget), logger: logger)
        return (reader.read(image), trace.lines.withLock { $0 })
    }

    @Test("an EAN-13 beside a QR Code is read from its patch of bars, at its place")
    func barcodeBesideQRCode() throws {
        let qr = try QREncoder.encode("https://example.com/p/4006381333931").image(moduleSize: 6)
        let ean = EANConstructionTests.render([EANConstructionTests.ean13("4006381333931")], module: 3, height: 120)
        let image = Self.page(width: 1200, height: 700, [(qr, 60, 120), (ean, 760, 260)])
        let (symbols, trace) = Self.read(image)
        #expect(symbols.compactMap(\.text).sorted() == ["4006381333931", "https://example.com/p/4006381333931"])
        #expect(trace.contains { $0.contains("patches of bars") }, "the linear scans read the whole picture")
        let barcode = try #require(symbols.first { $0.symbology == .ean13 })
        let xs = barcode.corners.map(\.x)
        #expect(xs.min()! >= 760 && xs.max()! <= 760 + Double(ean.width), "read at \(barcode.corners)")
    }
}

/// Rows of a QR Code's modules can line up into a patch of bars; a patch inside a code already read
/// holds no linear code, and is not scanned for one.
@Suite("Bar patches inside codes read")
struct BarPatchesInsideCodesTests {
    @Test("patches of bars inside a QR Code read are set aside; a barcode beside it is still read", arguments: [false, true])
    func patchesInsideACode(withBarcode: Bool) throws {
        let qr = try QREncoder.encode(String(repeating: "SEER 0123456789 ", count: 12)).image(moduleSize: 14)
        var parts = [(image: qr, x: 40, y: 40)]
        if withBarcode {
            parts.append((EANConstructionTests.render([EANConstructionTests.ean13("4006381333931")], module: 3, height: 120), 40 + qr.width + 80, 300))
        }
        let image = BarPatchScanTests.page(width: 40 + qr.width + (withBarcode ? 460 : 40), height: qr.height + 80, parts)
        let (symbols, trace) = BarPatchScanTests.read(image)
        print(trace.filter { $0.contains("bar") }.joined(separator: "\n"))
        let texts = symbols.compactMap(\.text)
        #expect(texts.contains(String(repeating: "SEER 0123456789 ", count: 12)))
        #expect(texts.contains("4006381333931") == withBarcode)
    }
}
