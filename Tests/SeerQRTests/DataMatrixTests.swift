import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// DataMatrix ECC 200: the images of `TestImages/codes-2d` (zxing-cpp's samples, see its NOTICE)
/// read through the code reader, and the data-stream decoder on codewords written out by the rules of
/// ISO/IEC 16022.
@Suite("DataMatrix")
struct DataMatrixTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/codes-2d")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }

    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    static func dataMatrixTexts(_ image: GrayImage, reader: CodeReader = reader) -> [String?] {
        reader.read(image).filter { $0.symbology == .datamatrix }.map(\.text)
    }

    @Test(
        "each image reads as exactly its text",
        arguments: ["dm-edifact", "dm-hello-2-errors", "dm-abcdefg", "dm-rect-378", "dm-photo-09", "dm-macro06"])
    func readsExactly(_ name: String) throws {
        let texts = Self.dataMatrixTexts(try Self.image(name))
        #expect(texts == [try Self.expected(name)], "\(name): \(texts)")
    }

    @Test("a macro 06 symbol keeps its ISO/IEC 15434 envelope")
    func macroEnvelope() throws {
        let symbols = Self.reader.read(try Self.image("dm-macro06")).filter { $0.symbology == .datamatrix }
        let symbol = try #require(symbols.first)
        #expect(symbol.text?.hasPrefix("[)>\u{1E}06\u{1D}") == true)
        #expect(symbol.text?.hasSuffix("\u{1E}\u{04}") == true)
        #expect(!symbol.isGS1)
        // The outline lies on the symbol, in the image's coordinates.
        let box = symbol.box
        #expect(box.width > 40 && box.height > 40 && box.x >= 0 && box.y >= 0)
    }

    @Test("inverted and mirrored symbols read as the original")
    func invertedAndMirrored() throws {
        let original = try Self.image("dm-abcdefg")
        let expected = try Self.expected("dm-abcdefg")
        let w = original.width, h = original.height
        let inverted = GrayImage(width: w, height: h) { x, y in 255 - original.pixels[y * w + x] }
        let mirrored = GrayImage(width: w, height: h) { x, y in original.pixels[y * w + (w - 1 - x)] }
        let both = GrayImage(width: w, height: h) { x, y in 255 - original.pixels[y * w + (w - 1 - x)] }
        #expect(Self.dataMatrixTexts(inverted) == [expected])
        #expect(Self.dataMatrixTexts(mirrored) == [expected])
        #expect(Self.dataMatrixTexts(both) == [expected])
    }

    @Test("photos with no DataMatrix yield none", arguments: ["poster", "receipt", "street-sign"])
    func noneWhereThereIsNone(_ name: String) throws {
        let path = Fixtures.root.appendingPathComponent("TestImages/plates/nonplates/\(name).png").path
        let symbols = Self.reader.read(try Fixtures.gray(path))
        #expect(!symbols.contains { $0.symbology == .datamatrix })
    }

    @Test("a QR Code is not read as a DataMatrix")
    func qrIsNotDataMatrix() throws {
        let candidates = Fixtures.entries { $0.symbology == nil && $0.texts?.count == 1 }
        let entry = try #require(candidates.first)
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent(entry.file).path)
        let symbols = Self.reader.read(image)
        #expect(!symbols.contains { $0.symbology == .datamatrix })
    }

    @Test("not asked for, not read")
    func onlyWhenAsked() throws {
        let reader = CodeReader.forTests(symbologies: [.qr, .ean13])
        #expect(Self.dataMatrixTexts(try Self.image("dm-edifact"), reader: reader).isEmpty)
        #expect(Symbology(rawValue: "datamatrix") == .datamatrix)
        #expect(Symbology.datamatrix.isMatrix)
    }

    // MARK: The data stream

    /// ASCII codewords for text: a character is its value plus one.
    static func ascii(_ s: String) -> [UInt8] { s.utf8.map { $0 + 1 } }

    @Test("ASCII: characters, digit pairs, padding")
    func asciiStream() throws {
        // "A" then "12" as one digit pair (130 + 12), then a pad.
        let stream = try DataMatrixStream.decode([66, 142, 129, 175]).get()
        #expect(stream.bytes == Array("A12".utf8))
        #expect(!stream.gs1 && !stream.special)
        #expect(stream.text()?.text == "A12")
    }

    @Test("GS1: FNC1 first marks the data, FNC1 later stands as GS")
    func gs1Stream() throws {
        // FNC1, "01" "23" as digit pairs, FNC1, "9".
        let stream = try DataMatrixStream.decode([232, 131, 153, 232, 58]).get()
        #expect(stream.gs1)
        #expect(stream.bytes == Array("0123\u{1D}9".utf8))
    }

    @Test("ECI 26: the bytes after it are UTF-8")
    func eciStream() throws {
        // ECI 26 is one codeword, 27; then "é" as UTF-8 (0xC3 0xA9) through upper shifts.
        let stream = try DataMatrixStream.decode([241, 27, 235, 0xC3 - 127, 235, 0xA9 - 127]).get()
        #expect(stream.segments == [.init(eci: 26, bytes: [0xC3, 0xA9])])
        #expect(stream.text()?.text == "é")
        #expect(stream.text()?.charset == "utf-8")
    }

    @Test("no ECI: ISO/IEC 8859-1 for bytes that are not UTF-8")
    func latin1Stream() throws {
        // "é" as one ISO/IEC 8859-1 byte (0xE9) through an upper shift.
        let stream = try DataMatrixStream.decode([235, 0xE9 - 127]).get()
        #expect(stream.text()?.text == "é")
        #expect(stream.text()?.charset == "iso-8859-1")
    }

    @Test("C40 and Text: three values per codeword pair, shifts, unlatch")
    func c40Stream() throws {
        // C40 latch; "AB" + space: values 14, 15, 3 → 1600·14 + 40·15 + 3 + 1 = 23004 → 89, 220;
        // unlatch (254), then ASCII "x".
        let c40 = try DataMatrixStream.decode([230, 89, 220, 254, 121]).get()
        #expect(c40.bytes == Array("AB x".utf8))
        // The same values in Text encodation are lower case.
        let text = try DataMatrixStream.decode([239, 89, 220, 254, 121]).get()
        #expect(text.bytes == Array("ab x".utf8))
        // Shift 2 then 27 is FNC1 (GS); 4 is "0": values 1, 27, 4 → 1600 + 1080 + 4 + 1 = 2685 → 10, 125.
        let fnc1 = try DataMatrixStream.decode([230, 10, 125]).get()
        #expect(fnc1.bytes == [0x1D, 0x30])
    }

    @Test("X12, EDIFACT and Base 256")
    func otherEncodations() throws {
        // X12: "*", ">", "0" → values 1, 2, 4 → 1600 + 80 + 4 + 1 = 1685 → 6, 149.
        let x12 = try DataMatrixStream.decode([238, 6, 149]).get()
        #expect(x12.bytes == Array("*>0".utf8))
        // EDIFACT: "AB", then unlatch (31), packed in three codewords: 000001 000010 011111 000000.
        let edifact = try DataMatrixStream.decode([240, 0b0000_0100, 0b0010_0111, 0b1100_0000, 66]).get()
        #expect(edifact.bytes == Array("ABA".utf8))
        // Base 256: length 2, bytes 0x00 0xFF, each randomised by its position (2, 3, 4).
        func randomised(_ value: Int, at position: Int) -> UInt8 {
            let pseudo: Int = (149 * position) % 255 + 1
            return UInt8((value + pseudo) % 256)
        }
        let codewords: [UInt8] = [231, randomised(2, at: 2), randomised(0, at: 3), randomised(255, at: 4)]
        let base256 = try DataMatrixStream.decode(codewords).get()
        #expect(base256.bytes == [0x00, 0xFF])
        #expect(base256.text() == nil)
    }

    @Test("structured append and reader programming are reported as such")
    func headers() throws {
        // Symbol 2 of 3 (position − 1 = 1 in the high nibble, 17 − 3 = 14 in the low), file 7/9, then "A".
        let part = try DataMatrixStream.decode([233, 0x1E, 7, 9, 66]).get()
        #expect(part.structuredAppend == StructuredAppend(index: 1, count: 3, parity: 7 << 8 | 9))
        #expect(part.bytes == Array("A".utf8))
        let programming = try DataMatrixStream.decode([234, 66]).get()
        #expect(programming.readerProgramming)
    }

    @Test("codewords no rule allows fail the whole symbol")
    func strict() throws {
        #expect(throws: DataMatrixStream.Failure.self) { try DataMatrixStream.decode([66, 0]).get() }
        #expect(throws: DataMatrixStream.Failure.self) { try DataMatrixStream.decode([66, 250]).get() }
        // A macro or structured append past the first position.
        #expect(throws: DataMatrixStream.Failure.self) { try DataMatrixStream.decode([66, 236]).get() }
        #expect(throws: DataMatrixStream.Failure.self) { try DataMatrixStream.decode([66, 233, 0x1E, 7, 9]).get() }
        // Upper Shift followed by anything but an ASCII character (fuzz-symbols found that a
        // codeword over 128 there overflowed the byte it made and stopped the process).
        for next: UInt8 in [0, 129, 130, 229, 235, 254, 255] {
            #expect(throws: DataMatrixStream.Failure.codeword(2)) { try DataMatrixStream.decode([66, 235, next, 66]).get() }
        }
        #expect(try DataMatrixStream.decode([66, 235, 128]).get().bytes == [65, 255])
        // A Base 256 field longer than the data.
        let length: UInt8 = 53  // 9, randomised at position 2: 9 + (149 · 2 mod 255) + 1
        #expect(throws: DataMatrixStream.Failure.self) { try DataMatrixStream.decode([231, length, 1]).get() }
    }

    @Test("the Reed–Solomon check accepts a codeword and refuses a changed one")
    func reedSolomonCheck() {
        // The 10×10 symbol of "123456": data 142, 164, 186; error words from ISO/IEC 16022 Annex O.
        let codewords: [UInt8] = [142, 164, 186, 114, 25, 5, 88, 102]
        #expect(DataMatrixCheck.isValid(codewords, dataWords: 3, errorWordsPerBlock: 5, dataSizes: [3]))
        var changed = codewords
        changed[1] ^= 1
        #expect(!DataMatrixCheck.isValid(changed, dataWords: 3, errorWordsPerBlock: 5, dataSizes: [3]))
    }
}
