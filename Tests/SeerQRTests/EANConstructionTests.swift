import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// EAN/UPC readings that are right by construction: generated symbols, damaged or combined the ways
/// photos show them, read at every preset with every symbology on. Each must come out as the exact
/// text or not at all.
@Suite("EAN/UPC readings by construction")
struct EANConstructionTests {
    // MARK: A small EAN/UPC renderer (independent of the reader's own tables)

    /// s b s b widths of the L digits.
    static let widths: [[Int]] = [
        [3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
        [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2],
    ]
    /// EAN-13 left-half parities (G = even) by first digit.
    static let parities = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
    /// UPC-E parities (E = even) for number system 0, by check digit.
    static let upceParities = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]

    static func digitModules(_ d: Int, even: Bool, right: Bool) -> [Bool] {
        var w = widths[d]
        if even { w.reverse() }
        var out: [Bool] = []
        var bar = right
        for n in w {
            out += Array(repeating: bar, count: n)
            bar.toggle()
        }
        return out
    }

    static func checkDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (k, d) in digits.reversed().enumerated() { sum += d * (k % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// The 95 modules of an EAN-13 (a UPC-A is an EAN-13 starting with 0).
    static func ean13(_ text: String) -> [Bool] {
        var d = text.compactMap(\.wholeNumberValue)
        if d.count == 12 { d = [0] + d }
        precondition(d.count == 13 && checkDigit(Array(d.prefix(12))) == d[12])
        let parity = Array(parities[d[0]])
        var m: [Bool] = [true, false, true]
        for k in 0..<6 { m += digitModules(d[1 + k], even: parity[k] == "G", right: false) }
        m += [false, true, false, true, false]
        for k in 0..<6 { m += digitModules(d[7 + k], even: false, right: true) }
        return m + [true, false, true]
    }

    /// The 67 modules of an EAN-8 (its eight digits, the last the check digit).
    static func ean8(_ text: String) -> [Bool] {
        let d = text.compactMap(\.wholeNumberValue)
        precondition(d.count == 8 && checkDigit(Array(d.prefix(7))) == d[7])
        var m: [Bool] = [true, false, true]
        for k in 0..<4 { m += digitModules(d[k], even: false, right: false) }
        m += [false, true, false, true, false]
        for k in 4..<8 { m += digitModules(d[k], even: false, right: true) }
        return m + [true, false, true]
    }

    /// The 51 modules of a UPC-E (number system 0), from its six digits; returns the 8-digit text too.
    static func upce(_ six: [Int]) -> (modules: [Bool], text: String) {
        // The UPC-A it stands for, for the check digit.
        let (d1, d2, d3, d4, d5, d6) = (six[0], six[1], six[2], six[3], six[4], six[5])
        let expanded: [Int] =
            switch d6 {
            case 0...2: [0, d1, d2, d6, 0, 0, 0, 0, d3, d4, d5]
            case 3: [0, d1, d2, d3, 0, 0, 0, 0, 0, d4, d5]
            case 4: [0, d1, d2, d3, d4, 0, 0, 0, 0, 0, d5]
            default: [0, d1, d2, d3, d4, d5, 0, 0, 0, 0, d6]
            }
        let check = checkDigit(expanded)
        let parity = Array(upceParities[check])
        var m: [Bool] = [true, false, true]
        for k in 0..<6 { m += digitModules(six[k], even: parity[k] == "E", right: false) }
        m += [false, true, false, true, false, true]
        return (m, "0" + six.map(String.init).joined() + String(check))
    }

    /// Modules drawn `module` pixels wide and `height` tall, dark 30 on light 225, with `quiet`
    /// modules of margin, then softened by a 3×3 box (a sharp print seen by a camera).
    static func render(_ rows: [[Bool]], module: Int = 3, height: Int = 90, quiet: Int = 14) -> GrayImage {
        let length = rows.map(\.count).max() ?? 0
        let width = (length + 2 * quiet) * module, h = height + 2 * 20
        let band = height / rows.count
        let image = GrayImage(width: width, height: h) { x, y in
            guard y >= 20, y < 20 + height else { return 225 }
            let row = rows[min(rows.count - 1, (y - 20) / max(1, band))]
            let k = x / module - quiet
            return k >= 0 && k < row.count && row[k] ? 30 : 225
        }
        return boxBlur(image)
    }

    static func boxBlur(_ image: GrayImage, radius: Int = 1, region: Range<Int>? = nil) -> GrayImage {
        let w = image.width, h = image.height
        return GrayImage(width: w, height: h) { x, y in
            if let region, !region.contains(x) { return image[x, y] }
            var sum = 0, n = 0
            for dy in -radius...radius {
                for dx in -radius...radius {
                    let xx = min(w - 1, max(0, x + dx)), yy = min(h - 1, max(0, y + dy))
                    sum += Int(image[xx, yy])
                    n += 1
                }
            }
            return UInt8(sum / n)
        }
    }

    static func read(_ image: GrayImage, _ preset: CodeReader.Preset) -> [Symbol] {
        CodeReader.forTests(symbologies: Set(Symbology.allCases), preset: preset).read(image)
    }

    /// Texts of the EAN/UPC symbols read, as GTIN-13 (UPC-A with its leading 0).
    static func eanTexts(_ symbols: [Symbol]) -> [String] {
        symbols.filter { [.ean13, .upca, .ean8, .upce].contains($0.symbology) }.compactMap { s in
            guard let t = s.text else { return nil }
            return s.symbology == .upca ? "0" + t : t
        }
    }

    static let upcA = "036000291452"
    /// Another valid UPC-A with the same right half: digits 1 and 3 (both of weight 3) swapped.
    static let upcAOther = "630000291452"

    // MARK: Tests

    @Test("the renderer's UPC-A reads whole at every preset", arguments: CodeReader.Preset.allCases)
    func clean(_ preset: CodeReader.Preset) throws {
        let symbols = Self.read(Self.render([Self.ean13(Self.upcA)]), preset)
        #expect(Self.eanTexts(symbols) == ["0" + Self.upcA])
        #expect(symbols.count == 1)
    }

    @Test("a UPC-A whose left half is smudged: the exact text or nothing", arguments: CodeReader.Preset.allCases)
    func smudgedLeftHalf(_ preset: CodeReader.Preset) throws {
        let module = 3, quiet = 14
        let image = Self.render([Self.ean13(Self.upcA)], module: module, quiet: quiet)
        // The left-hand digits blurred by a box two modules wide each way.
        let left = ((quiet + 3) * module)..<((quiet + 45) * module)
        let smudged = Self.boxBlur(image, radius: 2 * module, region: left)
        let texts = Self.eanTexts(Self.read(smudged, preset))
        #expect(texts.isEmpty || texts == ["0" + Self.upcA], "read \(texts)")
    }

    @Test("a UPC-A whose left half is another code's: no reading", arguments: CodeReader.Preset.allCases)
    func replacedLeftHalf(_ preset: CodeReader.Preset) throws {
        // The other code's left half with this one's right half: the check digit fails, so there is
        // no symbol there at all.
        let digits = [5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        let other = digits.map(String.init).joined() + String(Self.checkDigit([0] + digits))
        let a = Self.ean13(Self.upcA), b = Self.ean13(other)
        let mixed = Array(b[0..<45]) + Array(a[45...])
        let texts = Self.eanTexts(Self.read(Self.render([mixed]), preset))
        #expect(texts.isEmpty, "read \(texts)")
    }

    @Test("two codes sharing a right half in one place (upper and lower bars): neither", arguments: CodeReader.Preset.allCases)
    func twoReadingsOfOnePlace(_ preset: CodeReader.Preset) throws {
        let image = Self.render([Self.ean13(Self.upcAOther), Self.ean13(Self.upcA)], height: 120)
        let texts = Self.eanTexts(Self.read(image, preset))
        #expect(texts.isEmpty, "read \(texts)")
    }

    @Test("a UPC-A with a damaged middle: the exact text or nothing", arguments: CodeReader.Preset.allCases)
    func damagedMiddle(_ preset: CodeReader.Preset) throws {
        var modules = Self.ean13(Self.upcA)
        // The centre guard and a module either side: one dark smear.
        for k in 44...50 { modules[k] = true }
        let texts = Self.eanTexts(Self.read(Self.render([modules]), preset))
        #expect(texts.isEmpty || texts == ["0" + Self.upcA], "read \(texts)")
    }

    @Test("a UPC-E whose bars continue past its guards: not reported", arguments: CodeReader.Preset.allCases)
    func upceInsideLongerBars(_ preset: CodeReader.Preset) throws {
        let (upce, _) = Self.upce([1, 2, 3, 4, 5, 6])
        // Bars of some longer symbol on both sides, with no quiet zone (a fixed pseudo-random run).
        var state: UInt32 = 12345
        func bars(_ n: Int) -> [Bool] {
            var out: [Bool] = []
            var bar = false
            while out.count < n {
                state = state &* 1_103_515_245 &+ 12345
                out += Array(repeating: bar, count: 1 + Int((state >> 16) % 4))
                bar.toggle()
            }
            return Array(out.prefix(n))
        }
        let row = [true, false, true] + bars(24) + upce + bars(26) + [true, false, true]
        let symbols = Self.read(Self.render([row]), preset)
        #expect(!symbols.contains { $0.symbology == .upce }, "read \(symbols.map { "\($0.symbology) \($0.text ?? "")" })")
        #expect(symbols.allSatisfy { $0.symbology != .ean8 })
    }

    @Test("a UPC-E alone reads whole", arguments: CodeReader.Preset.allCases)
    func upceAlone(_ preset: CodeReader.Preset) throws {
        let (modules, text) = Self.upce([1, 2, 3, 4, 5, 6])
        let symbols = Self.read(Self.render([modules]), preset)
        #expect(symbols.map(\.symbology) == [.upce])
        #expect(symbols.compactMap(\.text) == [text])
    }

    @Test("one line decodes a whole EAN-13 and checks its digit")
    func lineDecoder() {
        let modules = Self.ean13("4006381333931")
        let module = 2.0
        var elements: [LinearCheck.Element] = [.init(isBar: false, start: 0, width: 12 * module)]
        var x = 12 * module
        var k = 0
        while k < modules.count {
            var n = 1
            while k + n < modules.count && modules[k + n] == modules[k] { n += 1 }
            elements.append(.init(isBar: modules[k], start: x, width: Double(n) * module))
            x += Double(n) * module
            k += n
        }
        elements.append(.init(isBar: false, start: x, width: 12 * module))
        #expect(LinearCheck.decodeLine(elements).map(\.text) == ["4006381333931"])
        // Read backwards too.
        #expect(LinearCheck.decodeLine(Array(elements.reversed())).map(\.text) == ["4006381333931"])
        // Without the quiet zone after it, it is a piece of something longer.
        #expect(LinearCheck.decodeLine(Array(elements.dropLast()) + [.init(isBar: true, start: x, width: module), .init(isBar: false, start: x + module, width: 20)]).isEmpty)
        #expect(LinearCheck.checkDigitHolds([4, 0, 0, 6, 3, 8, 1, 3, 3, 3, 9, 3, 1]))
        #expect(!LinearCheck.checkDigitHolds([4, 0, 0, 6, 3, 8, 1, 3, 3, 3, 9, 3, 2]))
    }
}
