import Foundation
import SeerCodegen
import Testing

@testable import SeerQR

/// The decoder against the encoder: every version and level, every mode, damage within and beyond
/// what error correction allows.
@Suite("QR decoder")
struct QRDecoderTests {
    static func modules(_ code: QRCode) -> QRModules {
        QRModules(size: code.size, dark: code.modules)
    }

    static func decoded(_ code: QRCode) throws -> DecodedQR {
        switch QRDecoder.decode(modules(code)) {
        case .success(let d): return d
        case .failure(let f): throw f
        }
    }

    /// A deterministic generator, so failures repeat.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("Reed–Solomon corrects up to its limit, exactly", arguments: [(26, 7, 2), (44, 16, 8), (100, 30, 15), (255, 30, 15)])
    func reedSolomon(_ length: Int, _ ecc: Int, _ limit: Int) throws {
        var rng = SplitMix(state: UInt64(length * 31 + ecc))
        let generator = ReedSolomon.generator(degree: ecc)
        for errors in 0...limit {
            for _ in 0..<20 {
                let data = (0..<(length - ecc)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let block = data + ReedSolomon.remainder(data, generator: generator)
                var damaged = block
                var positions = Set<Int>()
                while positions.count < errors { positions.insert(Int.random(in: 0..<length, using: &rng)) }
                for p in positions { damaged[p] ^= UInt8.random(in: 1...255, using: &rng) }
                let fixed = ReedSolomon.correct(&damaged, eccCount: ecc, limit: limit)
                #expect(fixed == errors)
                #expect(damaged == block)
            }
        }
    }

    @Test("errors and erasures together: two check codewords an error, one an erasure", arguments: [(60, 16, 8), (130, 26, 13)])
    func erasures(_ length: Int, _ ecc: Int, _ limit: Int) {
        var rng = SplitMix(state: UInt64(length))
        let generator = ReedSolomon.generator(degree: ecc)
        for erased in stride(from: 0, through: 2 * limit, by: 3) {
            let errors = (2 * limit - erased) / 2
            for _ in 0..<10 {
                let data = (0..<(length - ecc)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let block = data + ReedSolomon.remainder(data, generator: generator)
                var positions = Array(0..<length)
                positions.shuffle(using: &rng)
                let erasures = Array(positions.prefix(erased)), wrong = positions.dropFirst(erased).prefix(errors)
                var damaged = block
                // Erased codewords: most damaged, some left right (an erasure only says "unsure").
                for (i, p) in erasures.enumerated() where i % 3 != 0 { damaged[p] ^= UInt8.random(in: 1...255, using: &rng) }
                for p in wrong { damaged[p] ^= UInt8.random(in: 1...255, using: &rng) }
                let result = ReedSolomon.correct(&damaged, eccCount: ecc, limit: limit, erasures: erasures)
                #expect(result?.errors == errors)
                #expect(damaged == block)
            }
        }
    }

    @Test("more errors than the limit are refused, never 'corrected' to other data")
    func reedSolomonBeyond() {
        var rng = SplitMix(state: 7)
        let ecc = 16, length = 60, limit = 8
        let generator = ReedSolomon.generator(degree: ecc)
        var refused = 0
        for _ in 0..<200 {
            let data = (0..<(length - ecc)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var damaged = data + ReedSolomon.remainder(data, generator: generator)
            var positions = Set<Int>()
            while positions.count < limit + 3 { positions.insert(Int.random(in: 0..<length, using: &rng)) }
            for p in positions { damaged[p] ^= UInt8.random(in: 1...255, using: &rng) }
            if ReedSolomon.correct(&damaged, eccCount: ecc, limit: limit) == nil { refused += 1 }
        }
        // A random word lands within 8 errors of another codeword with probability below 1e-6 here.
        #expect(refused == 200)
    }

    @Test("every version and level decodes to the bytes encoded", arguments: 1...40)
    func versions(_ version: Int) throws {
        var rng = SplitMix(state: UInt64(version))
        for level in QRErrorCorrection.allCases {
            let capacity = QRSpec.layout(version: version).dataCodewords(level) - 3
            let bytes = (0..<max(1, capacity)).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            let code = try QREncoder.encode(bytes: bytes, errorCorrection: level, mode: .byte, minVersion: version, maxVersion: version)
            let d = try Self.decoded(code)
            #expect(d.version == version && d.level == level && d.mask == code.mask)
            #expect(d.stream.bytes == bytes)
            #expect(d.errorsCorrected == 0)
        }
    }

    @Test("numeric and alphanumeric segments")
    func numericAlphanumeric() throws {
        for text in ["0", "12", "123", "1234567890123", "HELLO WORLD $%*+-./:", "A"] {
            let d = try Self.decoded(QREncoder.encode(text))
            #expect(d.stream.text()?.text == text)
        }
    }

    @Test("a Kanji segment reads as the characters encoded, not as half-width katakana")
    func kanji() throws {
        let text = "日本語の漢字テスト"
        let d = try Self.decoded(QREncoder.encode(segments: [.kanji(text)]))
        #expect(d.stream.segments.map(\.mode) == [.kanji])
        let t = try #require(d.stream.text())
        #expect(t.text == text)
        #expect(t.charset == "shift_jis")
    }

    @Test("Kanji between byte segments in UTF-8: each segment in its own character set")
    func mixedKanji() throws {
        let d = try Self.decoded(
            QREncoder.encode(segments: [.bytes(Array("Größe: ".utf8)), .kanji("大きい"), .numeric("42"), .bytes(Array(" – ok".utf8))]))
        #expect(d.stream.text()?.text == "Größe: 大きい42 – ok")
    }

    @Test("ECI designators pick the character set", arguments: [
        (26, Array("Ελληνικά €".utf8), "Ελληνικά €"),
        (3, [0x47, 0x72, 0xF6, 0xDF, 0x65], "Größe"),
        (20, [0x93, 0xFA, 0x96, 0x7B], "日本"),
        (22, [0xC0, 0xC1], "АБ"),
    ] as [(Int, [UInt8], String)])
    func eci(_ designator: Int, _ bytes: [UInt8], _ text: String) throws {
        let d = try Self.decoded(QREncoder.encode(segments: [.eci(designator), .bytes(bytes)]))
        #expect(d.stream.segments.first?.eci == designator)
        #expect(d.stream.text()?.text == text)
    }

    @Test("an ECI that is not a character set (binary, 899) gives no text")
    func eciBinary() throws {
        let d = try Self.decoded(QREncoder.encode(segments: [.eci(899), .bytes([1, 2, 3, 0xFF])]))
        #expect(d.stream.bytes == [1, 2, 3, 0xFF])
        #expect(d.stream.text() == nil)
    }

    @Test("structured append is reported as such, with this symbol's part of the text")
    func structuredAppend() throws {
        let d = try Self.decoded(QREncoder.encode(segments: [.structuredAppend(index: 1, count: 3, parity: 0x5A), .bytes(Array("part two".utf8))]))
        #expect(d.stream.structuredAppend == StructuredAppend(index: 1, count: 3, parity: 0x5A))
        #expect(d.stream.text()?.text == "part two")
    }

    @Test("GS1: FNC1 in first position, % stands for the group separator")
    func gs1() throws {
        let d = try Self.decoded(QREncoder.encode(segments: [.fnc1First, .alphanumeric("0104012345678901%10ABC%%1")]))
        #expect(d.stream.gs1)
        #expect(d.stream.text()?.text == "0104012345678901\u{1D}10ABC%1")
    }

    @Test("a long payload comes out whole, never cut short", arguments: [1000, 2000, 2900])
    func longPayload(_ length: Int) throws {
        var rng = SplitMix(state: UInt64(length))
        let text = String((0..<length).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789 ".randomElement(using: &rng)! })
        let code = try QREncoder.encode(text, errorCorrection: .low)
        let d = try Self.decoded(code)
        #expect(d.stream.text()?.text == text)
        // Truncate the stream's character count by damaging codewords beyond correction: no result.
        var modules = Self.modules(code)
        let layout = QRSpec.layout(version: code.version)
        var rng2 = SplitMix(state: 99)
        for _ in 0..<(layout.dataOrder.count / 3) {
            let i = Int(layout.dataOrder.randomElement(using: &rng2)!)
            modules.dark[i].toggle()
        }
        if case .success = QRDecoder.decode(modules) { Issue.record("a third of the modules flipped still decoded") }
    }

    @Test("damage within the correction capacity is corrected", arguments: QRErrorCorrection.allCases)
    func damage(_ level: QRErrorCorrection) throws {
        var rng = SplitMix(state: 5)
        let code = try QREncoder.encode("https://example.com/01/09506000134352/21/ABC123", errorCorrection: level, minVersion: 7, maxVersion: 7)
        let layout = QRSpec.layout(version: 7)
        let limit = QRSpec.correctionLimit(version: 7, level)
        let (lengths, _) = QRSpec.blocks(version: 7, level)
        // Damage whole codewords: `limit` per block, spread over blocks by the interleaving.
        var modules = Self.modules(code)
        let total = layout.totalCodewords
        var damaged = Set<Int>()
        // The first `limit` codewords of each block (data codewords are interleaved one per block).
        for b in lengths.indices {
            for k in 0..<limit where b + k * lengths.count < total { damaged.insert(b + k * lengths.count) }
        }
        for c in damaged {
            let i = Int(layout.dataOrder[c * 8 + Int.random(in: 0..<8, using: &rng)])
            modules.dark[i].toggle()
        }
        guard case .success(let d) = QRDecoder.decode(modules) else {
            Issue.record("level \(level.rawValue): \(damaged.count) damaged codewords did not decode")
            return
        }
        #expect(d.stream.text()?.text == "https://example.com/01/09506000134352/21/ABC123")
        #expect(d.errorsCorrected == damaged.count)
    }

    @Test("three wrong format bits in both copies still read; four do not")
    func formatDamage() throws {
        let code = try QREncoder.encode("FORMAT", errorCorrection: .medium, minVersion: 2, maxVersion: 2)
        let positions = QRSpec.formatPositions(size: code.size)
        var three = Self.modules(code)
        for i in [0, 5, 11] {
            three.dark[positions.first[i].1 * code.size + positions.first[i].0].toggle()
            three.dark[positions.second[i].1 * code.size + positions.second[i].0].toggle()
        }
        #expect(try QRDecoder.decode(three).get().stream.text()?.text == "FORMAT")
        var four = three
        four.dark[positions.first[2].1 * code.size + positions.first[2].0].toggle()
        four.dark[positions.second[2].1 * code.size + positions.second[2].0].toggle()
        if case .success(let d) = QRDecoder.decode(four) {
            // Four errors may land nearer another format; if it decodes it must still be right.
            #expect(d.stream.text()?.text == "FORMAT")
        }
    }

    @Test("a mirrored symbol reads, and says so")
    func mirrored() throws {
        let code = try QREncoder.encode("mirror image", errorCorrection: .quartile)
        let d = try #require(try? QRDecoder.decode(Self.modules(code).transposed).get())
        #expect(d.mirrored)
        #expect(d.stream.text()?.text == "mirror image")
    }

    @Test("a grid sampled at the wrong size names the right version")
    func versionMismatch() throws {
        let code = try QREncoder.encode(String(repeating: "x", count: 150), errorCorrection: .low, minVersion: 10, maxVersion: 10)
        #expect(code.version == 10)
        // The same modules with the version information of version 10, read as a version-9 grid:
        // cut the grid to 53 × 53 keeping the top-right and bottom-left version blocks where version 9 has them.
        let size = code.size, small = size - 4
        var dark = [Bool](repeating: false, count: small * small)
        for y in 0..<small { for x in 0..<small { dark[y * small + x] = code[x < small - 11 ? x : x + 4, y < small - 11 ? y : y + 4] } }
        if case .failure(let f) = QRDecoder.decode(QRModules(size: small, dark: dark)) {
            #expect(f == .version(10))
        } else {
            Issue.record("a grid of the wrong size decoded")
        }
    }

    @Test("random module grids never decode", arguments: [21, 25, 29, 33, 45, 57])
    func noise(_ size: Int) {
        var rng = SplitMix(state: UInt64(size))
        var decodedAny = 0
        for _ in 0..<1000 {
            let dark = (0..<(size * size)).map { _ in Bool.random(using: &rng) }
            if case .success = QRDecoder.decode(QRModules(size: size, dark: dark)) { decodedAny += 1 }
            // With a certainty for every module, the least sure codewords are tried as erasures too.
            let certainty = (0..<(size * size)).map { _ in Float.random(in: 0...80, using: &rng) }
            if case .success = QRDecoder.decode(QRModules(size: size, dark: dark, certainty: certainty)) { decodedAny += 1 }
        }
        #expect(decodedAny == 0)
    }
}
