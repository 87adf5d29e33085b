import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// Aztec Code: Reed–Solomon over GF(2^m), the character modes, and whole symbols read from images.
@Suite struct AztecTests {
    static let images = Fixtures.root.appendingPathComponent("TestImages/codes-2d")

    /// A fixed sequence of pseudo-random numbers (so a failure repeats).
    struct Sequence {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static let fields: [(GaloisField, Int, Int)] = [
        (.gf16, 2, 5), (.gf64, 20, 12), (.gf256, 40, 16), (.gf1024, 100, 30), (.gf4096, 200, 40),
    ]

    @Test("every field's multiplication group is cyclic of order 2^m − 1")
    func fieldsArePrimitive() {
        for (field, _, _) in Self.fields {
            var seen = Set<Int>()
            for i in 0..<(field.size - 1) { seen.insert(field.power(i)) }
            #expect(seen.count == field.size - 1, "GF(2^\(field.bits))")
            #expect(field.power(field.size - 1) == 1)
        }
    }

    @Test("codewords with up to ⌊k/2⌋ errors are corrected exactly")
    func correctsWithinLimit() {
        var random = Sequence(state: 7)
        for (field, dataCount, checks) in Self.fields {
            for trial in 0..<20 {
                let data = (0..<dataCount).map { _ in random.next(field.size) }
                let word = data + FieldReedSolomon.encode(data, checkCount: checks, field: field)
                #expect(FieldReedSolomon.syndromes(word, checkCount: checks, field: field).allSatisfy { $0 == 0 })
                let errors = trial % (checks / 2 + 1)
                var received = word
                var positions = Set<Int>()
                while positions.count < errors { positions.insert(random.next(word.count)) }
                for p in positions { received[p] ^= 1 + random.next(field.size - 1) }
                let corrected = FieldReedSolomon.correct(&received, checkCount: checks, field: field)
                #expect(corrected == errors, "GF(2^\(field.bits)), \(errors) errors")
                #expect(received == word, "GF(2^\(field.bits)), \(errors) errors")
            }
        }
    }

