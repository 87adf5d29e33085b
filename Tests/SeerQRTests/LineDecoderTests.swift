import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// Seer's own 1-D decoding of single lines across the bars: EAN/UPC by the distances between
/// similar edges, UPC-E, and the reading across a patch of bars turned away from the rows and
/// columns (Code 128 and UPC-E, which zbar reads only along rows and columns).
@Suite("One-line 1-D decoders")
struct LineDecoderTests {
    typealias E = EANConstructionTests

    /// Elements of a module sequence with `quiet` light modules either side; `module(x)` gives the
    /// module width at a position (in modules from the start), `spread(x)` how much wider each bar is
    /// drawn there (and each space narrower), in pixels.
    static func elements(
        _ modules: [Bool], quiet: Double = 12, module: (Double) -> Double = { _ in 2 }, spread: (Double) -> Double = { _ in 0 }
    ) -> [LinearCheck.Element] {
        var runs: [(bar: Bool, from: Int, count: Int)] = [(false, -Int(quiet), Int(quiet))]
        var k = 0
        while k < modules.count {
            var n = 1
            while k + n < modules.count && modules[k + n] == modules[k] { n += 1 }
            runs.append((modules[k], k, n))
            k += n
        }
        runs.append((false, modules.count, Int(quiet)))
        var out: [LinearCheck.Element] = []
        var x = 0.0
        for (i, r) in runs.enumerated() {
            var width = 0.0
            for m in r.from..<(r.from + r.count) { width += module(Double(m)) }
            // Spread moves each edge between a bar and a space by half the spread there.
            let centre = Double(r.from) + Double(r.count) / 2
            if i > 0 && i < runs.count - 1 { width += (r.bar ? 1 : -1) * spread(centre) }
            out.append(.init(isBar: r.bar, start: x, width: width))
            x += width
        }
        return out
    }

    @Test("an EAN-13 whose bars thin along the line reads by its edge distances, exactly")
    func unevenSpread() {
        // Digits with no twin (1 and 7, 2 and 8 differ only in their widths, which this spread
        // blurs: no decoder can tell them apart here).
        let text = "4006359305465"
        let modules = E.ean13(text)
        // Bars as drawn at the start guard, then thinner and thinner: 0.9 pixel (of 2.2 a module)
        // thinner at the end.
        let line = Self.elements(modules, module: { _ in 2.2 }, spread: { x in -0.9 * max(0, x - 10) / 85 })
        #expect(LinearCheck.decodeRuns(line, long: true, edges: false).isEmpty, "the widths alone cannot read it")
        #expect(LinearCheck.decodeRuns(line, long: true, edges: true).map(\.text) == [text])
        #expect(LinearCheck.decodeLine(line).map(\.text) == [text])
        #expect(LinearCheck.decodeLine(Array(line.reversed())).map(\.text) == [text])
    }

    @Test("an EAN-13 seen in perspective (modules 1.6 to 2.8 pixels) reads by its edges, exactly")
    func perspective() {
        let modules = E.ean13("0" + E.upcA)
        let line = Self.elements(modules, module: { x in 1.6 + 1.2 * min(95, max(0, x)) / 95 })
        #expect(LinearCheck.decodeLine(line).map(\.text) == ["0" + E.upcA])
    }

    @Test("the digit nearest by edges tells twins (1 and 7, 2 and 8) apart by their widths")
    func twins() {
        // 1 (L) is 2 2 2 1 and 7 (L) is 1 3 1 2: the same distances between similar edges.
        let one = LinearCheck.nearestDigitByEdges([2, 2, 2, 1], left: false)
        let seven = LinearCheck.nearestDigitByEdges([1, 3, 1, 2], left: false)
        #expect(one.digit == 1 && one.margin >= 0.5)
        #expect(seven.digit == 7 && seven.margin >= 0.5)
        // Halfway between the two: no clear digit.
        #expect(LinearCheck.nearestDigitByEdges([1.5, 2.5, 1.5, 1.5], left: false).margin < 0.5)
    }

