import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// MicroPDF417: the standard's tables, the Reed–Solomon check with each variant's codeword counts,
/// and symbols written by another encoder (`TestImages/micropdf417`, made by its `generate.py`).
@Suite("MicroPDF417")
struct MicroPDF417Tests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/micropdf417")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage {
        try ImageDecoder.decode(contentsOf: directory.appendingPathComponent(name + ".png").path).gray
    }

    static func expected(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: directory.appendingPathComponent(name + ".txt")), as: UTF8.self)
    }

    @Test("the tables: 34 variants of 1–4 columns, 52 RAPs of 10 modules on each side and in the centre")
    func tables() {
        #expect(MicroPDF417.variants.count == 34)
        #expect(MicroPDF417.variants.map(\.columns).reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 } == [1: 6, 2: 7, 3: 10, 4: 11])
        for v in MicroPDF417.variants {
            // Fewer check codewords than codewords, a centre RAP only with three or four columns.
            #expect(v.checkCount < v.rows * v.columns)
            #expect((v.centre > 0) == (v.columns >= 3))
            #expect((1...52).contains(v.left) && (1...52).contains(v.right) && (0...2).contains(v.cluster))
        }
        // Within a width, each variant starts its rows at other RAPs: a row's RAPs name the variant.
        for columns in 1...4 {
            let starts = MicroPDF417.variants.filter { $0.columns == columns }.map { [$0.left, $0.centre, $0.right, $0.cluster] }
            #expect(Set(starts).count == starts.count)
        }
        #expect(MicroPDF417.raps.count == 104)
        for list in [MicroPDF417.sideRAPs, MicroPDF417.centreRAPs] {
            #expect(list.count == 52)
            for s in list { #expect(s.utf8.map { Int($0) - 48 }.reduce(0, +) == 10) }
        }
        // Rows: 38, 55, 82 and 99 modules wide.
        #expect((1...4).map { MicroPDF417.width(columns: $0) } == [38, 55, 82, 99])
    }

    @Test("a variant's codewords with its check codewords decode; too many errors do not")
    func reedSolomon() throws {
        let v = try #require(MicroPDF417.variants.first { $0.columns == 2 && $0.rows == 8 })
        // "PDF417" in text compaction, padded with 900.
        let text = [15 * 30 + 3, 5 * 30 + 28, 4 * 30 + 1, 7 * 30 + 29]
        let data = text + [Int](repeating: 900, count: v.rows * v.columns - v.checkCount - text.count)
        let symbol = data + PDF417ReedSolomon.checkCodewords(data, k: v.checkCount)
        #expect(MicroPDF417.decodeSymbol(symbol, variant: v, erasures: [])?.bytes == Array("PDF417".utf8))
        // Two errors and two erasures: e + 2t = 6 ≤ k − 2.
        var damaged = symbol
        for i in [0, 5, 9, 14] { damaged[i] = (damaged[i] + 17) % 929 }
        #expect(MicroPDF417.decodeSymbol(damaged, variant: v, erasures: [9, 14])?.bytes == Array("PDF417".utf8))
        // Five errors are beyond the eight check codewords.
        for i in [2, 7, 11] { damaged[i] = (damaged[i] + 17) % 929 }
        #expect(MicroPDF417.decodeSymbol(damaged, variant: v, erasures: []) == nil)
        // Codewords of another variant's length are refused outright.
        #expect(MicroPDF417.decodeSymbol(Array(symbol.dropLast()), variant: v, erasures: []) == nil)
    }

    @Test(
        "symbols of each width, one upside down, ones turned 5° and 12° and one of a pixel a module with rows a pixel tall, read as MicroPDF417 with the exact text",
        arguments: [
            "mpdf-1col", "mpdf-2col", "mpdf-3col", "mpdf-4col", "mpdf-4col-turned", "mpdf-3col-tilted", "mpdf-3col-turned-12", "mpdf-3col-rows-1",
        ])
    func reads(_ name: String) throws {
        let symbols = Self.reader.read(try Self.image(name))
        #expect(symbols.map(\.symbology) == [.micropdf417], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == (try Self.expected(name)))
    }

    @Test("blurred symbols, whose RAPs match only by the sums of a bar and its space, read with the exact text",
        arguments: ["micropdf417-blurred-6", "micropdf417-blurred-14"])
    func readsBlurred(_ name: String) throws {
        let directory = Fixtures.root.appendingPathComponent("TestImages/codes-2d")
        let symbols = Self.reader.read(try Fixtures.gray(name, in: directory))
        #expect(symbols.map(\.symbology) == [.micropdf417], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == (try Fixtures.expected(name, in: directory)))
    }

    @Test("a side RAP matches by its widths, or with its bars widened by the sums of neighbouring runs; other runs do not")
    func sideRAPMatches() {
        func match(_ runs: [Int32]) -> MicroPDF417.SideRAPMatch? {
            runs.withUnsafeBufferPointer { MicroPDF417.sideRAP($0, from: 0, reversed: false) }
        }
        // The side RAP 3 1 2 2 1 1 at 3 px a module; then each bar 2 px wider and each space 2 px
        // narrower, as a threshold leaves a blurred one (its one-module spaces are 1 px).
        #expect(match([9, 3, 6, 6, 3, 3]) == .widths)
        #expect(match([11, 1, 8, 4, 5, 1]) == .sums)
        #expect(match([3, 3, 3, 3, 3, 15]) == nil)
    }

    @Test("three codewords inverted: corrected, the exact text")
    func damaged() throws {
        let symbols = Self.reader.read(try Self.image("mpdf-2col-damaged"))
        #expect(symbols.map(\.symbology) == [.micropdf417])
        #expect(symbols.first?.text == (try Self.expected("mpdf-2col-damaged")))
    }

    @Test("six of seventeen rows' codewords inverted (seven check codewords): no reading at all")
    func destroyed() throws {
        // The same symbol undamaged reads.
        #expect(Self.reader.read(try Self.image("mpdf-1col")).first?.text == (try Self.expected("mpdf-1col")))
        #expect(Self.reader.read(try Self.image("mpdf-1col-destroyed")).isEmpty)
    }

    @Test("asked for PDF417 alone, a MicroPDF417 symbol is not read; asked for MicroPDF417 alone, it is")
    func symbologyOption() throws {
        let image = try Self.image("mpdf-3col")
        #expect(CodeReader.forTests(symbologies: [.pdf417]).read(image).isEmpty)
        #expect(CodeReader.forTests(symbologies: [.micropdf417]).read(image).map(\.symbology) == [.micropdf417])
    }
}
