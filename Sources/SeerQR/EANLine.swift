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

    /// Every EAN-13 and EAN-8 symbol decoded whole on this line (read either way).
    static func decodeLine(_ line: [Element]) -> [LineSymbol] {
        var out: [LineSymbol] = []
        for elements in [line, Array(line.reversed())] {
            for long in [true, false] {
                for s in decodeRuns(elements, long: long) where !out.contains(where: { $0.digits == s.digits }) { out.append(s) }
            }
        }
        return out
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

    /// Runs of the line that decode as a whole EAN-13 (`long`) or EAN-8.
    static func decodeRuns(_ elements: [Element], long: Bool) -> [LineSymbol] {
        let n = long ? 59 : 43, modules = long ? 95.0 : 67.0, half = long ? 6 : 4
        let centre = 3 + 4 * half
        let guards = [0, 1, 2, centre, centre + 1, centre + 2, centre + 3, centre + 4, n - 3, n - 2, n - 1]
        var out: [LineSymbol] = []
        guard elements.count >= n + 2 else { return out }
        for i in 1..<(elements.count - n) where elements[i].isBar && !elements[i - 1].isBar {
            let run = elements[i..<(i + n)]
            let first = run[run.startIndex], last = run[run.endIndex - 1]
            // Widths summed: on a line read backwards the elements keep their own starts.
            let module = run.reduce(0) { $0 + $1.width } / modules
            let from = min(first.start, last.start), to = max(first.start + first.width, last.start + last.width)
            guard module >= 0.8 else { continue }
            let e = { (k: Int) in run[run.startIndex + k] }
            let spread = ((e(0).width + e(2).width) / 2 - e(1).width) / 2
            let width = { (k: Int) in e(k).isBar ? e(k).width - spread : e(k).width + spread }
            guard guards.allSatisfy({ abs(width($0) / module - 1) < 0.5 }) else { continue }
            // Quiet zones: light of at least three modules on both sides.
            let before = elements[i - 1].width + spread
            guard i + n < elements.count, !elements[i + n].isBar else { continue }
            let after = elements[i + n].width + spread
            guard before >= 3 * module, after >= 3 * module else { continue }
            var digits: [Int] = []
            var parities: [Bool] = []
            var clear = true
            for k in 0..<(2 * half) {
                let start = k < half ? 3 + 4 * k : centre + 5 + 4 * (k - half)
                let w = (start..<(start + 4)).map(width)
                let sum = w.reduce(0, +)
                guard sum > 0, abs(sum / module - 7) < 1.5 else { clear = false; break }
                let d = nearestDigit(w.map { $0 * 7 / sum }, left: long && k < half)
                guard d.distance <= 1.4, d.margin >= 0.5 else { clear = false; break }
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
            out.append(LineSymbol(symbology: long ? .ean13 : .ean8, digits: symbol, from: from, to: to))
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
