/// EAN-13 (UPC-A) and EAN-8 decoded whole from one scan line, for telling whether a place holds a
/// symbol other than the one a reading names.
///
/// zbar assembles an EAN/UPC from halves it may see on different scan lines, and a UPC-E's guards
/// and six digits can be found among the bars of a longer code. A symbol decoded here comes from one
/// line only: its start guard after a quiet zone, every digit's four elements fitting one digit
/// clearly better than any other, the centre and end guards one module per element, the quiet zone
/// after it, and the check digit holding.
extension LinearCheck {
    /// A symbol decoded from one line, as GTIN-13 digits (EAN-8: its 8 digits).
    struct LineSymbol: Equatable {
        var symbology: Symbology
        var digits: [Int]
        /// Where along the line the symbol lies (its first and last edge, in the line's coordinates).
        var from: Double
        var to: Double

        var text: String { digits.map(String.init).joined() }
    }

    /// The digits a reading stands for, in the form ``decodeLine(_:)`` gives (UPC-A as GTIN-13).
    static func lineDigits(_ symbology: Symbology, text: String) -> [Int]? {
        let digits = text.compactMap(\.wholeNumberValue)
        guard digits.count == text.count else { return nil }
        switch symbology {
        case .upca where digits.count == 12: return [0] + digits
        case .ean13 where digits.count == 13, .ean8 where digits.count == 8, .upce where digits.count == 8: return digits
        default: return nil
        }
    }

