import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// ECC 200's own squares and rectangles read by Seer's locator and sampler (`DMRE.swift`) where
/// libdmtx reads nothing: the size table and placement of several data regions and blocks, and the
/// symbols of `TestImages/dmsquare` (written by zxing-cpp's encoder, `TestImages/dmsquare.py`).
@Suite("DataMatrix squares")
struct DataMatrixSquareTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/dmsquare")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }

    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    /// The symbols Seer's own locator reads in `image` with the squares and rectangles alone, as
    /// the code reader runs it (the local threshold of the reduced level).
    static func ownReadings(_ image: GrayImage) -> [String] {
        let bin = Imaging.binarize(image, window: max(24, max(image.width, image.height) / 12))
        let locator = DMRELocator(gray: image, bin: bin)
        return locator.candidates(limit: 10, squares: true).compactMap {
            locator.read($0, tables: [DMRE.squareAndRectangleTable]).flatMap { String(bytes: $0.stream.bytes, encoding: .utf8) }
        }
    }

    /// What the locator reads in `image` at its second look alone: the sizes that came near at the
    /// first, refined.
    static func nearMissReadings(_ image: GrayImage) -> [String] {
        let bin = Imaging.binarize(image, window: max(24, max(image.width, image.height) / 12))
        let locator = DMRELocator(gray: image, bin: bin)
        let tables = [DMRE.squareAndRectangleTable]
        return locator.candidates(limit: 10, squares: true).compactMap { outline -> String? in
            var near: [DMRELocator.Hypothesis] = []
            guard locator.read(outline, tables: tables, nearMisses: &near) == nil else { return nil }
            return locator.readNearMisses(near, tables: tables).flatMap { String(bytes: $0.stream.bytes, encoding: .utf8) }
        }
    }

    @Test("every size's codewords fill its mapping matrix, each bit once, in its blocks")
    func placementCoversEveryModule() {
        let table = DMRE.squareAndRectangleTable
        #expect(table.sizes.count == 30)
        for (index, s) in table.sizes.enumerated() {
            #expect(s.regionsDown * (s.regionRows + 2) == s.rows && s.regionsAcross * (s.regionColumns + 2) == s.columns, "\(s)")
            #expect(s.mappingRows * s.mappingColumns / 8 == s.totalWords, "\(s)")
            let placed = table.placements[index].filter { $0 >= 0 }
            #expect(placed.count == 8 * s.totalWords, "\(s)")
            #expect(Set(placed).count == placed.count, "\(s): a bit placed twice")
            #expect(s.errorWords % s.blocks == 0, "\(s)")
            #expect((0..<s.blocks).map { s.dataWords(ofBlock: $0) }.reduce(0, +) == s.dataWords, "\(s)")
        }
        // 144x144: eight blocks of 156 data words, then two of 155.
        let largest = table.sizes[23]
        #expect(largest.rows == 144 && largest.regionsDown == 6 && largest.blocks == 10)
        #expect((0..<10).map { largest.dataWords(ofBlock: $0) } == Array(repeating: 156, count: 8) + [155, 155])
    }

    /// libdmtx reads this symbol only when given far longer than a read allows it (a second or so);
    /// within a read, Seer's own sampler reads it.
    @Test("a 32x32 symbol of four regions seen at an angle, in low contrast, read by Seer's sampler")
    func perspective() throws {
        let name = "dm-32x32-perspective"
        let image = try Self.image(name)
        let text = try Self.expected(name)
        #expect(Self.ownReadings(image) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    @Test(
        "several regions and blocks, and a rectangle, read by Seer's sampler as exactly their text",
        arguments: ["dm-64x64", "dm-144x144", "dm-16x48", "dm-24x24"])
    func ownSamplerReadsExactly(_ name: String) throws {
        let image = try Self.image(name)
        #expect(Self.ownReadings(image) == [try Self.expected(name)], "\(name)")
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [try Self.expected(name)], "\(name)")
    }

    /// The region of a symbol seen at a slant is a sheared quadrilateral whose axis of inertia runs
    /// along a diagonal; it is outlined by the largest quadrilateral on its hull's corners.
    @Test("a 22x22 symbol seen at a slant, softened, read by Seer's sampler")
    func slanted() throws {
        let name = "dm-22x22-slanted"
        let text = try Self.expected(name)
        let image = try Self.image(name)
        #expect(Self.ownReadings(image) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    /// A photo-like square (seen at a slant on textured paper, JPEG): its axis of inertia points
    /// anywhere, so the specks of paper beside it were taken into its region along an axis at 45°
    /// to its sides, and its hull's longest edge is a bevel; along its hull's tightest rectangle
    /// it is outlined and read.
    @Test("a 20x20 symbol on textured paper, seen at a slant, read by Seer's sampler")
    func texturedPhoto() throws {
        let name = "dm-20x20-photo"
        let text = try Self.expected(name)
        let image = try Self.image(name)
        #expect(Self.ownReadings(image) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    /// A speck of the paper just beside the symbol is taken into its region as a lone clock module
    /// would be, and pushes its outline's far corner three or four modules out: no size fits that
    /// outline, and the region's own outline (without the specks) reads. Picture 52 of
    /// `dmpdfphotos.py make --seed 5150`.
    @Test("a 32x32 symbol with a speck beside it read on the region's own outline")
    func speckBeside() throws {
        let name = "dm-32x32-speck-beside"
        let text = try Self.expected(name)
        let image = try Self.image(name)
        let readings = Self.ownReadings(image)
        #expect(!readings.isEmpty && Set(readings) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    /// Light modules on a dark ground: Seer's locator looks at the picture inverted when nothing
    /// was read, where the symbol's region is the one lighter than its surroundings.
    @Test("a 20x20 symbol light on dark read as exactly its text")
    func lightOnDark() throws {
        let name = "dm-20x20-light-on-dark"
        let text = try Self.expected(name)
        let image = try Self.image(name)
        #expect(Self.ownReadings(image).isEmpty)
        #expect(Self.ownReadings(image.inverted()) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    /// Modules of two to three and a half pixels at a slant (a 16x16 turned 25°; an 8x32 bent as on a
    /// bottle and blurred): the outline's corners are up to half a module off, so no size's finder
    /// and clock match well enough at the first look. Pictures 113 and 103 of
    /// `dmpdfphotos.py make --seed 5150`.
    @Test(
        "small modules at a slant read once the sizes that came near are refined",
        arguments: ["dm-16x16-near-miss", "dm-8x32-bent"])
    func nearMisses(_ name: String) throws {
        let text = try Self.expected(name)
        let image = try Self.image(name)
        #expect(Self.ownReadings(image).isEmpty, "\(name)")
        #expect(Self.nearMissReadings(image) == [text], "\(name)")
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text], "\(name)")
    }

    /// A dark band against the top clock track joins the symbol's region, whose outline then runs
    /// past the symbol; the square cut to the finder's shorter arm reads.
    @Test("an 18x18 symbol with a dark band printed against its top, read by Seer's sampler")
    func bandAbove() throws {
        let name = "dm-18x18-band-above"
        let text = try Self.expected(name)
        let image = try Self.image(name)
        #expect(Self.ownReadings(image) == [text])
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text) == [text])
    }

    @Test("the largest quadrilateral on a hull: a sheared quadrilateral's corners, its bumps ignored")
    func largestQuadrilateral() throws {
        let corners = [Point(x: 10, y: 10), Point(x: 110, y: 18), Point(x: 150, y: 100), Point(x: 45, y: 96)]
        // The hull with a few extra corners on its sides, one pushed out a little (a module's bump).
        var hull: [Point] = []
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            hull.append(a)
            for f in [0.3, 0.6] {
                let n = Point(x: b.y - a.y, y: a.x - b.x)
                let length = (n.x * n.x + n.y * n.y).squareRoot()
                // Outwards for this clockwise-in-image order: the normal (dy, −dx) points out.
                let out = f == 0.3 ? 0.8 : 0.0
                hull.append(Point(x: a.x + (b.x - a.x) * f + n.x / length * out, y: a.y + (b.y - a.y) * f + n.y / length * out))
            }
        }
        let quad = try #require(DMRELocator.largestQuadrilateral(DMRELocator.convexHull(hull)))
        for c in corners {
            #expect(quad.contains { ($0.x - c.x) * ($0.x - c.x) + ($0.y - c.y) * ($0.y - c.y) < 2 * 2 }, "\(c) not among \(quad)")
        }
    }

    @Test("damage beyond correction reads as nothing, by either reader")
    func beyondCorrection() throws {
        let image = try Self.image("dm-24x24-beyond")
        #expect(Self.ownReadings(image).isEmpty)
        #expect(Self.reader.read(image).filter { $0.symbology == .datamatrix }.isEmpty)
    }
}
