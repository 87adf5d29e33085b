import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// PDF417 symbols in pictures (`TestImages/pdf417`, written by the `pdf417gen` encoder through its
/// `generate.py`): one seen at a slant, its modules spaced in perspective along each row, one turned
/// 4° (its rows cross the lines the row indicators are first read on), ones cut by the picture's
/// edge through the stop or the start pattern, read from the other side, one of a single column
/// filling its picture (its start pattern's wide bar wider than a threshold window of a sixteenth of
/// the line) and a flat one of three rows (crossed by two scan lines six pixels apart).
@Suite("PDF417 pictures")
struct PDF417PictureTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/pdf417")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }

    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    @Test(
        "a slanted symbol, ones turned 4° and 49°, a long one turned 6°, symbols cut through the stop or the start pattern, one column filling its picture, a flat symbol of three rows, and symbols of a pixel a module with rows two pixels and one pixel tall read as PDF417 with the exact text",
        arguments: [
            "pdf417-slanted", "pdf417-turned-4deg", "pdf417-turned", "pdf417-no-stop", "pdf417-no-start", "pdf417-one-column",
            "pdf417-flat", "pdf417-turned-6deg", "pdf417-one-pixel-rows-2", "pdf417-one-pixel-rows-1",
        ])
    func reads(_ name: String) throws {
        let symbols = Self.reader.read(try Self.image(name))
        #expect(symbols.map(\.symbology) == [.pdf417], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == (try Self.expected(name)))
    }

    @Test(
        "blurred symbols, whose threshold widens every bar and narrows every space, read with the exact text",
        arguments: ["pdf417-blurred-11", "pdf417-blurred-44"])
    func readsBlurred(_ name: String) throws {
        let directory = Fixtures.root.appendingPathComponent("TestImages/codes-2d")
        let symbols = Self.reader.read(try Fixtures.gray(name, in: directory))
        #expect(symbols.map(\.symbology) == [.pdf417], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == (try Fixtures.expected(name, in: directory)))
    }

    @Test("a stop pattern whose bars the threshold widened matches by its bar-and-space sums; other runs do not")
    func widenedPatternMatches() {
        // The stop pattern (7 1 1 3 1 1 1 2 1 modules) at 3 px a module, blurred and thresholded
        // near the quiet zone: its one-module space between two one-module bars is 1 px.
        let widened: [Int32] = [20, 4, 3, 9, 4, 1, 4, 5, 5]
        let module = widened.withUnsafeBufferPointer { PDF417Locator.matches($0, from: 0, PDF417Locator.stop, sum: 18, reversed: false) }
        #expect(module.map { abs($0 - 55.0 / 18) < 1e-9 } == true)
        // The same runs with the 3-module space read as one module: neither test passes.
        let other: [Int32] = [20, 4, 3, 3, 4, 1, 4, 5, 5]
        #expect(other.withUnsafeBufferPointer { PDF417Locator.matches($0, from: 0, PDF417Locator.stop, sum: 18, reversed: false) } == nil)
    }

    @Test("cut through the stop pattern and wiped beyond correction: no reading at all")
    func beyondCorrection() throws {
        #expect(try Self.expected("pdf417-no-stop-beyond").isEmpty)
        #expect(Self.reader.read(try Self.image("pdf417-no-stop-beyond")).isEmpty)
    }

    @Test("a row sampled in perspective keeps its boundaries in the symbol's own modules")
    func perspectiveSampling() {
        // One row of 40 modules, bars on the even ones, drawn so that each module is 1.5 times as
        // wide at the left end as at the right (the map u = (1 + c)·σ / (1 + c·σ), (1 + c)² = 1.5).
        let modules = 40.0, width = 260, height = 9
        let c = 1.5.squareRoot() - 1
        let left = 20.0, length = 220.0
        var pixels = [UInt8](repeating: 255, count: width * height)
        for x in 0..<width {
            let u = (Double(x) + 0.5 - left) / length
            guard u >= 0, u < 1 else { continue }
            // The inverse map: σ = u / (1 + c − c·u).
            let module = Int(modules * u / (1 + c - c * u))
            if module % 2 == 0 { for y in 0..<height { pixels[y * width + x] = 0 } }
        }
        let edges = pixels.withUnsafeBufferPointer { px in
            PDF417Locator.boundaries(
                px, width: width, height: height, from: Point(x: left, y: 4.5), to: Point(x: left + length, y: 4.5),
                modules: modules, ratio: 1.5)
        }
        // Every boundary within a fifth of a module of a whole module; evenly spaced they are not.
        #expect(edges.edges.count >= 38)
        for e in edges.edges where e > 0.5 && e < modules - 0.5 {
            #expect(abs(e - e.rounded()) < 0.2, "\(e)")
        }
        let flat = pixels.withUnsafeBufferPointer { px in
            PDF417Locator.boundaries(
                px, width: width, height: height, from: Point(x: left, y: 4.5), to: Point(x: left + length, y: 4.5),
                modules: modules)
        }
        #expect(flat.edges.contains { $0 > 0.5 && $0 < modules - 0.5 && abs($0 - $0.rounded()) > 0.3 })
    }
}
