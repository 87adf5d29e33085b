import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// zxing-cpp's samples of the symbologies beyond QR and the common 1-D codes, copied into
/// `TestImages/codes-2d` (Apache-2.0, see its NOTICE): each `SET-N.png` is read with the default
/// options (every symbology) and must give the text in `SET-N.txt`, named by the symbology the set
/// is of.
@Suite("Other symbologies (zxing-cpp samples)")
struct OtherSymbologyTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/codes-2d")

    /// The images, each with its expected text and the symbology its set holds.
    static let samples: [(name: String, expected: String, symbology: Symbology)] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasSuffix(".png"),
                let data = try? Data(contentsOf: directory.appendingPathComponent(String(name.dropLast(4)) + ".txt")),
                let symbology = symbology(ofSet: name)
            else { return nil }
            return (name, Fixtures.droppingNewline(String(decoding: data, as: UTF8.self)), symbology)
        }
    }()

    /// The symbology of a zxing-cpp sample set, from its name (`codabar-1-03.png` → codabar).
    static func symbology(ofSet name: String) -> Symbology? {
        let set = name.split(separator: "-").first.map(String.init) ?? ""
        return Symbology(rawValue: set)
    }

    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    @Test("the set's symbology, with the exact text", arguments: samples.map(\.name))
    func reads(_ name: String) throws {
        let sample = try #require(Self.samples.first { $0.name == name })
        let image = try ImageDecoder.decode(contentsOf: Self.directory.appendingPathComponent(name).path).gray
        let symbols = Self.reader.read(image)
        #expect(symbols.map(\.symbology) == [sample.symbology], "\(name): \(symbols.map { "\($0.symbology) \($0.text ?? "-")" })")
        #expect(symbols.first?.text == sample.expected)
    }

    @Test("a table of passes given by the caller runs alone: no reader of another symbology after it")
    func explicitPassesRunAlone() throws {
        var options = Self.reader.options
        options.passes = [(.locator(.reduced, .local), .always)]
        let explicit = CodeReader(options: options)
        for name in ["pdf417-1-01.png", "aztec-1-7.png", "dm-abcdefg.png"] {
            let image = try ImageDecoder.decode(contentsOf: Self.directory.appendingPathComponent(name).path).gray
            #expect(!Self.reader.read(image).isEmpty, "\(name) is read with the preset")
            #expect(explicit.read(image).isEmpty, "\(name) is read by a QR locator pass alone")
        }
    }

    @Test("every symbology has samples here")
    func coverage() {
        #expect(Set(Self.samples.map(\.symbology)).isSuperset(of: [.codabar, .microqr, .aztec, .pdf417, .maxicode]))
    }
}