    /// The EAN check digit holds over `digits` (the last one being the check digit).
    static func checkDigitHolds(_ digits: [Int]) -> Bool {
        guard digits.count >= 2 else { return false }
        var sum = 0
        // Weights 3 and 1 alternate from the digit before the check digit, going left.
        for (k, d) in digits.dropLast().reversed().enumerated() { sum += d * (k % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == digits.last!
    }

    /// Every EAN-13 and EAN-8 symbol (and UPC-E, when `upce`) decoded whole on this line (read
    /// either way), from the elements' own widths and from the distances between similar edges.
    static func decodeLine(_ line: [Element], upce: Bool = false) -> [LineSymbol] {
        var out: [LineSymbol] = []
        for elements in [line, Array(line.reversed())] {
            for edges in [false, true] {
                var found = decodeRuns(elements, long: true, edges: edges) + decodeRuns(elements, long: false, edges: edges)
                if upce { found += decodeUPCERuns(elements, edges: edges) }
                for s in found where !out.contains(where: { $0.symbology == s.symbology && $0.digits == s.digits }) {
                    out.append(s)
                }
            }
        }
        return out
    }

    /// UPC-E's parities of its six digits (true: even) for each check digit, number system 0; number
    /// system 1 has each one the other way.
    static let upceParity: [[Bool]] = [
        "EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE",
    ].map { $0.map { $0 == "E" } }

    /// A run of a line's elements that may hold a symbol: it starts with a bar after a space and ends
    /// with a bar before one (the light on either side, where the quiet zones lie), and its module is
    /// 0.8 pixels or more.
    struct Run {
        let elements: ArraySlice<Element>
        /// The run's widths summed over the symbol's modules (summed: on a line read backwards the
        /// elements keep their own starts).
        let module: Double
        /// Where along the line the run lies (its first and last edge).
        let from: Double
        let to: Double
        /// The ink spread the start guard shows: how much wider its bars are than its space, halved.
        let spread: Double
        /// The light before and after the run, corrected for the spread.
        let before: Double
        let after: Double

        /// The runs of `count` elements of the line that may hold a symbol of `modules` modules.
        static func all(in line: [Element], count n: Int, modules: Double) -> some Sequence<Run> {
            (1..<max(1, line.count - n)).lazy.compactMap { Run(line, at: $0, count: n, modules: modules) }
        }

        init?(_ line: [Element], at i: Int, count n: Int, modules: Double) {
            guard line[i].isBar, !line[i - 1].isBar, !line[i + n].isBar else { return nil }
            elements = line[i..<(i + n)]
            let first = line[i], last = line[i + n - 1]
            module = elements.reduce(0) { $0 + $1.width } / modules
            guard module >= 0.8 else { return nil }
            from = min(first.start, last.start)
            to = max(first.start + first.width, last.start + last.width)
            spread = ((line[i].width + line[i + 2].width) / 2 - line[i + 1].width) / 2
            before = line[i - 1].width + spread
            after = line[i + n].width + spread
        }

        /// Element `k` of the run.
        func element(_ k: Int) -> Element { elements[elements.startIndex + k] }

        /// Element `k`'s width corrected for the spread: bars narrowed, spaces widened.
        func width(_ k: Int) -> Double {
            let e = element(k)
            return e.isBar ? e.width - spread : e.width + spread
        }
    }

    /// The UPC-A a UPC-E's number system and six digits stand for, without its check digit.
    static func upceExpanded(system: Int, _ d: [Int]) -> [Int] {
        switch d[5] {
        case 0...2: [system, d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
        case 3: [system, d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
        case 4: [system, d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
        default: [system, d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
        }
    }

    /// Runs of the line that decode as a whole UPC-E (as its 8 digits: number system, six digits,
    /// check digit): start guard, six digits of four elements each, the end guard's six one-module
    /// elements, the number system and check digit from the digits' parities, the check digit
    /// holding over the UPC-A it stands for. Its quiet zones must be five modules or more on both
    /// sides, wider than any element of an EAN or UPC, so that no UPC-E is read among a longer
    /// symbol's bars.
    static func decodeUPCERuns(_ elements: [Element], edges: Bool) -> [LineSymbol] {
        // Start guard (bar space bar), 24 digit elements, end guard (space bar space bar space bar).
        let n = 33, modules = 51.0
        let guards = [0, 1, 2, 27, 28, 29, 30, 31, 32]
        var out: [LineSymbol] = []
        for run in Run.all(in: elements, count: n, modules: modules) {
            let module = run.module, e = run.element, width = run.width
            if edges {
                let groups = [[0, 1, 2], Array(27..<33)]
                guard groups.allSatisfy({ g in edgePairs(g.map { e($0).width / module }).allSatisfy { abs($0 - 2) < 0.6 } }),
                    guards.allSatisfy({ abs(e($0).width / module - 1) < 0.75 })
                else { continue }
            } else {
                guard guards.allSatisfy({ abs(width($0) / module - 1) < 0.5 }) else { continue }
            }
            guard run.before >= 5 * module, run.after >= 5 * module else { continue }
            var digits: [Int] = []
            var parities: [Bool] = []
            var clear = true
            for k in 0..<6 {
                let w = ((3 + 4 * k)..<(7 + 4 * k)).map(width)
                let sum = w.reduce(0, +)
                guard sum > 0, abs(sum / module - 7) < 1.5 else { clear = false; break }
                let m = w.map { $0 * 7 / sum }
                let d = edges ? nearestDigitByEdges(m, left: true) : nearestDigit(m, left: true)
                guard d.distance <= (edges ? 1.2 : 1.4), d.margin >= 0.5 else { clear = false; break }
                digits.append(d.digit)
                parities.append(d.even)
            }
            guard clear else { continue }
            var symbol: [Int]? = nil
            for system in 0...1 {
                let pattern = system == 0 ? parities : parities.map { !$0 }
                guard let check = upceParity.firstIndex(of: pattern) else { continue }
                if checkDigitHolds(upceExpanded(system: system, digits) + [check]) { symbol = [system] + digits + [check] }
            }
            guard let symbol else { continue }
            out.append(LineSymbol(symbology: .upce, digits: symbol, from: run.from, to: run.to))
        }
        return out
    }

    /// The widths of a bar and the space after it, and of a space and the bar after it: the
    /// distances between similar edges, which ink spread and blur leave as they are.
    static func edgePairs(_ w: [Double]) -> [Double] { (0..<(w.count - 1)).map { w[$0] + w[$0 + 1] } }

    /// The nearest digit to four element widths (in modules, summing to 7) by the distances between
    /// similar edges (``edgePairs(_:)``), in either parity when `left`. Digits whose edge distances
    /// are the same (1 and 7, 2 and 8) are told apart by the elements' own widths, which must then
    /// be clearly nearer one of them: (digit, even parity, distance, margin to the next nearest).
    static func nearestDigitByEdges(_ m: [Double], left: Bool) -> (digit: Int, even: Bool, distance: Double, margin: Double) {
        let measured = edgePairs(m)
        var candidates: [(digit: Int, even: Bool, pairs: [Double], distance: Double, widths: Double)] = []
        for d in 0..<10 {
            for even in left ? [false, true] : [false] {
                let l = even ? Array(digitWidths[d].reversed()) : digitWidths[d]
                let pairs = edgePairs(l)
                let distance = zip(measured, pairs).reduce(0) { $0 + abs($1.0 - $1.1) }
                let widths = zip(m, l).reduce(0) { $0 + abs($1.0 - $1.1) }
                candidates.append((d, even, pairs, distance, widths))
            }
        }
        candidates.sort { $0.distance < $1.distance }
        let best = candidates[0]
        let twins = candidates.filter { $0.pairs == best.pairs }.sorted { $0.widths < $1.widths }
        let others = candidates.first { $0.pairs != best.pairs }?.distance ?? .infinity
        var margin = others - best.distance
        if twins.count > 1 {
            // Between twins the widths decide, by half the margin the edges need.
            margin = min(margin, 2 * (twins[1].widths - twins[0].widths) - 1.5)
        }
        return (twins[0].digit, twins[0].even, best.distance, margin)
    }

    /// The nearest digit to four element widths (in modules, summing to 7), in either parity when
    /// `left`: (digit, even parity, distance, margin to the next nearest).
    static func nearestDigit(_ m: [Double], left: Bool) -> (digit: Int, even: Bool, distance: Double, margin: Double) {
        var best = (digit: -1, even: false, distance: Double.infinity), second = Double.infinity
        for d in 0..<10 {
            for even in left ? [false, true] : [false] {
                let l = even ? Array(digitWidths[d].reversed()) : digitWidths[d]
                let distance = zip(m, l).reduce(0) { $0 + abs($1.0 - $1.1) }
                if distance < best.distance {
                    second = best.distance
                    best = (d, even, distance)
                } else if distance < second {
                    second = distance
                }
            }
        }
        return (best.digit, best.even, best.distance, second - best.distance)
    }

    /// Runs of the line that decode as a whole EAN-13 (`long`) or EAN-8: from each element's width
    /// corrected for the ink spread the start guard shows, or (`edges`) from the distances between
    /// similar edges, guards and digits alike, where bars thinned or thickened unevenly along the line
    /// (blur of bars one or two pixels wide) leave the widths unreliable.
    static func decodeRuns(_ elements: [Element], long: Bool, edges: Bool = false) -> [LineSymbol] {
        let n = long ? 59 : 43, modules = long ? 95.0 : 67.0, half = long ? 6 : 4
        let centre = 3 + 4 * half
        let guards = [0, 1, 2, centre, centre + 1, centre + 2, centre + 3, centre + 4, n - 3, n - 2, n - 1]
        var out: [LineSymbol] = []
        for run in Run.all(in: elements, count: n, modules: modules) {
            let module = run.module, e = run.element, width = run.width
            // By the edges, each half's own module (start guard and left digits; centre guard and
            // right digits and end guard): a symbol seen in perspective or on a curve has modules
            // of different widths at its two ends.
            var left = module, right = module
            if edges {
                left = (0..<centre).reduce(0) { $0 + e($1).width } / Double(3 + 7 * half)
                right = (centre..<n).reduce(0) { $0 + e($1).width } / Double(8 + 7 * half)
            }
            let moduleAt = { (k: Int) in k < centre ? left : k >= centre + 5 ? right : (left + right) / 2 }
            if edges {
                // Each guard's neighbouring elements two modules together; no element of it under a
                // quarter or over one and three quarters of a module.
                let groups = [[0, 1, 2], Array(centre..<(centre + 5)), [n - 3, n - 2, n - 1]]
                guard groups.allSatisfy({ g in edgePairs(g.map { e($0).width / moduleAt($0) }).allSatisfy { abs($0 - 2) < 0.6 } }),
                    guards.allSatisfy({ abs(e($0).width / moduleAt($0) - 1) < 0.75 })
                else { continue }
            } else {
                guard guards.allSatisfy({ abs(width($0) / module - 1) < 0.5 }) else { continue }
            }
            // Quiet zones: light of at least three modules on both sides.
            guard run.before >= 3 * left, run.after >= 3 * right else { continue }
            var digits: [Int] = []
            var parities: [Bool] = []
            var clear = true
            for k in 0..<(2 * half) {
                let start = k < half ? 3 + 4 * k : centre + 5 + 4 * (k - half)
                let w = (start..<(start + 4)).map(width)
                let sum = w.reduce(0, +)
                guard sum > 0, abs(sum / moduleAt(start) - 7) < 1.5 else { clear = false; break }
                let d = edges ? nearestDigitByEdges(w.map { $0 * 7 / sum }, left: long && k < half) : nearestDigit(w.map { $0 * 7 / sum }, left: long && k < half)
                guard d.distance <= (edges ? 1.2 : 1.4), d.margin >= 0.5 else { clear = false; break }
                digits.append(d.digit)
                parities.append(d.even)
            }
            guard clear else { continue }
            var symbol: [Int]
            if long {
                guard let firstDigit = ean13Parity.firstIndex(of: Array(parities.prefix(6))) else { continue }
                symbol = [firstDigit] + digits
            } else {
                symbol = digits
            }
            guard checkDigitHolds(symbol) else { continue }
            out.append(LineSymbol(symbology: long ? .ean13 : .ean8, digits: symbol, from: run.from, to: run.to))
        }
        return out
    }

    /// Whether some line decodes, whole, a symbol other than the reading (``decodeLine(_:)``): two
    /// readings of one place that disagree. For UPC-E and EAN-8 readings any EAN-13 counts (the short
    /// symbol's guards were found inside a longer one's bars); an EAN-8 counts against an EAN-13
    /// reading only where it is the whole line's symbol, which ``decodeRuns(_:long:)``'s quiet zones
    /// ensure.
    /// Only symbols that overlap `span` (the reading's extent along the lines) count: a neighbouring
    /// code the lines run on into is another place.
    static func otherSymbol(_ symbology: Symbology, text: String, lines: [[Element]], span: (Double, Double)) -> LineSymbol? {
        guard let own = lineDigits(symbology, text: text) else { return nil }
        for line in lines {
            for s in decodeLine(line) where s.from < span.1 && s.to > span.0 {
                switch symbology {
                case .ean13, .upca, .ean8:
                    if s.digits != own { return s }
                default:
                    if s.symbology == .ean13 { return s }
                }
            }
        }
        return nil
    }
}