    @Test("more errors than the code corrects are refused, never turned into a word far from the one received")
    func refusesBeyondLimit() {
        var random = Sequence(state: 11)
        for (field, dataCount, checks) in Self.fields {
            var refused = 0
            let trials = 40
            for trial in 0..<trials {
                let data = (0..<dataCount).map { _ in random.next(field.size) }
                let word = data + FieldReedSolomon.encode(data, checkCount: checks, field: field)
                let errors = checks / 2 + 1 + trial % 3
                var received = word
                var positions = Set<Int>()
                while positions.count < errors { positions.insert(random.next(word.count)) }
                for p in positions { received[p] ^= 1 + random.next(field.size - 1) }
                let before = received
                if let n = FieldReedSolomon.correct(&received, checkCount: checks, field: field) {
                    // Another codeword within the limit of what was received: a valid correction.
                    #expect(n <= checks / 2)
                    #expect(zip(before, received).filter { $0 != $1 }.count == n)
                    #expect(FieldReedSolomon.syndromes(received, checkCount: checks, field: field).allSatisfy { $0 == 0 })
                    #expect(received != word)
                } else {
                    refused += 1
                }
            }
            // Large fields leave almost no room for another codeword near a random word.
            if field.bits >= 8 { #expect(refused == trials, "GF(2^\(field.bits)): \(refused) of \(trials) refused") }
            else { #expect(refused * 2 >= trials, "GF(2^\(field.bits)): \(refused) of \(trials) refused") }
        }
    }

    /// Bits of codes of the given widths.
    static func bits(_ codes: [(Int, Int)]) -> [Bool] {
        codes.flatMap { value, width in (0..<width).map { (value >> (width - 1 - $0)) & 1 == 1 } }
    }

    @Test("the character modes: latches, shifts, punctuation pairs, digits, binary shift, FNC1 and ECI")
    func characterModes() throws {
        // FLG(0) first (GS1), "A", P/S ". ", L/L "b", D/L "12", U/L, B/S 2 bytes 0xFF 0x00, P/S FLG(0) (GS),
        // P/S FLG(2) ECI 26, "C"
        let stream = Self.bits([
            (0, 5), (0, 5), (0, 3), (2, 5), (0, 5), (3, 5), (28, 5), (3, 5), (30, 5), (3, 4), (4, 4), (14, 4),
            (31, 5), (2, 5), (0xFF, 8), (0x00, 8), (0, 5), (0, 5), (0, 3), (0, 5), (0, 5), (2, 3), (4, 4), (8, 4), (4, 5),
        ])
        let decoded = try #require(AztecText.decode(stream))
        #expect(decoded.gs1)
        #expect(decoded.bytes == Array("A. b12".utf8) + [0xFF, 0x00, 0x1D] + Array("C".utf8))
        #expect(decoded.eci == 26)
        #expect(decoded.sequence == nil)
        // FLG(7) is reserved: the stream is refused.
        #expect(AztecText.decode(Self.bits([(0, 5), (0, 5), (7, 3)])) == nil)
        // Mixed: M/L, "@", P/L, "CR LF", U/L, "Z"
        let mixed = try #require(AztecText.decode(Self.bits([(29, 5), (20, 5), (30, 5), (2, 5), (31, 5), (27, 5)])))
        #expect(mixed.bytes == [0x40, 0x0D, 0x0A, 0x5A])
    }

    @Test("the ones that pad the last codeword end the data, even where they spell a Binary Shift; a Binary Shift cut short is refused")
    func padding() throws {
        // L/L "ab", then eleven ones (a 12-bit codeword's padding): B/S, a length of 31, one bit.
        let padded = try #require(AztecText.decode(Self.bits([(28, 5), (2, 5), (3, 5), (0b111_1111_1111, 11)])))
        #expect(padded.bytes == Array("ab".utf8))
        // The same with fewer ones than a length: the code ends where it did before.
        #expect(try #require(AztecText.decode(Self.bits([(28, 5), (2, 5), (3, 5), (0b1111111, 7)]))).bytes == Array("ab".utf8))
        // B/S of three bytes with one byte and a zero after it: data cut short, not padding.
        #expect(AztecText.decode(Self.bits([(28, 5), (2, 5), (31, 5), (3, 5), (0x41, 8), (0, 1)])) == nil)
    }

    @Test("a mode message is corrected and a corrupted one beyond its limit refused")
    func modeMessage() throws {
        // Compact, 2 layers, 29 data codewords: 01 011100.
        let data = [0b0101, 0b1100]
        let word = data + FieldReedSolomon.encode(data, checkCount: 5, field: .gf16)
        var bits = Self.bits(word.map { ($0, 4) })
        let mode = try #require(AztecLayout.mode(bits, compact: true))
        #expect(mode == AztecMode(compact: true, layers: 2, dataCodewords: 29))
        bits[0].toggle()
        bits[13].toggle()
        #expect(AztecLayout.mode(bits, compact: true) == mode)
    }

    static var samples: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? [])
            .filter { $0.hasPrefix("aztec-") && $0.hasSuffix(".png") }.sorted()
    }

    @Test("Aztec symbols read exactly", arguments: samples)
    func readsSymbol(_ name: String) throws {
        let path = Self.images.appendingPathComponent(name).path
        let expected = try String(contentsOfFile: path.replacingOccurrences(of: ".png", with: ".txt"), encoding: .utf8)
        // Every symbology, as by default, with the test builds' budget (``CodeReader/forTests``).
        let found = CodeReader.forTests(symbologies: Set(Symbology.allCases)).read(try Fixtures.gray(path))
            .filter { $0.symbology == .aztec }
        #expect(found.count == 1, "\(name)")
        #expect(found.first?.text == expected, "\(name)")
    }

