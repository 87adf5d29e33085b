import Foundation
import SeerCodegen
import SeerImage
import Testing

@testable import SeerQR

/// Codes seen at a low angle: the transform from the finders' outlines.
@Suite("Perspective")
struct PerspectiveTests {
    @Test("a least-squares transform through twelve exact points is the transform")
    func leastSquares() throws {
        let truth = Homography([1.8, 0.35, 120, -0.2, 1.4, 80, 0.0012, 0.0021])
        let from = (0..<12).map { Point(x: Double($0 % 4) * 9 + 1, y: Double($0 / 4) * 11 + 2) }
        let solved = try #require(Homography(leastSquaresFrom: from, to: from.map(truth.apply)))
        for p in [Point(x: 0, y: 0), Point(x: 21, y: 21), Point(x: 40, y: 3)] {
            let a = truth.apply(p), b = solved.apply(p)
            #expect(abs(a.x - b.x) < 1e-6 && abs(a.y - b.y) < 1e-6)
        }
        // Three or fewer points fix nothing.
        #expect(Homography(leastSquaresFrom: Array(from.prefix(3)), to: Array(from.prefix(3))) == nil)
    }

    /// A version-1 code drawn onto a keystone: its top edge much shorter than its bottom edge, as a
    /// code on a table photographed from a low angle.
    static func keystone(_ text: String) throws -> GrayImage {
        let flat = try QREncoder.encode(text, errorCorrection: .low).image(moduleSize: 16, quietZone: 4)
        let s = Double(flat.width)
        let quad = [Point(x: 150, y: 170), Point(x: 450, y: 170), Point(x: 560, y: 470), Point(x: 40, y: 470)]
        let back = try #require(Homography(from: quad, to: [Point(x: 0, y: 0), Point(x: s, y: 0), Point(x: s, y: s), Point(x: 0, y: s)]))
        return flat.pixels.withUnsafeBufferPointer { p in
            GrayImage(width: 600, height: 560) { x, y in
                let q = back.apply(Double(x) + 0.5, Double(y) + 0.5)
                guard q.x >= 0, q.y >= 0, q.x < s, q.y < s else { return 255 }
                return UInt8(Imaging.sampleFloat(p, flat.width, flat.height, q.x - 0.5, q.y - 0.5).rounded())
            }
        }
    }

    @Test("a version-1 code seen at a low angle is read, at every preset", arguments: CodeReader.Preset.allCases)
    func lowAngle(_ preset: CodeReader.Preset) throws {
        let text = "LOW ANGLE 42"
        let image = try Self.keystone(text)
        let symbols = CodeReader.forTests(preset: preset).read(image)
        #expect(symbols.map(\.text) == [text])
    }
}
