import Testing

@testable import SeerCodegen

/// The Data Matrix encoder against ISO/IEC 16022's worked example and the symbol's fixed parts.
@Suite struct DataMatrixEncoderTests {
    @Test func isoExampleCodewords() throws {
        // "123456": three digit pairs, then five check codewords (the standard's 10×10 example).
        let data = DataMatrixEncoder.codewords(Array("123456".utf8), gs1: false)
        #expect(data == [142, 164, 186])
        let size = try #require(DataMatrixEncoder.sizes.first)
        #expect(DataMatrixEncoder.interleave(data, size) == [142, 164, 186, 114, 25, 5, 88, 102])
    }

    @Test func asciiEncodation() {
        #expect(DataMatrixEncoder.codewords(Array("A1".utf8), gs1: false) == [66, 50])
        #expect(DataMatrixEncoder.codewords([0xE9], gs1: false) == [235, 0xE9 - 127])
        // GS1: FNC1 first, and for each GS.
        #expect(DataMatrixEncoder.codewords(Array("10AB\u{1D}21".utf8), gs1: true) == [232, 140, 66, 67, 232, 151])
        // Padding: 129, then the scrambled pads.
        #expect(DataMatrixEncoder.pad([66], to: 3) == [66, 129, 70])
    }

    @Test(arguments: [1, 30, 150, 400])
    func finderAndClockTracks(_ length: Int) throws {
        let code = try DataMatrixEncoder.encode(String(repeating: "Z", count: length))
        let size = try #require(DataMatrixEncoder.sizes.first { $0.side == code.width })
        let cell = size.region + 2
        for y in 0..<code.height {
            for x in 0..<code.width {
                let iy = y % cell, ix = x % cell
                if ix == 0 || iy == cell - 1 { #expect(code[x, y], "solid edge at \(x),\(y)") }
                else if iy == 0 { #expect(code[x, y] == (ix % 2 == 0), "clock at \(x),\(y)") }
                else if ix == cell - 1 { #expect(code[x, y] == (iy % 2 == 1), "clock at \(x),\(y)") }
            }
        }
    }

    @Test func tooLongIsAnError() {
        #expect(throws: QREncodingError.self) { try DataMatrixEncoder.encode(String(repeating: "x", count: 2000)) }
    }
}
