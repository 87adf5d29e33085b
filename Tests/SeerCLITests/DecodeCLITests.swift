import ArgumentParser
import Foundation
import SeerImage
import Testing

@testable import seer

/// `seer decode`: the plain-argument path agrees with the general parser, and streamed PGM output
/// is the image the library decodes.
@Suite struct DecodeCLITests {
    static let accepted: [[String]] = [
        ["photo.jpg"],
        ["--scale", "4", "photo.jpg"],
        ["--scale=1/8", "-o", "out.pgm", "photo.jpg"],
        ["photo.jpg", "--output", "-", "--rgb"],
        ["--no-orientation", "--fast-dct", "--output=x.png", "-"],
    ]

    @Test(arguments: accepted)
    func plainArgumentsParseAsTheParserDoes(arguments: [String]) throws {
        let plain = try #require(Decode.fromPlainArguments(arguments[...]))
        let parsed = try Decode.parse(arguments)
        #expect(plain.scale == parsed.scale)
        #expect(plain.rgb == parsed.rgb)
        #expect(plain.noOrientation == parsed.noOrientation)
        #expect(plain.fastDCT == parsed.fastDCT)
        #expect(plain.output == parsed.output)
        #expect(plain.file == parsed.file)
    }

    @Test(arguments: [
        [], ["--help"], ["-h"], ["--scale", "3", "a.jpg"], ["a.jpg", "b.jpg"], ["--rgb", "--rgb", "a.jpg"],
        ["--bogus", "a.jpg"], ["--scale"], ["-o", "--rgb", "a.jpg"], ["--rgb=yes", "a.jpg"], ["--", "a.jpg"],
    ])
    func anythingElseGoesToTheParser(arguments: [String]) {
        #expect(Decode.fromPlainArguments(arguments[...]) == nil)
    }

    static let jpegs = ["baseline-420.jpg", "progressive.jpg", "restart.jpg", "grayscale.jpg", "cmyk-adobe.jpg"]

    /// Streamed (JPEG, no turning) or decoded whole, the PGM holds the pixels the library decodes.
    @Test(arguments: jpegs, [1, 4])
    func pgmHoldsTheDecodedPixels(file: String, scale: Int) throws {
        let path = CLI.testImages + "/decode/" + file
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("seer-decode-\(UUID().uuidString).pgm").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLI.run(["decode", "--scale", String(scale), "-o", out, path])
        #expect(run.status == 0, "\(run.err)")
        let expected = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(scale: scale)).gray
        let header = Array("P5\n\(expected.width) \(expected.height)\n255\n".utf8)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(Array(written.prefix(header.count)) == header)
        #expect(Array(written.dropFirst(header.count)) == expected.pixels)
    }

    /// A JPEG that ends early fails part-way through streaming: the output file is left empty.
    @Test func truncatedJPEGLeavesNoPartialImage() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("seer-decode-\(UUID().uuidString).pgm").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLI.run(["decode", "-o", out, CLI.testImages + "/malformed/truncated.jpg"])
        #expect(run.status == 1)
        #expect(run.err.contains("truncated"))
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        #expect(size == 0)
    }

    @Test func rowBandsCoverTheImageOnce() throws {
        let path = CLI.testImages + "/decode/restart.jpg"
        var rows = 0
        var pixels: [UInt8] = []
        let info = try #require(try ImageDecoder.decodeRows(contentsOf: path) { band in
            #expect(band.firstRow == rows)
            rows += band.rows
            pixels += band.pixels
        })
        let whole = try ImageDecoder.decode(contentsOf: path).gray
        #expect(rows == whole.height && info.width == whole.width)
        #expect(pixels == whole.pixels)
        // A PNG is not streamed: nil, and nothing handed over.
        #expect(try ImageDecoder.decodeRows(contentsOf: CLI.testImages + "/decode/gray8.png") { _ in Issue.record("band from a PNG") } == nil)
    }
}
