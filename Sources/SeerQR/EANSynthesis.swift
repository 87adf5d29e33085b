#if canImport(Glibc)
import Glibc
#endif

/// EAN-13, UPC-A and EAN-8 decoded from a line's grey levels by rendering, where blur has merged
/// the edges of thin bars and spaces so that no run of the line's elements holds the symbol's 59
/// (43 for EAN-8).
///
/// The symbol's three guards are found first, each where a rendering of it with its known
/// neighbours (quiet zone, a digit's first or last module) fits the line best; they give each
/// half's module. Each digit is then the code whose rendering, between the modules that must
/// stand beside it, fits the line best, and it must fit well and clearly better than any other.
/// An EAN-13's parities give its first digit (an EAN-8's left digits are all odd), the check
/// digit must hold, and the quiet zones must be light. As for readings from the elements, a
/// symbol is reported only when two lines of its patch decode it and no line decodes another in
/// its place (``ReadSession``'s bar lines).
extension LinearCheck {
    /// The least correlation of a guard's or digit's rendering with the line.
    static let synthesisFit = 0.8
    /// The least margin of a digit's correlation over the next best code's.
    static let synthesisMargin = 0.06
    /// The stretches tried on one line, in each direction.
    static let synthesisCandidates = 6

    /// The EAN-13 symbols (UPC-A as EAN-13 with a first 0) and, with `ean8`, EAN-8 symbols decoded
    /// from `values`, samples one pixel apart whose first lies at `offset` along the line, read in
    /// both directions; `width` is the extent the patch of bars shows across them.
    static func decodeBySynthesis(_ values: [Double], offset: Double, width: Double, ean13: Bool = true, ean8: Bool = false) -> [LineSymbol] {
        var out: [LineSymbol] = []
        let n = Double(values.count)
        let layouts = (ean13 ? [6] : []) + (ean8 ? [4] : [])
        for reversed in [false, true] {
            let v = reversed ? Array(values.reversed()) : values
            for half in layouts {
                for found in synthesisRuns(v, module: width / Double(14 * half + 11), half: half) where !out.contains(where: { $0.digits == found.digits }) {
                    // Back to the line's own coordinates and direction.
                    let from = reversed ? n - found.to : found.from, to = reversed ? n - found.from : found.to
                    out.append(LineSymbol(symbology: found.symbology, digits: found.digits, from: offset + from, to: offset + to))
                }
            }
        }
        return out
    }

    /// A stretch of the line that may hold a symbol of `modules` (95, or 67 for EAN-8): a bar after
    /// a light run, and a later bar before one, that many modules of 1 pixel or more apart (sample
    /// coordinates). Those of modules between 0.6 and 1.6 times `expected` (the patch's own width
    /// over `modules`; a patch may miss blurred bars at an end, or join a neighbour), the nearest few.
    private static func candidates(_ values: [Double], expected: Double, modules: Int) -> [(start: Double, module: Double)] {
        let e = elements(values, offset: 0, radius: 8)
        guard e.count >= 20 else { return [] }
        var out: [(start: Double, module: Double)] = []
        for i in 1..<(e.count - 1) where e[i].isBar && !e[i - 1].isBar {
            for j in stride(from: i + 14, to: min(e.count - 1, i + 72), by: 1) where e[j].isBar && !e[j + 1].isBar {
                let width = e[j].start + e[j].width - e[i].start
                let module = width / Double(modules)
                guard module >= 1, module >= 0.6 * expected, module <= 1.6 * expected, e[i - 1].width >= 2 * module, e[j + 1].width >= 2 * module else { continue }
                if out.contains(where: { abs($0.start - e[i].start) < 0.5 * module && abs($0.module / module - 1) < 0.01 }) { continue }
                out.append((e[i].start, module))
            }
        }
        return Array(out.sorted { abs(log($0.module / expected)) < abs(log($1.module / expected)) }.prefix(synthesisCandidates))
    }

    /// The fit (``fit(_:from:_:)``) of the samples within `bits` starting at `start`, `module`
    /// pixels each, blurred by `sigma`, with their rendering.
    private static func windowFit(_ values: [Double], _ bits: [Bool], start: Double, module: Double, sigma: Double) -> Double {
        let from = max(0, Int((start + 0.5 * module).rounded(.down)))
        let to = min(values.count - 1, Int((start + (Double(bits.count) - 0.5) * module).rounded(.up)))
        guard to - from >= 4 else { return -1 }
        return fit(values, from: from, render(bits, from: from, to: to, start: start, module: module, sigma: sigma))
    }

    private static func bits(_ s: String) -> [Bool] { s.map { $0 == "1" } }

    /// The best position for `pattern` (its first module's left edge) within `reach` of `x`,
    /// stepping by an eighth of a module, with its correlation.
    private static func place(
        _ values: [Double], _ pattern: [Bool], around x: Double, reach: Double, module: Double, sigma: Double
    ) -> (x: Double, fit: Double) {
        var best = (x: x, fit: -2.0)
        var d = -reach
        while d <= reach {
            let f = windowFit(values, pattern, start: x + d, module: module, sigma: sigma)
            if f > best.fit { best = (x + d, f) }
            d += module / 8
        }
        return best
    }

