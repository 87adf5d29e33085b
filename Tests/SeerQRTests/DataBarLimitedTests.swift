import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// GS1 DataBar Limited (ISO/IEC 24724): the character values and check patterns, lines decoded from
/// their elements, and the symbols of `TestImages/databarltd` (written by zxing-cpp's encoder,
/// `TestImages/databarltd.py`) read through the code reader.
@Suite("DataBar Limited")
struct DataBarLimitedTests {
    static let directory = Fixtures.root.appendingPathComponent("TestImages/databarltd")
    static let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases))

    static func image(_ name: String) throws -> GrayImage { try Fixtures.gray(name, in: directory) }
    static func expected(_ name: String) throws -> String { try Fixtures.expected(name, in: directory) }

    static let readable = [
        "ltd-0-x2", "ltd-1-x3", "ltd-2-x4", "ltd-3-x3", "ltd-4-x2", "ltd-5-x3", "ltd-upside-down", "ltd-turned-6",
        "ltd-turned-90", "ltd-blurred", "ltd-beside-ean13",
    ]

    @Test("each group's odd and even width sets number exactly what its value range holds")
    func groupSizes() {
        let groups = DataBarLimited.groups
        for (k, g) in groups.enumerated() {
            let next = k + 1 < groups.count ? groups[k + 1].first : DataBarLimited.characterValues
            let odd = DataBarLimited.sets(7, g.oddModules, widest: g.oddWidest, needsNarrow: false)
            let even = DataBarLimited.sets(7, 26 - g.oddModules, widest: 9 - g.oddWidest, needsNarrow: true)
            #expect(even == g.evenSets, "group \(k)")
            #expect(odd * even == next - g.first, "group \(k)")
        }
    }

    @Test("ranks run through 0 ..< the number of sets, in lexicographic order")
    func ranks() {
        // Every sequence of 4 widths 1…3 summing to 7 with a narrow one, in lexicographic order.
        var all: [[Int]] = []
        for a in 1...3 { for b in 1...3 { for c in 1...3 { for d in 1...3 where a + b + c + d == 7 && [a, b, c, d].contains(1) {
            all.append([a, b, c, d])
        } } } }
        #expect(all.count == DataBarLimited.sets(4, 7, widest: 3, needsNarrow: true))
        for (k, w) in all.enumerated() { #expect(DataBarLimited.rank(w, widest: 3, needsNarrow: true) == k) }
        #expect(DataBarLimited.rank([2, 2, 2, 1], widest: 3, needsNarrow: false) != nil)
        #expect(DataBarLimited.rank([2, 2, 3, 0], widest: 3, needsNarrow: false) == nil)
        #expect(DataBarLimited.rank([4, 1, 1, 1], widest: 3, needsNarrow: false) == nil)
    }

    @Test("89 distinct check patterns of 18 modules, odd and even elements 9 each")
    func checkPatterns() {
        #expect(DataBarLimited.checkPatterns.count == 89)
        #expect(Set(DataBarLimited.checkPatterns).count == 89)
        for p in DataBarLimited.checkPatterns {
            #expect(p.count == 14 && p.reduce(0, +) == 18)
            #expect(stride(from: 0, to: 14, by: 2).reduce(0) { $0 + p[$1] } == 9)
        }
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

    /// The widths of the first clean fixture's middle row (3 pixels a module), quiet zones included.
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

    @Test("a fixture's modules decode to its GTIN, read either way and with ink spread; a changed element does not")
    func lines() throws {
        let widths = try Self.fixtureWidths("ltd-1-x3", scale: 3)
        #expect(widths.count == 47)
        let text = try Self.expected("ltd-1-x3")
        for ink in [0.0, 0.8, -0.8] {
            let symbols = DataBarLimited.decodeLine(Self.line(widths, module: 3.3, ink: ink))
            #expect(symbols.map(\.text) == [text], "ink \(ink)")
        }
        // One element a module wider and its neighbour a module narrower: nothing, at any place.
        for k in 2..<44 where widths[k + 1] >= 2 {
            var changed = widths
            changed[k] += 1
            changed[k + 1] -= 1
            #expect(DataBarLimited.decodeLine(Self.line(changed, module: 3)).isEmpty, "element \(k)")
        }
    }

    @Test("every fixture reads as exactly its text", arguments: readable)
    func fixture(_ name: String) throws {
        let symbols = Self.reader.read(try Self.image(name))
        let limited = symbols.filter { $0.symbology == .databarLimited }
        let text = try Self.expected(name)
        #expect(limited.map(\.text) == [text])
        #expect(limited.map(\.isGS1) == [true])
        // Nothing else is read where it lies, and nothing at all but the EAN-13 beside one.
        let others = symbols.filter { $0.symbology != .databarLimited }
        #expect(others.map(\.text) == (name == "ltd-beside-ean13" ? ["4006381333931"] : []))
    }

    @Test("a symbol with one data character's bars altered reads as nothing")
    func damaged() throws {
        #expect(try Self.expected("ltd-damaged").isEmpty)
        #expect(Self.reader.read(try Self.image("ltd-damaged")).isEmpty)
    }

    @Test("not read when DataBar Limited is not asked for")
    func notAsked() throws {
        let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases).subtracting([.databarLimited]))
        #expect(reader.read(try Self.image("ltd-2-x4")).isEmpty)
    }
}
