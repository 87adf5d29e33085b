import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// GS1 DataBar Expanded and Expanded Stacked (ISO/IEC 24724): the character groups and weights,
/// pairs found along lines and joined by their finders, the bit stream's encodation methods, and the
/// symbols of `TestImages/databarexp` (written by zxing-cpp's encoder, `TestImages/databarexp.py`)
/// read through the code reader.
@Suite("DataBar Expanded")
struct DataBarExpandedTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/databarexp")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }
    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    static let readable = [
        "exp-3103", "exp-3202", "exp-392x", "exp-393x", "exp-weight-date", "exp-alpha", "exp-alpha-x1", "exp-space",
        "exp-iso646", "exp-gtin-fields", "exp-turned", "stk-deusto", "stk-punctuation", "stk-punctuation-x1",
        "stk-date-lot", "stk-upside-down", "stk-x3",
    ]

    @Test("each group's odd sets (with a narrow element) cover its odd count, its even sets number exactly its own")
    func groupSizes() {
        let groups = DataBarExpanded.groups
        for (k, g) in groups.enumerated() {
            let next = k + 1 < groups.count ? groups[k + 1].first : 4192
            let oddModules = 12 - 2 * k
            let odd = DataBarLimited.sets(4, oddModules, widest: g.oddWidest, needsNarrow: true)
            let even = DataBarLimited.sets(4, 17 - oddModules, widest: 9 - g.oddWidest, needsNarrow: false)
            #expect(even == g.evenSets, "group \(k)")
            #expect(odd >= g.oddSets, "group \(k)")
            #expect(g.oddSets * g.evenSets == next - g.first, "group \(k)")
        }
    }

    @Test("values run through every group without gaps, and widths that are no character give none")
    func values() {
        var seen = Set<Int>()
        // Every 8 widths of 1…8 summing to 17 (odd elements first of each pair).
        func walk(_ w: [Int], _ left: Int) {
            if w.count == 8 {
                if left == 0, let v = DataBarExpanded.characterValue(w) { #expect(seen.insert(v).inserted, "\(w)") }
                return
            }
            // Room for a width of 1 at least in each place still open.
            guard left >= 8 - w.count else { return }
            for x in 1...min(8, left - (7 - w.count)) { walk(w + [x], left - x) }
        }
        walk([], 17)
        #expect(seen == Set(0..<4192))
        #expect(DataBarExpanded.characterValue([1, 1, 1, 1, 1, 1, 1, 1]) == nil)
        #expect(DataBarExpanded.characterValue([2, 2, 2, 2, 2, 2, 2, 2]) == nil)
    }

    @Test("weights are 3 to the power 8 × row + element, modulo 211")
    func weights() {
        #expect(DataBarExpanded.weights[0] == [1, 3, 9, 27, 81, 32, 96, 77])
        #expect(DataBarExpanded.weights[1][0] == 20)
        #expect(DataBarExpanded.weights[22][7] == DataBarExpanded.weights[22][6] * 3 % 211)
        // Rows of the check character (none), and the first pair's and the last finder's right characters.
        #expect(DataBarExpanded.weightRow(finder: 0, mirrored: false, left: true) == nil)
        #expect(DataBarExpanded.weightRow(finder: 0, mirrored: false, left: false) == 0)
        #expect(DataBarExpanded.weightRow(finder: 5, mirrored: true, left: false) == 22)
    }

    /// The module widths of a fixture's middle row (`scale` pixels a module), quiet zones included.
    static func fixtureWidths(_ name: String, scale: Int) throws -> [Int] {
        let image = try image(name)
        let y = image.height / 2
        var widths: [Int] = [], dark = false, n = 0
        for x in stride(from: scale / 2, to: image.width, by: scale) {
            let d = image.pixels[y * image.width + x] < 128
            if d == dark { n += 1 } else { widths.append(n); dark = d; n = 1 }
        }
        widths.append(n)
        return widths
    }

    /// The elements of a line through an ideal symbol: `widths` in modules of `module` pixels, from
    /// a space, with `ink` pixels of spread (bars wider, spaces narrower by as much).
    static func line(_ widths: [Int], module: Double, ink: Double = 0) -> [LinearCheck.Element] {
        var x = 0.0, out: [LinearCheck.Element] = []
        for (k, w) in widths.enumerated() {
            let bar = k % 2 == 1
            let px = Double(w) * module + (k == 0 || k == widths.count - 1 ? 0 : bar ? ink : -ink)
            out.append(LinearCheck.Element(isBar: bar, start: x, width: px))
            x += px
        }
        return out
    }

    /// The finder decision, made by comparing every shape in full: the best of the twelve, when it
    /// misses by under 0.45 and the next by more than 0.3 more.
    static func finderInFull(_ p: [Double], module: Double) -> (finder: Int, asDrawn: Bool)? {
        var misses: [(finder: Int, asDrawn: Bool, miss: Double)] = []
        for (f, pattern) in DataBarExpanded.finders.enumerated() {
            for asDrawn in [true, false] {
                let q = asDrawn ? pattern : pattern.reversed()
                var miss = 0.0
                for k in 0..<4 { miss = max(miss, abs((p[k] + p[k + 1]) / module - Double(q[k] + q[k + 1]))) }
                for k in 0..<5 { miss = max(miss, 0.6 * abs(p[k] / module - Double(q[k]))) }
                misses.append((f, asDrawn, miss))
            }
        }
        // Stable: of equal misses, the first tried.
        let sorted = misses.enumerated().sorted { ($0.element.miss, $0.offset) < ($1.element.miss, $1.offset) }.map(\.element)
        guard sorted[0].miss < 0.45, sorted[1].miss > sorted[0].miss + 0.3 else { return nil }
        return (sorted[0].finder, sorted[0].asDrawn)
    }

    @Test("the finder search that drops shapes early decides as the comparison of every shape does")
    func finderSearch() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var found = 0, differing = 0
        for trial in 0..<6_000 {
            // Finder shapes with widths moved by up to ±0.8 module, and widths at random.
            let pattern = DataBarExpanded.finders[trial % 6]
            let shape = trial % 3 == 2 ? (0..<5).map { _ in Int(random() * 9) + 1 } : (trial % 2 == 0 ? pattern : pattern.reversed())
            let module = 1 + 4 * random()
            let p = shape.map { max(0.1, (Double($0) + 1.6 * (random() - 0.5)) * module) }
            let estimate = p.reduce(0, +) / 15
            let fast = DataBarExpanded.finder(p, module: estimate), full = Self.finderInFull(p, module: estimate)
            if fast != nil { found += 1 }
            if fast?.finder != full?.finder || fast?.asDrawn != full?.asDrawn { differing += 1 }
        }
        #expect(differing == 0)
        // Both outcomes occur often enough for the comparison to mean something.
        #expect(found > 600 && found < 5_400)
    }

    @Test(
        "a fixture's row decodes to its text from two lines, read either way and with ink spread",
        arguments: ["exp-3103", "exp-alpha", "exp-iso646", "exp-gtin-fields", "exp-weight-date"])
    func lines(_ name: String) throws {
        let widths = try Self.fixtureWidths(name, scale: 2)
        let text = try Self.expected(name)
        for ink in [0.0, 0.7, -0.7] {
            var votes = DataBarExpanded.Votes()
            votes.add(line: DataBarExpanded.pairs(Self.line(widths, module: 3.2, ink: ink)))
            votes.add(line: DataBarExpanded.pairs(Array(Self.line(widths, module: 2.9, ink: ink).reversed())))
            let symbol = DataBarExpanded.decode(votes)
            #expect(symbol.map { String(decoding: $0.bytes, as: UTF8.self) } == text, "ink \(ink)")
        }
        // One line is not enough.
        var once = DataBarExpanded.Votes()
        once.add(line: DataBarExpanded.pairs(Self.line(widths, module: 3)))
        #expect(DataBarExpanded.decode(once) == nil)
    }

    @Test("a data character changed on every line fails the check character")
    func changedCharacter() throws {
        let widths = try Self.fixtureWidths("exp-3103", scale: 2)
        // The quiet zone and the guard's space (one element), the guard's bar, the check character
        // (8 elements) and the finder (5): then the first pair's second character.
        let start = 2 + 8 + 5
        var changed = 0
        for k in start..<(start + 7) where widths[k + 1] >= 2 {
            var w = widths
            w[k] += 1
            w[k + 1] -= 1
            var votes = DataBarExpanded.Votes()
            for _ in 0..<3 { votes.add(line: DataBarExpanded.pairs(Self.line(w, module: 3))) }
            #expect(DataBarExpanded.decode(votes) == nil, "element \(k)")
            changed += 1
        }
        #expect(changed > 0)
    }

    @Test("the bit stream's general-purpose field: numeric pairs, a latch to alphanumeric, FNC1 back to numeric")
    func generalField() {
        // Method 00 (linkage 0, 00, two length bits), then "10" and "12" as numeric pairs, the
        // numeric latch 0000, "A" (100000), FNC1 (01111), "15" (7 bits) and padding.
        func bits(_ s: String) -> [Bool] { s.filter { $0 != " " }.map { $0 == "1" } }
        let numeric = { (a: Int, b: Int) -> String in
            let v = 8 + 11 * a + b
            return String((0..<7).map { v >> (6 - $0) & 1 == 1 ? "1" : "0" })
        }
        var s = "0 00 00 " + numeric(1, 0) + numeric(1, 2) + "0000" + "100000" + "01111" + numeric(1, 5)
        while s.filter({ $0 != " " }).count % 12 != 0 { s += "0" }
        // The length bits: symbol characters (check character included) odd, and over 14.
        let count = s.filter { $0 != " " }.count / 12 + 1
        let header = "0 00 " + (count % 2 == 1 ? "1" : "0") + (count > 14 ? "1" : "0")
        s = header + s.dropFirst(8)
        let decoded = DataBarExpanded.decodeBits(bits(s), characters: count)
        #expect(decoded == Array("1012A".utf8) + [0x1D] + Array("15".utf8))
        // The length bits wrong: refused.
        let wrong = "0 00 " + (count % 2 == 1 ? "0" : "1") + (count > 14 ? "1" : "0") + s.dropFirst(8)
        #expect(DataBarExpanded.decodeBits(bits(wrong), characters: count) == nil)
    }

    @Test("every fixture reads as exactly its text", arguments: readable)
    func fixture(_ name: String) throws {
        let symbols = Self.reader.read(try Self.image(name))
        let text = try Self.expected(name)
        #expect(symbols.map(\.symbology) == [.databarExpanded])
        #expect(symbols.map(\.text) == [text])
        #expect(symbols.map(\.isGS1) == [true])
    }

    @Test("a symbol with one data character's bars altered reads as nothing")
    func damaged() throws {
        #expect(try Self.expected("exp-damaged").isEmpty)
        #expect(Self.reader.read(try Self.image("exp-damaged")).isEmpty)
    }

    @Test("not read when DataBar Expanded is not asked for")
    func notAsked() throws {
        let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases).subtracting([.databarExpanded]))
        #expect(reader.read(try Self.image("stk-deusto")).isEmpty)
    }

    @Test("a space counts in a DataBar Expanded element string only")
    func space() {
        let text = Array("101098 1234".utf8)
        #expect(GS1Syntax.isWellFormed(text, allowingSpace: true))
        #expect(!GS1Syntax.isWellFormed(text))
    }
}