    @Test("a damaged digit or a wrong check digit decodes nothing by edges either")
    func edgesKeepTheChecks() {
        var modules = E.ean13("4006381333931")
        // The eighth digit (right half, modules 50–56) drawn as a solid bar: no digit there.
        for k in 50..<57 { modules[k] = true }
        #expect(LinearCheck.decodeLine(Self.elements(modules)).isEmpty)
        // A valid-looking symbol whose digits break the check digit: the left half of one code,
        // the right half of another.
        let a = E.ean13("4006381333931"), b = E.ean13("0" + E.upcA)
        #expect(LinearCheck.decodeLine(Self.elements(Array(a[0..<50]) + Array(b[50...]))).isEmpty)
    }

    @Test("one line decodes a whole UPC-E, both ways, with its number system and check digit")
    func upceLine() {
        let (modules, text) = E.upce([1, 2, 6, 4, 9, 0])
        let line = Self.elements(modules)
        #expect(LinearCheck.decodeLine(line, upce: true).filter { $0.symbology == .upce }.map(\.text) == [text])
        #expect(LinearCheck.decodeLine(Array(line.reversed()), upce: true).filter { $0.symbology == .upce }.map(\.text) == [text])
        // Not asked for, not decoded.
        #expect(!LinearCheck.decodeLine(line).contains { $0.symbology == .upce })
        // The UPC-A it stands for: 0126490 expands to 01200000649, check digit 4.
        #expect(LinearCheck.upceExpanded(system: 0, [1, 2, 6, 4, 9, 0]) == [0, 1, 2, 0, 0, 0, 0, 0, 6, 4, 9])
        #expect(text == "01264904")
    }

    @Test("a UPC-E needs five light modules either side: a longer code's widest space is four")
    func upceQuietZone() {
        let (modules, _) = E.upce([1, 2, 3, 4, 5, 6])
        #expect(LinearCheck.decodeUPCERuns(Self.elements(modules, quiet: 5), edges: true).count == 1)
        #expect(LinearCheck.decodeUPCERuns(Self.elements(modules, quiet: 4), edges: true).isEmpty)
        #expect(LinearCheck.decodeUPCERuns(Self.elements(modules, quiet: 4), edges: false).isEmpty)
    }

    // MARK: Turned symbols, read whole by the reader

    /// `image` turned by `degrees` about its centre onto a light background (bilinear).
    static func turned(_ image: GrayImage, degrees: Double) -> GrayImage {
        let a = degrees * .pi / 180, c = cos(a), s = sin(a)
        let w = Double(image.width), h = Double(image.height)
        let W = Int(abs(w * c) + abs(h * s)) + 2, H = Int(abs(w * s) + abs(h * c)) + 2
        return GrayImage(width: W, height: H) { x, y in
            let dx = Double(x) - Double(W) / 2, dy = Double(y) - Double(H) / 2
            let sx = c * dx + s * dy + w / 2, sy = -s * dx + c * dy + h / 2
            guard sx >= 0, sy >= 0, sx < w - 1, sy < h - 1 else { return 240 }
            let x0 = Int(sx), y0 = Int(sy), fx = sx - Double(x0), fy = sy - Double(y0)
            let v =
                Double(image[x0, y0]) * (1 - fx) * (1 - fy) + Double(image[x0 + 1, y0]) * fx * (1 - fy)
                + Double(image[x0, y0 + 1]) * (1 - fx) * fy + Double(image[x0 + 1, y0 + 1]) * fx * fy
            return UInt8(max(0, min(255, v.rounded())))
        }
    }

    @Test("a UPC-E turned 50° reads exactly at every preset", arguments: CodeReader.Preset.allCases)
    func turnedUPCE(_ preset: CodeReader.Preset) {
        let (modules, text) = E.upce([1, 2, 6, 4, 9, 0])
        let image = Self.turned(E.render([modules], module: 3, height: 110), degrees: 50)
        let symbols = E.read(image, preset)
        #expect(symbols.map(\.symbology) == [.upce], "read \(symbols.map { "\($0.symbology) \($0.text ?? "")" })")
        #expect(symbols.compactMap(\.text) == [text])
    }

    @Test("a Code 128 with extended characters, turned 55°, reads exactly at every preset", arguments: CodeReader.Preset.allCases)
    func turnedCode128(_ preset: CodeReader.Preset) throws {
        let image = try Fixtures.gray("code128-fnc4", in: Fixtures.root.appendingPathComponent("TestImages/codes"))
        let symbols = E.read(Self.turned(image, degrees: 55), preset)
        #expect(symbols.map(\.symbology) == [.code128], "read \(symbols.map { "\($0.symbology) \($0.text ?? "")" })")
        #expect(symbols.compactMap(\.text) == ["Größe: 12 µm"])
    }
}

