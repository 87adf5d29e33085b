import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// MaxiCode (ISO/IEC 16023) on symbols Debian's zint wrote (`TestImages/maxicode/generate.py`): their
/// module grids decode to the exact text, within the Reed–Solomon limits and not past them, and their
/// images read exactly with every symbology on, turned to any angle.
@Suite struct MaxiCodeTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/maxicode")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    /// A `.grid` file (zint's `--dump`: 33 lines of four hexadecimal bytes, the first 30 bits a row).
    static func grid(_ name: String) throws -> [Bool] {
        let text = try String(contentsOf: directory.appendingPathComponent(name + ".grid"), encoding: .utf8)
        let rows = text.split(whereSeparator: \.isNewline).map { line in
            line.split(separator: " ").reduce(0) { $0 << 8 | Int($1, radix: 16)! }
        }
        try #require(rows.count == 33)
        return rows.flatMap { row in (0..<30).map { row >> (31 - $0) & 1 == 1 } }
    }

    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    /// `modules` with every module of the given codewords turned over.
    static func damaged(_ modules: [Bool], codewords: [Int]) -> [Bool] {
        var out = modules
        let hit = Set(codewords)
        for (i, place) in MaxiCode.layout.enumerated() where place >= 0 && hit.contains(Int(place) / 6) { out[i].toggle() }
        return out
    }

    @Test("the code sets have 64 codewords each, and the layout places 864 bits once each")
    func tables() {
        #expect(MaxiCodeText.sets.map(\.count) == [64, 64, 64, 64, 64])
        let places = MaxiCode.layout.filter { $0 >= 0 }.map(Int.init).sorted()
        #expect(places == Array(0..<864))
        #expect(MaxiCode.layout.count == 33 * 30)
        // The orientation modules are none of the data's.
        #expect(MaxiCode.orientation.allSatisfy { MaxiCode.layout[$0.row * 30 + $0.column] < 0 })
    }

    static let grids = ["mode2", "mode2-short", "mode3", "mode4", "mode5", "mode6", "latin1", "eci7", "append-2of3"]

    @Test("every grid decodes to its exact text", arguments: grids)
    func gridText(_ name: String) throws {
        let decoded = try #require(MaxiCode.decode(try Self.grid(name)))
        #expect(decoded.text()?.text == (try Self.expected(name)))
        #expect(decoded.corrected == 0)
        #expect(decoded.mode == Int(name.dropFirst(4).prefix(1)) ?? 4)
    }

    @Test("mode 2 and 3 carry their postcode, country and class where the standard puts them")
    func carrier() throws {
        let two = try #require(MaxiCode.decode(try Self.grid("mode2")))
        #expect(two.mode == 2)
        #expect(two.text()?.text.hasPrefix("[)>\u{1E}01\u{1D}96152382802\u{1D}840\u{1D}001\u{1D}1Z00004951") == true)
        let short = try #require(MaxiCode.decode(try Self.grid("mode2-short")))
        #expect(short.text()?.text == "01234\u{1D}276\u{1D}123\u{1D}Parcel 7 of 9")
        let three = try #require(MaxiCode.decode(try Self.grid("mode3")))
        #expect(three.text()?.text.hasPrefix("B1050 \u{1D}056\u{1D}999\u{1D}") == true)
    }

    @Test("ECI 7 reads as ISO/IEC 8859-5; structured append is reported as such")
    func eciAndAppend() throws {
        let eci = try #require(MaxiCode.decode(try Self.grid("eci7")))
        #expect(eci.text()?.charset == "iso-8859-5")
        #expect(eci.segments.map(\.eci) == [7])
        let part = try #require(MaxiCode.decode(try Self.grid("append-2of3")))
        #expect(part.structuredAppend?.index == 1)
        #expect(part.structuredAppend?.count == 3)
        #expect(part.text()?.text == "PART TWO")
    }

    @Test("the primary message corrects five codewords and not six", arguments: ["mode4", "mode2", "mode5"])
    func primaryLimit(_ name: String) throws {
        let clean = try Self.grid(name)
        let text = try Self.expected(name)
        for start in 0..<10 {
            let five = (0..<5).map { (start + 2 * $0) % 20 }
            let read = try #require(MaxiCode.decode(Self.damaged(clean, codewords: five)), "\(five)")
            #expect(read.text()?.text == text)
            #expect(read.corrected == 5)
            let six = (0..<6).map { (start + 3 * $0) % 20 }
            #expect(MaxiCode.decode(Self.damaged(clean, codewords: six)) == nil, "\(six)")
        }
    }

    @Test("each secondary block corrects half its check codewords and not one more", arguments: ["mode4", "mode5"])
    func secondaryLimit(_ name: String) throws {
        let clean = try Self.grid(name)
        let text = try Self.expected(name)
        let limit = name == "mode5" ? 14 : 10
        for block in 0..<2 {
            // Codewords of one block: every other one of the secondary message (from 20).
            let words = stride(from: 20 + block, to: 144, by: 2).map { $0 }
            for start in 0..<4 {
                let within = (0..<limit).map { words[(start + 5 * $0) % words.count] }
                let read = try #require(MaxiCode.decode(Self.damaged(clean, codewords: within)))
                #expect(read.text()?.text == text)
                // Both blocks at their limit at once.
                let other = stride(from: 21 - block, to: 144, by: 2).prefix(limit).map { $0 }
                #expect(MaxiCode.decode(Self.damaged(clean, codewords: within + other))?.text()?.text == text)
                let beyond = (0..<(limit + 1)).map { words[(start + 5 * $0) % words.count] }
                #expect(MaxiCode.decode(Self.damaged(clean, codewords: beyond)) == nil)
            }
        }
    }

    @Test("code sets, shifts, latches, locks and Numeric Shift as the writer uses them")
    func codeSets() {
        // A: "A1", Numeric Shift 123456789, Shift B "a", latch B "bc", 2 Shift A "DE", "f", Pad.
        let words = [1, 49, 31, 7, 22, 60, 52, 21, 59, 1, 63, 2, 3, 56, 4, 5, 6, 33, 33]
        #expect(MaxiCodeText.decodeSets(words)?.segments.first?.bytes == Array("A1123456789abcDEf".utf8))
        // Shift C, lock C, "ÀÁ", space, latch A, "Z"; Shift E and a control character.
        let latin = [60, 60, 0, 1, 59, 58, 26, 62, 9]
        #expect(MaxiCodeText.decodeSets(latin)?.segments.first?.bytes == [0xC0, 0xC1, 0x20, 0x5A, 0x09])
        // A Numeric Shift or ECI cut off by the end of the data is refused.
        #expect(MaxiCodeText.decodeSets([1, 31, 7, 22]) == nil)
        #expect(MaxiCodeText.decodeSets([1, 27]) == nil)
    }

    static let images = ["mode2", "mode3", "mode4", "mode5", "mode6", "latin1", "eci7", "append-2of3",
                         "mode4-turned-37", "mode4-turned-150", "mode4-upside-down", "mode4-small-turned-20", "mode4-blot", "mode4-primary-5"]

    @Test("each image reads exactly, with every symbology on", arguments: images)
    func image(_ name: String) throws {
        let image = try Fixtures.gray(name, in: Self.directory)
        let symbols = Self.reader.read(image)
        #expect(symbols.map(\.symbology) == [.maxicode], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == (try Self.expected(name)))
        #expect(symbols.first?.corners.count == 4)
    }

    @Test("a symbol whose primary message is damaged beyond correction reads nothing")
    func beyondCorrection() throws {
        let image = try Fixtures.gray("mode4-primary-6", in: Self.directory)
        #expect(Self.reader.read(image).filter { $0.symbology == .maxicode }.isEmpty)
    }

    @Test("a photo of other codes reads no MaxiCode")
    func noMaxiCode() throws {
        for name in ["aztec-1-7", "dm-abcdefg", "pdf417-1-01"] {
            let image = try Fixtures.gray(name, in: Fixtures.root.appendingPathComponent("TestImages/codes-2d"))
            #expect(Self.reader.read(image).filter { $0.symbology == .maxicode }.isEmpty, "\(name)")
        }
    }
}
