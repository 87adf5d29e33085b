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

    @Test("a patch of upright bars is scanned along rows, one of lying bars along columns", arguments: [false, true])
    func scanLinesFollowTheBars(turned: Bool) throws {
        let qr = try QREncoder.encode("https://example.com/p/4006381333931").image(moduleSize: 6)
        let ean = EANConstructionTests.render([EANConstructionTests.ean13("4006381333931")], module: 3, height: 120)
        let upright = Self.page(width: 1200, height: 700, [(qr, 60, 120), (ean, 760, 260)])
        let (symbols, trace) = Self.read(turned ? upright.rotatedClockwise() : upright)
        #expect(symbols.compactMap(\.text).sorted() == ["4006381333931", "https://example.com/p/4006381333931"])
        #expect(trace.contains { $0.contains("patches of bars") && $0.hasSuffix(turned ? "[\"columns\"]" : "[\"rows\"]") })
    }

    @Test("zbar's scan lines: rows read upright bars, columns do not")
    func zbarScanLines() {
        let ean = EANConstructionTests.render([EANConstructionTests.ean13("4006381333931")], module: 3, height: 120)
        let scanner = ZBarScanner(symbologies: [.ean13])
        func texts(_ image: GrayImage, _ lines: ScanLines) -> [String] {
            scanner.startPhoto()
            return scanner.scan(image, lines: lines).map { String(decoding: $0.bytes, as: UTF8.self) }
        }
        #expect(texts(ean, .both) == ["4006381333931"])
        #expect(texts(ean, ScanLines(rows: true, columns: false)) == ["4006381333931"])
        #expect(texts(ean, ScanLines(rows: false, columns: true)).isEmpty)
        #expect(texts(ean.rotatedClockwise(), ScanLines(rows: false, columns: true)) == ["4006381333931"])
        #expect(texts(ean.rotatedClockwise(), ScanLines(rows: true, columns: false)).isEmpty)
        // Every other line: the same reading, its quality counted as lines of a scan of every line.
        scanner.startPhoto()
        let every = scanner.scan(ean, lines: ScanLines(rows: true, columns: false))
        scanner.startPhoto()
        let half = scanner.scan(ean, density: 2, lines: ScanLines(rows: true, columns: false))
        #expect(half.map(\.bytes) == every.map(\.bytes))
        if let a = every.first?.quality, let b = half.first?.quality { #expect(abs(a - b) <= 2, "quality \(b) every other line, \(a) every line") }
    }
}

/// Rows of a QR Code's modules can line up into a patch of bars (a QR Code turned 210°, in
/// `TestImages/qr/generated`); a patch inside a code already read holds no linear code, and is not
/// scanned for one.
@Suite("Bar patches inside codes read")
struct BarPatchesInsideCodesTests {
    static let turned = Fixtures.root.appendingPathComponent("TestImages/qr/generated/rotate-210.png").path

    @Test("a turned QR Code's patches of bars are set aside once it is read: no linear scan runs")
    func patchesInsideACode() throws {
        let qr = try Fixtures.gray(Self.turned)
        let (symbols, trace) = BarPatchScanTests.read(qr)
        #expect(symbols.map(\.symbology) == [.qr])
        #expect(trace.contains("bar evidence on \(qr.width)x\(qr.height): true"), "the picture shows bars")
        #expect(trace.contains { $0.hasPrefix("bar evidence: ") && $0.hasSuffix("patches inside codes read") })
        #expect(trace.contains("skip zbar/reduced/plain: no bars"))
        #expect(!trace.contains { $0.hasPrefix("pass zbar") || $0.hasPrefix("bar lines: patch") })
    }

    @Test("an EAN-13 beside the turned QR Code is still read from its own patch")
    func barcodeBesideACode() throws {
        let qr = try Fixtures.gray(Self.turned)
        let ean = EANConstructionTests.render([EANConstructionTests.ean13("4006381333931")], module: 2, height: 90)
        let image = BarPatchScanTests.page(width: qr.width + ean.width + 100, height: max(qr.height, 200), [(qr, 0, 0), (ean, qr.width + 50, 40)])
        let (symbols, trace) = BarPatchScanTests.read(image)
        #expect(symbols.map(\.symbology).sorted { $0.rawValue < $1.rawValue } == [.ean13, .qr])
        #expect(symbols.contains { $0.text == "4006381333931" })
        #expect(trace.contains { $0.hasPrefix("pass zbar") }, "the barcode's patch is scanned")
    }
}