    /// The symbols of `half` digits a half (6: EAN-13, 4: EAN-8) read left to right in `values`
    /// (sample coordinates).
    private static func synthesisRuns(_ values: [Double], module expected: Double, half: Int) -> [LineSymbol] {
        var out: [LineSymbol] = []
        // The start guard with the quiet zone before it and the first digit's first module (a
        // space) after; the centre guard between the last left digit's bar and the first right
        // digit's; the end guard after the last digit's space, and the quiet zone.
        let startGuard = bits("0001010"), centreGuard = bits("1010101"), endGuard = bits("0101000")
        // The centre guard's first module, and the end guard's (module 0 is the start guard's).
        let centreModule = 7 * half + 3, endModule = 14 * half + 8
        for candidate in candidates(values, expected: expected, modules: endModule + 3) {
            let m0 = candidate.module
            // The start guard's place and the blur.
            var start = (x: 0.0, fit: -2.0), sigma = 0.0
            for f in [0.3, 0.45, 0.6, 0.8] {
                let p = place(values, startGuard, around: candidate.start - 3 * m0, reach: m0, module: m0, sigma: f * m0)
                if p.fit > start.fit { (start, sigma) = (p, f * m0) }
            }
            guard start.fit >= synthesisFit else { continue }
            let s = start.x + 3 * m0
            // The centre guard 45 modules on (31 in EAN-8), within 4 % of the module; the end
            // guard 47 modules past it (33) at the left half's module within 6 %.
            let centre = place(values, centreGuard, around: s + Double(centreModule - 1) * m0, reach: 1.8 * m0, module: m0, sigma: sigma)
            guard centre.fit >= synthesisFit else { continue }
            let c = centre.x + m0
            let left = (c - s) / Double(centreModule)
            let end = place(values, endGuard, around: c + Double(endModule - centreModule - 1) * left, reach: 2.8 * left, module: left, sigma: sigma)
            guard end.fit >= synthesisFit else { continue }
            let e = end.x + left
            let right = (e - c) / Double(endModule - centreModule)
            guard abs(right / left - 1) < 0.12, left >= 0.9 else { continue }
            // Each digit between its known neighbours (a left digit after a bar and before a space,
            // a right one after a space and before a bar), then again within the whole symbol
            // rendered with the other digits as first read, over the digit and three modules each
            // side: blur of a module or so reaches past the neighbouring module.
            var codes = [[Bool]](repeating: [], count: 2 * half)
            var digits = [Int](repeating: 0, count: 2 * half), parities = [Bool](repeating: false, count: 2 * half)
            var clear = true
            for round in 0..<3 {
                for k in 0..<(2 * half) {
                    let isRight = k >= half
                    let first = isRight ? c + (5 + 7 * Double(k - half)) * right : s + (3 + 7 * Double(k)) * left
                    let module = isRight ? right : left
                    var best = (digit: -1, even: false, fit: -2.0), second = -2.0
                    var symbol: [Bool] = []
                    let firstModule = isRight ? centreModule + 5 + 7 * (k - half) : 3 + 7 * k
                    if round > 0 {
                        symbol = startGuard.prefix(3) + startGuard.suffix(4).dropLast()
                        for j in 0..<(2 * half) { symbol += codes[j]; if j == half - 1 { symbol += centreGuard.dropFirst().dropLast() } }
                        symbol += endGuard.dropFirst()
                    }
                    for d in 0..<10 {
                        // EAN-8's left digits are odd (L) only.
                        for even in isRight || half == 4 ? [false] : [false, true] {
                            let code = digitModules(d, even: even, right: isRight)
                            let f: Double
                            if round == 0 {
                                f = windowFit(values, [!isRight] + code + [isRight], start: first - module, module: module, sigma: sigma)
                            } else {
                                // Modules firstModule-3 ..< firstModule+10 of the symbol (which
                                // starts 3 quiet modules before module 0).
                                symbol.replaceSubrange((firstModule + 3)..<(firstModule + 10), with: code)
                                f = windowFit(
                                    values, Array(symbol[firstModule..<(firstModule + 13)]), start: first - 3 * module, module: module, sigma: sigma)
                            }
                            if f > best.fit {
                                second = best.fit
                                best = (d, even, f)
                            } else if f > second {
                                second = f
                            }
                        }
                    }
                    digits[k] = best.digit
                    parities[k] = best.even
                    codes[k] = digitModules(best.digit, even: best.even, right: isRight)
                    if round == 2 && (best.fit < synthesisFit || best.fit - second < synthesisMargin) { clear = false }
                }
            }
            guard clear else { continue }
            let symbol: [Int]
            if half == 6 {
                guard let firstDigit = ean13Parity.firstIndex(of: Array(parities.prefix(6))) else { continue }
                symbol = [firstDigit] + digits
            } else {
                symbol = digits
            }
            guard checkDigitHolds(symbol) else { continue }
            let to = e + 3 * right
            guard quietZones(values, start: s, end: to, module: (left + right) / 2, sigma: sigma) else { continue }
            if !out.contains(where: { $0.digits == symbol }) {
                out.append(LineSymbol(symbology: half == 6 ? .ean13 : .ean8, digits: symbol, from: s, to: to))
            }
        }
        return out
    }
}