    /// A compact core (the bull's-eye, dark centre, and a light mode message ring) of `module`
    /// pixels a module centred in a picture of `side` pixels, with `dark(x, y)` deciding the
    /// modules outside the bull's-eye (module coordinates from the centre).
    static func core(module: Int, side: Int, dark: (Int, Int) -> Bool = { _, _ in false }) -> BinaryImage {
        let c = side / 2 - module / 2
        var bits = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let mx = Int((Double(x - c) / Double(module)).rounded(.down)), my = Int((Double(y - c) / Double(module)).rounded(.down))
                let ring = max(abs(mx), abs(my))
                let isDark = ring <= 4 ? ring % 2 == 0 : dark(mx, my)
                bits[y * side + x] = isDark ? 1 : 0
            }
        }
        return BinaryImage(width: side, height: side, bits: bits)
    }

    @Test("a ray's colour change counts only when the new colour holds: a speck inside a ring moves no edge")
    func raysIgnoreSpecks() throws {
        let module = 8, side = 160
        var bin = Self.core(module: module, side: side)
        let centre = Double(side / 2 - module / 2) + Double(module) / 2
        // One dark pixel inside the light ring at 3 modules, on the ray going right.
        var bits = bin.bits
        bits[Int(centre) * side + Int(centre + 3.0 * Double(module))] = 1
        bin = BinaryImage(width: side, height: side, bits: bits)
        let reader = AztecReader(bin: bin)
        let eye = BullsEye(x: centre, y: centre, ring: Double(module), hits: 1)
        let edges = reader.edgePoints(eye, edges: [4], rays: 64)[0]
        // Ray 0 runs right along the centre row: its fourth change is the edge at 3.5 modules.
        let right = try #require(edges[0])
        #expect(abs(right.x - (centre + 3.5 * Double(module))) <= 1, "\(right)")
        let square = try #require(AztecReader.fitSquare(edges, centre: Point(x: centre, y: centre)))
        for corner in square {
            #expect(abs(abs(corner.x - centre) - 3.5 * Double(module)) <= 1.5, "\(square)")
            #expect(abs(abs(corner.y - centre) - 3.5 * Double(module)) <= 1.5, "\(square)")
        }
    }

    @Test("rays leave from the centre module's middle when the bull's-eye was found off it")
    func centreModuleMiddle() throws {
        let module = 8, side = 160
        let reader = AztecReader(bin: Self.core(module: module, side: side))
        let centre = Double(side / 2 - module / 2) + Double(module) / 2
        // Found at the centre module's edge (as a row and a column through a turned module can put it).
        let eye = BullsEye(x: centre + 3.5, y: centre - 3.5, ring: Double(module), hits: 1)
        let middle = try #require(reader.centreModule(eye))
        #expect(abs(middle.x - centre) < 0.5 && abs(middle.y - centre) < 0.5, "\(middle)")
    }

    @Test("a core turned 45° and found a ring off its centre: the centre module is the patch light surrounds")
    func centreModuleTurned() throws {
        // Rings drawn turned 45°: rows and columns off the centre cross them in even runs too.
        let module = 6.0, side = 160
        let centre = Double(side) / 2
        var bits = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let dx = Double(x) + 0.5 - centre, dy = Double(y) + 0.5 - centre
                let u = (dx + dy) / 2.squareRoot() / module, v = (dx - dy) / 2.squareRoot() / module
                let ring = max(abs(u.rounded()), abs(v.rounded()))
                if ring <= 4, Int(ring) % 2 == 0 { bits[y * side + x] = 1 }
            }
        }
        let reader = AztecReader(bin: BinaryImage(width: side, height: side, bits: bits))
        // A row's runs across the turned rings are √2 modules long; found on the first dark ring,
        // a ring's width above the centre.
        let ring = module * 2.squareRoot()
        let eye = BullsEye(x: centre, y: centre - ring, ring: ring, hits: 1)
        let middle = try #require(reader.centreModule(eye))
        #expect(abs(middle.x - centre) < 1 && abs(middle.y - centre) < 1, "\(middle)")
    }

    @Test("a rune is taken only where no dark surrounds its core")
    func runeNeedsQuietZone() {
        // Light all round, or the picture's edge: quiet.
        #expect(AztecReader.quiet(outside: 5, in: { _, _ in false }))
        #expect(AztecReader.quiet(outside: 5, in: { _, _ in nil }))
        // A full-range core's dark ring at 6 modules: not a rune.
        #expect(!AztecReader.quiet(outside: 5, in: { x, y in max(abs(x), abs(y)) == 6 }))
        // Data modules around the core, about half dark: not a rune.
        #expect(!AztecReader.quiet(outside: 5, in: { x, y in (Int(x) + 2 * Int(y)) % 3 == 0 }))
    }

    @Test("a photo with no code reads no Aztec symbol")
    func noCode() throws {
        let path = Fixtures.root.appendingPathComponent("TestImages/codes/nocode/falsepositives-2-07.png").path
        let found = CodeReader(options: .init(symbologies: [.aztec])).read(try Fixtures.gray(path))
        #expect(found.isEmpty)
    }
}