/// EAN-13, UPC-A and EAN-8 decoded from a line's grey levels by rendering (``LinearCheck/decodeBySynthesis(_:offset:width:ean13:ean8:)``),
/// where blur merges thin bars and spaces.
@Suite("1-D decoding from grey levels")
struct GreyLevelDecoderTests {
    typealias E = EANConstructionTests

    /// A line across `modules` at `module` pixels each after 15 light modules, blurred by a
    /// Gaussian of `sigma` pixels: ink 60, paper 170.
    static func profile(_ modules: [Bool], module: Double, sigma: Double) -> [Double] {
        let start = 15 * module
        let count = Int(start * 2 + Double(modules.count) * module)
        return LinearCheck.render(modules, from: 0, to: count - 1, start: start, module: module, sigma: sigma).map { 170 - 110 * $0 }
    }

    /// `modules` at 1.7 pixels a module under a blur of 1.1 pixels, which merges its thin bars and
    /// spaces so that the line's elements no longer hold the symbol.
    static func merged(_ modules: [Bool]) -> [Double] {
        let values = profile(modules, module: 1.7, sigma: 1.1)
        #expect(LinearCheck.decodeLine(LinearCheck.elements(values, offset: 0)).isEmpty, "the elements do not hold it")
        return values
    }

    @Test("a blurred EAN-13 whose thin bars and spaces merge reads from its grey levels, exactly, both ways")
    func blurred() {
        let text = "4006359305465"
        let values = Self.merged(E.ean13(text))
        let width = 95 * 1.7
        #expect(LinearCheck.decodeBySynthesis(values, offset: 0, width: width).map(\.text) == [text])
        #expect(LinearCheck.decodeBySynthesis(values.reversed(), offset: 0, width: width).map(\.text) == [text])
    }

    @Test("a blurred EAN-8 whose thin bars and spaces merge reads from its grey levels, exactly, both ways, as EAN-8")
    func blurredEAN8() {
        let text = "96385074"
        let values = Self.merged(E.ean8(text))
        let width = 67 * 1.7
        for v in [values, values.reversed()] {
            let read = LinearCheck.decodeBySynthesis(v, offset: 0, width: width, ean13: true, ean8: true)
            #expect(read.map(\.text) == [text])
            #expect(read.map(\.symbology) == [.ean8])
        }
        // Not asked for, not read.
        #expect(LinearCheck.decodeBySynthesis(values, offset: 0, width: width).isEmpty)
    }

    @Test("the first 67 modules of a blurred EAN-13 are no EAN-8: its bars go on where an EAN-8's quiet zone would be")
    func ean13IsNoEAN8() {
        let values = Self.profile(E.ean13("4006359305465"), module: 1.7, sigma: 1.1)
        let read = LinearCheck.decodeBySynthesis(values, offset: 0, width: 67 * 1.7, ean13: false, ean8: true)
        #expect(read.isEmpty, "\(read.map(\.text))")
    }

    @Test("a blurred EAN-13 with one digit smudged over gives no reading")
    func smudged() {
        let text = "4006359305465"
        var values = Self.profile(E.ean13(text), module: 1.7, sigma: 1.1)
        // The fourth right-hand digit (modules 71-77) under a grey smear.
        let from = Int((15 + 71) * 1.7), to = Int((15 + 78) * 1.7)
        for i in from..<to { values[i] = 115 }
        #expect(LinearCheck.decodeBySynthesis(values, offset: 0, width: 95 * 1.7).isEmpty)
    }

    @Test("a blurred UPC-A photo reads exactly (or, at the fast preset, not at all)", arguments: CodeReader.Preset.allCases)
    func photo(_ preset: CodeReader.Preset) throws {
        let path = Fixtures.root.appendingPathComponent("TestImages/eanphotos/upca-blurred-367426224787.jpg").path
        let texts = E.read(try Fixtures.gray(path), preset).compactMap(\.text)
        if preset == .fast {
            #expect(texts.allSatisfy { $0 == "367426224787" }, "\(texts)")
        } else {
            #expect(texts == ["367426224787"])
        }
    }
}
