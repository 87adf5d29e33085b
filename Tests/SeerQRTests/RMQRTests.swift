import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// Rectangular Micro QR Code (ISO/IEC 23941): the size table and module placement, every size's
/// grid decoded, and the symbols of `TestImages/rmqr` (written by zxing-cpp's encoder,
/// `TestImages/rmqr.py`) read through the code reader.
@Suite("rMQR")
struct RMQRTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/rmqr")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }
    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }
    static func rmqr(_ image: GrayImage) -> [Symbol] { reader.read(image).filter { $0.symbology == .rmqr } }

    /// Every size at both levels, as `TestImages/rmqr.py` names them, and each filled with digits.
    static let sizeImages: [String] = RMQR.sizes.flatMap { s in
        ["M", "H"].flatMap { ["r\(s.height)x\(s.width)-\($0)", "full-r\(s.height)x\(s.width)-\($0)"] }
    }

    @Test("32 sizes; each one's data modules hold its codewords and fewer than 8 remainder bits")
    func placement() {
        #expect(RMQR.sizes.count == 32)
        #expect(Set(RMQR.sizes.map { "\($0)" }).count == 32)
        for (index, s) in RMQR.sizes.enumerated() {
            let total = s.totalCodewords(.medium)
            #expect(s.totalCodewords(.high) == total, "\(s)")
            let placed = RMQR.placements[index]
            #expect(Set(placed).count == placed.count, "\(s): a module placed twice")
            #expect(placed.count - 8 * total >= 0 && placed.count - 8 * total < 8, "\(s): \(placed.count) modules for \(total) codewords")
        }
    }

    @Test("the format information: each of the 64 words decodes to its size and level from either copy, within 3 bits")
    func format() throws {
        for value in 0..<64 {
            let word = RMQR.formatWords[value]
            for (mask, sub) in [(RMQR.finderSideMask, false), (RMQR.subFinderSideMask, true)] {
                let f = try #require(RMQR.decodeFormat(word ^ mask ^ 0b100_0000_0100_0000_01, subFinder: sub))
                #expect(f.size == RMQR.sizes[value & 31] && f.level == (value >= 32 ? .high : .medium) && f.distance == 3)
            }
        }
        // Four bits off is refused rather than guessed.
        let far = RMQR.formatWords[5] ^ RMQR.finderSideMask ^ 0b1111
        #expect(RMQR.decodeFormat(far) == nil)
    }

    /// The modules of a clean fixture drawn 3 pixels a module inside a quiet zone of 3.
    static func grid(_ name: String) throws -> (dark: [Bool], width: Int, height: Int) {
        let image = try image(name)
        let width = image.width / 3 - 6, height = image.height / 3 - 6
        var dark: [Bool] = []
        for y in 0..<height {
            for x in 0..<width { dark.append(image.pixels[(3 * (y + 3) + 1) * image.width + 3 * (x + 3) + 1] < 128) }
        }
        return (dark, width, height)
    }

    @Test("every size at both levels, with a short text and filled, decodes from its modules to exactly its text", arguments: sizeImages)
    func decodesEverySize(_ name: String) throws {
        let g = try Self.grid(name)
        let decoded = try #require(RMQR.decode(g.dark, width: g.width, height: g.height), "\(name)")
        #expect(decoded.stream.text()?.text == (try Self.expected(name)), "\(name)")
        #expect(decoded.level == (name.hasSuffix("-H") ? .high : .medium))
        #expect(decoded.errorsCorrected == 0)
    }

    @Test("codewords repaired within each block's capacity, refused past it")
    func correction() throws {
        let g = try Self.grid("r13x77-H")  // two blocks of 28 check codewords: 14 errors each
        let index = try #require(RMQR.sizes.firstIndex { $0.width == 77 && $0.height == 13 })
        let order = RMQR.placements[index]
        // Codeword k's first module; codewords alternate between the two blocks.
        func damaged(_ codewords: Int) -> [Bool] {
            var dark = g.dark
            for k in 0..<codewords { dark[order[8 * k]].toggle() }
            return dark
        }
        let text = try Self.expected("r13x77-H")
        let repaired = try #require(RMQR.decode(damaged(28), width: 77, height: 13))
        #expect(repaired.stream.text()?.text == text)
        #expect(repaired.errorsCorrected == 28)
        #expect(RMQR.decode(damaged(30), width: 77, height: 13) == nil)
    }

    @Test(
        "symbols in pictures read as exactly their text",
        arguments: ["r7x43-M", "r7x139-H", "r11x27-M", "r17x139-M", "long-numeric-17x139-H", "long-byte-15x139-M",
                    "turned-90", "turned-7", "mirrored", "inverted", "inverted-tight", "perspective", "damaged",
                    "one-pixel-9x59", "one-pixel-13x43"])
    func readsExactly(_ name: String) throws {
        let symbols = Self.rmqr(try Self.image(name))
        #expect(symbols.map(\.text) == [try Self.expected(name)], "\(name)")
    }

    @Test("the outline lies on the symbol")
    func outline() throws {
        let symbols = Self.rmqr(try Self.image("long-byte-15x139-M"))
        let box = try #require(symbols.first?.box)
        // 139 × 15 modules of 4 pixels inside a quiet zone of 3 modules.
        #expect(abs(box.x - 12) < 3 && abs(box.y - 12) < 3)
        #expect(abs(box.width - 556) < 5 && abs(box.height - 60) < 4)
    }

    @Test("damage beyond correction reads as nothing")
    func beyond() throws {
        #expect(Self.rmqr(try Self.image("beyond")).isEmpty)
    }

    @Test("a QR Code is read as a QR Code, never as an rMQR")
    func qrIsNotRMQR() throws {
        let symbols = Self.reader.read(try Self.image("qr-code"))
        #expect(symbols.map(\.symbology) == [.qr])
        #expect(symbols.first?.text == (try Self.expected("qr-code")))
        for photo in Fixtures.zxingPhotos().prefix(12) {
            let read = Self.reader.read(try Fixtures.gray(photo.path))
            #expect(!read.contains { $0.symbology == .rmqr }, "\(photo.path)")
        }
    }
}
