import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// DataMatrix Rectangular Extension (ISO/IEC 21471): the size table and module placement, and the
/// symbols of `TestImages/dmre` (written by zxing-cpp's encoder, `TestImages/dmre.py`) read through
/// the code reader.
@Suite("DMRE")
struct DMRETests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/dmre")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }

    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    static func dataMatrix(_ image: GrayImage) -> [Symbol] {
        reader.read(image).filter { $0.symbology == .datamatrix }
    }

    @Test("every size's codewords fill its mapping matrix, each bit once")
    func placementCoversEveryModule() {
        #expect(DMRE.sizes.count == 18)
        for (index, s) in DMRE.sizes.enumerated() {
            // The data regions and their finders tile the symbol.
            #expect(s.regionsDown * (s.regionRows + 2) == s.rows && s.regionsAcross * (s.regionColumns + 2) == s.columns, "\(s)")
            #expect(s.mappingRows * s.mappingColumns == 8 * s.totalWords, "\(s)")
            let placed = DMRE.placements[index].filter { $0 >= 0 }
            #expect(placed.count == 8 * s.totalWords, "\(s)")
            #expect(Set(placed).count == placed.count, "\(s): a bit placed twice")
            #expect(placed.max() == 8 * s.totalWords - 1, "\(s)")
        }
    }

    @Test("the sizes, data regions, codewords and blocks of ISO/IEC 21471 and ISO/IEC 16022, Table 7 of each")
    func sizeTables() {
        let all = DMRE.sizes + DMRE.squareAndRectangleSizes
        let written = all.map { "\($0) \($0.regionRows)x\($0.regionColumns) \($0.dataWords)+\($0.errorWords)/\($0.blocks)" }
        // DMRE's eighteen, then ECC 200's squares and rectangles.
        #expect(written == [
            "8x48 6x22 18+15/1",
            "8x64 6x14 24+18/1",
            "8x80 6x18 32+22/1",
            "8x96 6x22 38+28/1",
            "8x120 6x18 49+32/1",
            "8x144 6x22 63+36/1",
            "12x64 10x14 43+27/1",
            "12x88 10x20 64+36/1",
            "16x64 14x14 62+36/1",
            "20x36 18x16 44+28/1",
            "20x44 18x20 56+34/1",
            "20x64 18x14 84+42/1",
            "22x48 20x22 72+38/1",
            "24x48 22x22 80+41/1",
            "24x64 22x14 108+46/1",
            "26x40 24x18 70+38/1",
            "26x48 24x22 90+42/1",
            "26x64 24x14 118+50/1",
            "10x10 8x8 3+5/1",
            "12x12 10x10 5+7/1",
            "14x14 12x12 8+10/1",
            "16x16 14x14 12+12/1",
            "18x18 16x16 18+14/1",
            "20x20 18x18 22+18/1",
            "22x22 20x20 30+20/1",
            "24x24 22x22 36+24/1",
            "26x26 24x24 44+28/1",
            "32x32 14x14 62+36/1",
            "36x36 16x16 86+42/1",
            "40x40 18x18 114+48/1",
            "44x44 20x20 144+56/1",
            "48x48 22x22 174+68/1",
            "52x52 24x24 204+84/2",
            "64x64 14x14 280+112/2",
            "72x72 16x16 368+144/4",
            "80x80 18x18 456+192/4",
            "88x88 20x20 576+224/4",
            "96x96 22x22 696+272/4",
            "104x104 24x24 816+336/6",
            "120x120 18x18 1050+408/6",
            "132x132 20x20 1304+496/8",
            "144x144 22x22 1558+620/10",
            "8x18 6x16 5+7/1",
            "8x32 6x14 10+11/1",
            "12x26 10x24 16+14/1",
            "12x36 10x16 22+18/1",
            "16x36 14x16 32+24/1",
            "16x48 14x22 49+28/1",
        ])
    }

    @Test("finder and clock modules: solid left and bottom, alternating top and right, per region")
    func fixedModules() throws {
        let s = try #require(DMRE.sizes.first { $0.rows == 8 && $0.columns == 48 })
        // The outer L.
        #expect((0..<8).allSatisfy { s.fixed($0, 0) == true })
        #expect((0..<48).allSatisfy { s.fixed(7, $0) == true })
        // The top clock starts dark; the top-right module is light.
        #expect(s.fixed(0, 1) == false && s.fixed(0, 2) == true && s.fixed(0, 47) == false)
        // The second region's own finder column and the first region's clock column beside it.
        #expect(s.fixed(3, 24) == true && s.fixed(3, 23) == true && s.fixed(2, 23) == false)
        #expect(s.fixed(3, 5) == nil)
    }

    @Test(
        "each symbol reads as exactly its text",
        arguments: ["dmre-8x48", "dmre-12x88", "dmre-20x44", "dmre-26x40", "dmre-26x64", "dmre-24x48-turned", "dmre-8x96-mirrored"])
    func readsExactly(_ name: String) throws {
        let symbols = Self.dataMatrix(try Self.image(name))
        #expect(symbols.map(\.text) == [try Self.expected(name)], "\(name)")
    }

    @Test("a symbol with damaged modules is repaired by its error words")
    func damagedWithinCorrection() throws {
        let symbols = Self.dataMatrix(try Self.image("dmre-16x64-damaged"))
        #expect(symbols.map(\.text) == [try Self.expected("dmre-16x64-damaged")])
        // The outline lies on the symbol: 64 × 16 modules of 3 pixels inside a quiet zone of 3.
        let box = try #require(symbols.first?.box)
        #expect(abs(box.x - 9) < 3 && abs(box.y - 9) < 3)
        #expect(abs(box.width - 192) < 4 && abs(box.height - 48) < 4)
    }

    @Test("damage beyond correction, and a size no table has, read as nothing", arguments: ["dmre-8x48-beyond", "dmre-8x56-cut"])
    func unreadable(_ name: String) throws {
        #expect(Self.dataMatrix(try Self.image(name)).isEmpty, "\(name)")
    }

    @Test("codewords beyond correction are refused, within it repaired")
    func correction() throws {
        let s = try #require(DMRE.sizes.first { $0.rows == 8 && $0.columns == 48 })
        let index = try #require(DMRE.sizes.firstIndex(of: s))
        // "DMRE" in ASCII, then the first pad and its randomised successors (ISO/IEC 16022, 5.2.3).
        var data: [UInt8] = Array("DMRE".utf8).map { $0 + 1 } + [129]
        while data.count < s.dataWords {
            let pseudo = (149 * (data.count + 1)) % 253 + 1
            let v = 129 + pseudo
            data.append(UInt8(v <= 254 ? v : v - 254))
        }
        let check = FieldReedSolomon.encode(data.map(Int.init), checkCount: s.errorWords, field: .gf256).map(UInt8.init)
        let clean = data + check
        #expect(DMRE.decode(clean, size: s)?.stream.bytes == Array("DMRE".utf8))
        // Seven wrong words (15 error words correct up to 7).
        var seven = clean
        for i in stride(from: 0, to: 28, by: 4) { seven[i] ^= 0x5A }
        #expect(DMRE.decode(seven, size: s)?.stream.bytes == Array("DMRE".utf8))
        #expect(DMRE.decode(seven, size: s)?.corrected == 7)
        // Nine are too many: refused, not miscorrected.
        var nine = clean
        for i in stride(from: 0, to: 27, by: 3) { nine[i] ^= 0xA5 }
        #expect(DMRE.decode(nine, size: s) == nil)
        // The placement reads back what it places.
        var dark = [Bool](repeating: false, count: s.rows * s.columns)
        for r in 0..<s.mappingRows {
            for c in 0..<s.mappingColumns {
                let v = DMRE.placements[index][r * s.mappingColumns + c]
                let (sr, sc) = s.symbolModule(r, c)
                dark[sr * s.columns + sc] = clean[v >> 3] & UInt8(0x80 >> (v & 7)) != 0
            }
        }
        #expect(DMRE.codewords(dark, size: index) == clean)
    }

    @Test("not asked for, not read")
    func onlyWhenAsked() throws {
        let reader = CodeReader.forTests(symbologies: [.qr, .ean13])
        #expect(!reader.read(try Self.image("dmre-8x48")).contains { $0.symbology == .datamatrix })
    }
}
