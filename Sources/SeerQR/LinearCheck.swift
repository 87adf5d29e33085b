#if canImport(Glibc)
import Glibc
#endif
import SeerImage

/// A second reading of the linear codes zbar reports, from the bars' widths along several scan
/// lines across the symbol, in a way of its own: zbar decodes each character from the distances
/// between similar edges; this reads each element's own width, corrected for the ink spread the
/// guard patterns show. A reading both agree on is reported; one the widths contradict is not.
///
/// It also decodes Code 128 itself, which zbar cannot fully: zbar drops FNC4, so the extended
/// (ISO-8859-1) characters it encodes come out as ASCII.
enum LinearCheck {
    /// What the bars say about a reading.
    enum Verdict: Equatable {
        /// At least as many scan lines read it as contradict it, and some read it.
        case agrees
        /// More scan lines contradict it than read it (a different character is clearly closer), or
        /// it has no quiet zone where one must be.
        case contradicts
        /// No scan line could be measured well enough either way.
        case unknown
    }

    /// One element (bar or space) along a scan line: where it starts and how wide it is, in pixels.
    struct Element {
        var isBar: Bool
        var start: Double
        var width: Double
    }

    // MARK: Scan lines

    /// Grey profiles along `count` lines across the symbol whose axis-aligned box zbar gave
    /// (`corners`), in the reading direction (`horizontal`: rows), each extended by a quiet margin
    /// on both ends. Returns each profile with the pixel offset of its first sample along the line.
    static func profiles(_ image: GrayImage, corners: [Point], horizontal: Bool, count: Int = 9) -> [(offset: Double, values: [Double])] {
        guard corners.count == 4 else { return [] }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min()!, x1 = xs.max()!, y0 = ys.min()!, y1 = ys.max()!
        let (a0, a1, b0, b1) = horizontal ? (x0, x1, y0, y1) : (y0, y1, x0, x1)
        let length = a1 - a0
        guard length >= 20 else { return [] }
        let pad = max(12, 0.6 * length)
        let limitA = Double(horizontal ? image.width : image.height), limitB = Double(horizontal ? image.height : image.width)
        let start = max(0, a0 - pad), end = min(limitA - 1, a1 + pad)
        // Lines inside the band zbar read; a thin band is widened (bars are taller than a tenth of
        // the symbol's length).
        var lines: [Double] = []
        if b1 - b0 >= 6 {
            lines = (0..<count).map { b0 + (b1 - b0) * (Double($0) + 0.5) / Double(count) }
        } else {
            let centre = (b0 + b1) / 2, step = length / 40
            lines = (0..<count).map { centre + (Double($0) - Double(count - 1) / 2) * step }
        }
        lines = lines.filter { $0 >= 0 && $0 < limitB }
        return image.pixels.withUnsafeBufferPointer { p in
            lines.map { b in
                let n = Int(end - start) + 1
                var values = [Double](repeating: 255, count: max(0, n))
                for i in 0..<values.count {
                    let a = start + Double(i)
                    values[i] =
                        horizontal
                        ? Imaging.sampleFloat(p, image.width, image.height, a, b) : Imaging.sampleFloat(p, image.width, image.height, b, a)
                }
                return (start, values)
            }
        }
    }

    /// The elements along a profile: edges where it crosses the level halfway between the darkest
    /// and lightest samples around it (a window of `radius` samples each way, so blurred narrow
    /// elements that never reach the symbol's extremes still count), placed between samples by
    /// interpolation. Flat stretches (contrast under 24 grey levels) hold no edge.
    static func elements(_ values: [Double], offset: Double, radius: Int? = 8) -> [Element] {
        guard let radius else { return globalElements(values, offset: offset) }
        let n = values.count
        guard n >= 8 else { return [] }
        // Sliding minimum and maximum over [i - radius, i + radius], each kept by a queue of the
        // indices that can still be the window's extreme (each index enters and leaves once).
        var level = [Double](repeating: 0, count: n)
        var contrast = [Double](repeating: 0, count: n)
        values.withUnsafeBufferPointer { v in
            var lows = [Int](repeating: 0, count: n), highs = [Int](repeating: 0, count: n)
            var lowHead = 0, lowTail = 0, highHead = 0, highTail = 0
            var next = 0
            for i in 0..<n {
                while next < n && next <= i + radius {
                    while lowTail > lowHead && v[lows[lowTail - 1]] >= v[next] { lowTail -= 1 }
                    lows[lowTail] = next
                    lowTail += 1
                    while highTail > highHead && v[highs[highTail - 1]] <= v[next] { highTail -= 1 }
                    highs[highTail] = next
                    highTail += 1
                    next += 1
                }
                while lows[lowHead] < i - radius { lowHead += 1 }
                while highs[highHead] < i - radius { highHead += 1 }
                let lo = v[lows[lowHead]], hi = v[highs[highHead]]
                level[i] = (lo + hi) / 2
                contrast[i] = hi - lo
            }
        }
        var out: [Element] = []
        var dark = values[0] < level[0] && contrast[0] >= 24
        var edge = 0.0
        for i in 1..<n {
            let now = contrast[i] >= 24 ? values[i] < level[i] : false
            if now != dark {
                let a = values[i - 1] - level[i - 1], b = values[i] - level[i]
                let t = Double(i - 1) + (a == b ? 0.5 : max(0, min(1, a / (a - b))))
                out.append(Element(isBar: dark, start: offset + edge, width: t - edge))
                edge = t
                dark = now
            }
        }
        out.append(Element(isBar: dark, start: offset + edge, width: Double(n) - edge))
        return out
    }

    /// The `k`-th smallest of `values` (counting from 0), or the `k`-th largest when not
    /// `ascending`: the values sorted that way, at `k`. Keeps the `k + 1` most extreme values seen,
    /// in order (`k` is small: a fiftieth of a line).
    static func orderStatistic(_ values: [Double], _ k: Int, ascending: Bool) -> Double {
        var kept: [Double] = []
        kept.reserveCapacity(k + 1)
        for x in values {
            let key = ascending ? x : -x
            if kept.count == k + 1 {
                guard key < kept[k] else { continue }
                kept.removeLast()
            }
            var j = kept.count
            while j > 0 && kept[j - 1] > key { j -= 1 }
            kept.insert(key, at: j)
        }
        return ascending ? kept[k] : -kept[k]
    }

    /// The elements along a profile with one level for the whole line, halfway between its dark and
    /// light extremes (2nd and 98th percentiles).
    static func globalElements(_ values: [Double], offset: Double) -> [Element] {
        guard values.count >= 8 else { return [] }
        let k = values.count / 50
        let lo = orderStatistic(values, k, ascending: true), hi = orderStatistic(values, k, ascending: false)
        guard hi - lo >= 24 else { return [] }
        let level = (lo + hi) / 2
        var out: [Element] = []
        var dark = values[0] < level
        var edge = 0.0
        for i in 1..<values.count {
            let now = values[i] < level
            if now != dark {
                let a = values[i - 1], b = values[i]
                let t = Double(i - 1) + (level - a) / (b - a)
                out.append(Element(isBar: dark, start: offset + edge, width: t - edge))
                edge = t
                dark = now
            }
        }
        out.append(Element(isBar: dark, start: offset + edge, width: Double(values.count) - edge))
        return out
    }

    // MARK: EAN and UPC

    /// s b s b widths of the left-hand odd-parity (L) digits; even parity (G) is each reversed, and
    /// right-hand (R) digits are the L widths as bar space bar space.
    static let digitWidths: [[Double]] = [
        [3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
        [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2],
    ]

    /// The layout of a member of the EAN/UPC family: elements, modules, and where each digit's four
    /// elements start (element index) with whether it may be written in either parity.
    struct EANLayout {
        var elements: Int
        var modules: Double
        var digitStarts: [Int]
        /// Element indices of the guard patterns' elements (each one module wide).
        var guards: [Int]
        var bothParities: [Bool]
        /// Digits encoded, taken from the reading's text.
        var encoded: (String) -> [Int]?
    }

    static func layout(_ symbology: Symbology, text: String) -> EANLayout? {
        let digits = text.compactMap { $0.wholeNumberValue }
        guard digits.count == text.count else { return nil }
        switch symbology {
        case .ean13, .upca:
            let full = digits.count == 12 ? [0] + digits : digits
            guard full.count == 13 else { return nil }
            let starts = (0..<6).map { 3 + 4 * $0 } + (0..<6).map { 32 + 4 * $0 }
            return EANLayout(
                elements: 59, modules: 95, digitStarts: starts, guards: [0, 1, 2, 27, 28, 29, 30, 31, 56, 57, 58],
                bothParities: (0..<12).map { $0 < 6 },
                encoded: { _ in Array(full.dropFirst()) })
        case .ean8:
            guard digits.count == 8 else { return nil }
            let starts = (0..<4).map { 3 + 4 * $0 } + (0..<4).map { 24 + 4 * $0 }
            return EANLayout(
                elements: 43, modules: 67, digitStarts: starts, guards: [0, 1, 2, 19, 20, 21, 22, 23, 40, 41, 42],
                bothParities: (0..<8).map { _ in false }, encoded: { _ in digits })
        case .upce:
            guard digits.count == 8 else { return nil }
            return EANLayout(
                elements: 33, modules: 51, digitStarts: (0..<6).map { 3 + 4 * $0 }, guards: [0, 1, 2, 27, 28, 29, 30, 31, 32],
                bothParities: (0..<6).map { _ in true },
                encoded: { _ in Array(digits[1...6]) })
        default:
            return nil
        }
    }

    /// Checks an EAN-13, UPC-A, EAN-8 or UPC-E reading against the element widths along `lines`.
    static func checkEAN(_ symbology: Symbology, text: String, lines: [[Element]], log: ((String) -> Void)? = nil) -> Verdict {
        guard let layout = layout(symbology, text: text), let digits = layout.encoded(text) else { return .unknown }
        var agree = 0, contradict = 0
        for line in lines {
            var best: Verdict = .unknown
            for reversed in [false, true] {
                let elements = reversed ? Array(line.reversed()) : line
                let v = checkLine(elements, layout: layout, digits: digits)
                if v == .agrees { best = .agrees } else if v == .contradicts && best == .unknown { best = .contradicts }
            }
            if best == .agrees { agree += 1 } else if best == .contradicts { contradict += 1 }
            log?("line of \(line.count) elements: \(best)")
        }
        if contradict > agree { return .contradicts }
        return agree > 0 ? .agrees : .unknown
    }

    /// One line: finds a run of the layout's elements starting with a bar after a quiet zone whose
    /// guards and digits fit, then compares each digit with the reading.
    static func checkLine(_ elements: [Element], layout: EANLayout, digits: [Int]) -> Verdict {
        var verdict = Verdict.unknown
        let n = layout.elements
        guard elements.count >= n + 2 else { return .unknown }
        for i in 1..<(elements.count - n) where elements[i].isBar {
            let run = Array(elements[i..<(i + n)])
            // Widths summed: on a line read backwards the elements keep their own starts.
            let total = run.reduce(0) { $0 + $1.width }
            let module = total / layout.modules
            guard module >= 0.8 else { continue }
            // The start guard: bar, space, bar of one module each (within the spread).
            let g = run[0].width + run[1].width + run[2].width
            guard abs(g / module - 3) < 1.2 else { continue }
            // Ink spread: how much wider the guard bars are than the guard space, halved.
            let spread = ((run[0].width + run[2].width) / 2 - run[1].width) / 2
            // Every guard element one module wide: the run is aligned with the symbol's structure.
            let aligned = layout.guards.allSatisfy { g in
                let w = run[g].isBar ? run[g].width - spread : run[g].width + spread
                return abs(w / module - 1) < 0.6
            }
            guard aligned else { continue }
            // Quiet zones: light of at least three modules before and after.
            let before = elements[i - 1].width, after = i + n < elements.count ? elements[i + n].width : 0
            let quiet = !elements[i - 1].isBar && before + spread >= 3 * module && (i + n >= elements.count || after + spread >= 3 * module)
            var agreeing = 0, against = 0
            for (k, startIndex) in layout.digitStarts.enumerated() {
                let w = run[startIndex..<(startIndex + 4)].map { $0.isBar ? $0.width - spread : $0.width + spread }
                let sum = w.reduce(0, +)
                guard sum > 0 else { continue }
                let m = w.map { $0 * 7 / sum }
                func distance(_ d: Int) -> Double {
                    let l = digitWidths[d]
                    let straight = zip(m, l).reduce(0) { $0 + abs($1.0 - $1.1) }
                    guard layout.bothParities[k] else { return straight }
                    return min(straight, zip(m, l.reversed()).reduce(0) { $0 + abs($1.0 - $1.1) })
                }
                let read = distance(digits[k])
                let other = (0..<10).filter { $0 != digits[k] }.map(distance).min() ?? .infinity
                if read <= 2 && read <= other + 0.2 { agreeing += 1 }
                if read >= 2 && read - other >= 1.5 { against += 1 }
            }
            if against >= 2 {
                verdict = .contradicts
                continue
            }
            if agreeing == layout.digitStarts.count {
                // Every digit fits, but without quiet zones this is a piece of a longer code.
                return quiet ? .agrees : .contradicts
            }
        }
        return verdict
    }

    // MARK: Code 128

    /// The bar and space widths (in modules) of Code 128's symbol values 0–105; the stop pattern is
    /// 2331112.
    static let code128Patterns: [[Int]] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232",
    ].map { $0.compactMap(\.wholeNumberValue) }

    /// A Code 128 symbol read from its elements.
    struct Code128: Equatable {
        /// The data bytes (FNC4 applied: extended characters are ISO-8859-1 bytes 128–255; FNC1
        /// after the first position is GS, 0x1D).
        var bytes: [UInt8]
        /// FNC1 in first position (GS1-128).
        var gs1: Bool
    }

    /// Decodes Code 128 along each line and returns the reading most lines agree on (nil when none
    /// decodes with a valid check character).
    static func decodeCode128(lines: [[Element]]) -> Code128? {
        var counts: [([UInt8], Bool, Int)] = []
        for line in lines {
            for elements in [line, Array(line.reversed())] {
                guard let r = decodeCode128Line(elements) else { continue }
                if let i = counts.firstIndex(where: { $0.0 == r.bytes && $0.1 == r.gs1 }) { counts[i].2 += 1 } else {
                    counts.append((r.bytes, r.gs1, 1))
                }
                break
            }
        }
        // Two lines reading different valid symbols: neither.
        guard let best = counts.max(by: { $0.2 < $1.2 }), counts.filter({ $0.2 == best.2 }).count == 1 else { return nil }
        if counts.count > 1 && counts.map(\.2).sorted(by: >)[1] * 2 >= best.2 { return nil }
        return Code128(bytes: best.0, gs1: best.1)
    }

    /// ``code128Patterns`` as doubles, six widths per value, and the four sums of adjacent widths
    /// (edge-to-similar-edge distances) per value, laid out flat for the scan over every value.
    static let code128PatternWidths: [Double] = code128Patterns.flatMap { p in p.map(Double.init) }
    static let code128PatternPairs: [Double] = code128Patterns.flatMap { p in (0..<4).map { Double(p[$0] + p[$0 + 1]) } }

    /// The value of six elements (bar space bar space bar space), or nil when no pattern fits well.
    static func code128Value(_ e: ArraySlice<Element>) -> Int? {
        guard e.count == 6 else { return nil }
        let s = e.startIndex
        let w0 = e[s].width, w1 = e[s + 1].width, w2 = e[s + 2].width
        let w3 = e[s + 3].width, w4 = e[s + 4].width, w5 = e[s + 5].width
        let total = 0 + w0 + w1 + w2 + w3 + w4 + w5
        guard total > 0 else { return nil }
        let m = (w0 * 11 / total, w1 * 11 / total, w2 * 11 / total, w3 * 11 / total, w4 * 11 / total, w5 * 11 / total)
        // Edge-to-similar-edge distances are immune to ink spread; the element widths pick between
        // patterns with the same distances.
        let pairs = (m.0 + m.1, m.1 + m.2, m.2 + m.3, m.3 + m.4)
        var best = (value: -1, score: Double.infinity), second = Double.infinity
        code128PatternWidths.withUnsafeBufferPointer { widths in
            code128PatternPairs.withUnsafeBufferPointer { pp in
                for value in 0..<(widths.count / 6) {
                    let q = 4 * value, p = 6 * value
                    var score = 0 + abs(pairs.0 - pp[q]) + abs(pairs.1 - pp[q + 1]) + abs(pairs.2 - pp[q + 2]) + abs(pairs.3 - pp[q + 3])
                    let spread =
                        0 + abs(m.0 - widths[p]) + abs(m.1 - widths[p + 1]) + abs(m.2 - widths[p + 2]) + abs(m.3 - widths[p + 3])
                        + abs(m.4 - widths[p + 4]) + abs(m.5 - widths[p + 5])
                    score += 0.25 * spread
                    if score < best.score {
                        second = best.score
                        best = (value, score)
                    } else if score < second {
                        second = score
                    }
                }
            }
        }
        guard best.score < 2.2, second - best.score > 0.35 else { return nil }
        return best.value
    }

    static func decodeCode128Line(_ elements: [Element]) -> Code128? {
        // Start: a bar after a quiet zone, whose six elements are a start code.
        for i in 1..<max(1, elements.count - 12) where elements[i].isBar && !elements[i - 1].isBar {
            let module = elements[i..<(i + 6)].reduce(0) { $0 + $1.width } / 11
            guard elements[i - 1].width >= 4 * module, let start = code128Value(elements[i..<(i + 6)]), (103...105).contains(start) else {
                continue
            }
            var values = [start]
            var k = i + 6
            var stopped = false
            while k + 7 <= elements.count {
                // The stop pattern: 2 3 3 1 1 1 2.
                let seven = elements[k..<(k + 7)].map(\.width)
                let t7 = seven.reduce(0, +)
                let stop = [2.0, 3, 3, 1, 1, 1, 2]
                if zip(seven.map { $0 * 13 / t7 }, stop).reduce(0, { $0 + abs($1.0 - $1.1) }) < 2.0,
                    abs(t7 / 13 - module) < 0.35 * module
                {
                    stopped = true
                    break
                }
                guard let v = code128Value(elements[k..<(k + 6)]), v < 103 else { return nil }
                values.append(v)
                k += 6
            }
            guard stopped, values.count >= 3 else { continue }
            // The check character.
            let check = values.last!
            var sum = values[0]
            for (j, v) in values.dropFirst().dropLast().enumerated() { sum += (j + 1) * v }
            guard sum % 103 == check else { continue }
            return interpret(Array(values.dropLast()))
        }
        return nil
    }

    /// Symbol values (start code first, check character removed) to data bytes.
    static func interpret(_ values: [Int]) -> Code128? {
        enum CodeSet { case a, b, c }
        var set: CodeSet = values[0] == 103 ? .a : values[0] == 104 ? .b : .c
        var out: [UInt8] = []
        var gs1 = false
        var shiftNext = false, fnc4Next = false, fnc4Latched = false
        for (index, v) in values.dropFirst().enumerated() {
            var current = set
            if shiftNext { current = set == .a ? .b : .a; shiftNext = false }
            func emit(_ byte: Int) {
                var b = byte
                if fnc4Latched != fnc4Next { b += 128 }
                fnc4Next = false
                out.append(UInt8(b))
            }
            switch current {
            case .c:
                switch v {
                case 0...99:
                    out.append(UInt8(0x30 + v / 10))
                    out.append(UInt8(0x30 + v % 10))
                case 100: set = .b
                case 101: set = .a
                case 102: if index == 0 { gs1 = true } else { out.append(0x1D) }
                default: return nil
                }
            case .a, .b:
                let isA = current == .a
                switch v {
                case 0...63: emit(v + 32)
                case 64...95: emit(isA ? v - 64 : v + 32)
                case 96, 97: break  // FNC3, FNC2: no data
                case 98: shiftNext = true
                case 99: set = .c
                case 100:
                    if isA { set = .b } else { fnc4(&fnc4Next, &fnc4Latched, values, index) }
                case 101:
                    if isA { fnc4(&fnc4Next, &fnc4Latched, values, index) } else { set = .a }
                case 102: if index == 0 { gs1 = true } else { out.append(0x1D) }
                default: return nil
                }
            }
        }
        return Code128(bytes: out, gs1: gs1)
    }

    /// FNC4: the next character is extended; two in a row latch (or unlatch) extended mode.
    private static func fnc4(_ next: inout Bool, _ latched: inout Bool, _ values: [Int], _ index: Int) {
        if next {
            latched.toggle()
            next = false
        } else {
            next = true
        }
    }

    // MARK: Code 39

    /// Code 39 Full ASCII: `$`, `%`, `/` and `+` followed by a letter stand for the other ASCII
    /// characters. Nil when the text has no such pair or one that is not defined (then it is plain
    /// Code 39).
    static func code39FullASCII(_ text: String) -> String? {
        let chars = Array(text.unicodeScalars)
        guard chars.contains(where: { "$%/+".unicodeScalars.contains($0) }) else { return nil }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < chars.count {
            let c = chars[i]
            guard "$%/+".unicodeScalars.contains(c) else {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < chars.count else { return nil }
            let next = chars[i + 1].value
            var value: UInt32?
            switch c {
            case "$": if (65...90).contains(next) { value = next - 64 }  // $A–$Z: 1–26
            case "+": if (65...90).contains(next) { value = next + 32 }  // +A–+Z: a–z
            case "/":
                if (65...79).contains(next) { value = next - 32 }  // /A–/O: ! to /
                else if next == 90 { value = 58 }  // /Z: :
            default:  // %
                switch next {
                case 65...69: value = next - 38  // %A–%E: ESC FS GS RS US (27–31)
                case 70...74: value = next - 11  // %F–%J: ; < = > ?
                case 75...79: value = next + 16  // %K–%O: [ \ ] ^ _
                case 80...84: value = next + 43  // %P–%T: { | } ~ DEL
                case 85: value = 0  // %U: NUL
                case 86: value = 64  // %V: @
                case 87: value = 96  // %W: `
                case 88...90: value = 127  // %X–%Z: DEL
                default: value = nil
                }
            }
            guard let value, let scalar = Unicode.Scalar(value) else { return nil }
            out.append(scalar)
            i += 2
        }
        return String(out)
    }
}

// MARK: - Reading by synthesis

extension LinearCheck {
    /// EAN-13's parity of the six left-hand digits (L odd, G even) for each first digit.
    static let ean13Parity: [[Bool]] = [
        "LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL",
    ].map { $0.map { $0 == "G" } }

    /// The 7 modules (true for bar) of a digit: L (odd, left), G (even, left) or R (right).
    static func digitModules(_ d: Int, even: Bool, right: Bool) -> [Bool] {
        var widths = digitWidths[d]
        if even { widths.reverse() }
        var out: [Bool] = []
        var bar = right
        for w in widths {
            out += [Bool](repeating: bar, count: Int(w))
            bar.toggle()
        }
        return out
    }

    /// A symbol's modules, and the module index and allowed parities of each digit slot.
    struct Synthesis {
        var modules: [Bool]
        var slots: [(start: Int, right: Bool, parities: [Bool])]
        var digits: [Int]
    }

    static func synthesis(_ symbology: Symbology, text: String) -> Synthesis? {
        let digits = text.compactMap(\.wholeNumberValue)
        guard digits.count == text.count else { return nil }
        var modules: [Bool] = []
        var slots: [(start: Int, right: Bool, parities: [Bool])] = []
        var encoded: [Int] = []
        func guardPattern(_ p: String) { modules += p.map { $0 == "1" } }
        func digit(_ d: Int, right: Bool, parities: [Bool]) {
            slots.append((modules.count, right, parities))
            encoded.append(d)
            modules += digitModules(d, even: parities[0], right: right)
        }
        switch symbology {
        case .ean13, .upca:
            let full = digits.count == 12 ? [0] + digits : digits
            guard full.count == 13 else { return nil }
            guardPattern("101")
            for k in 0..<6 { digit(full[1 + k], right: false, parities: [ean13Parity[full[0]][k]]) }
            guardPattern("01010")
            for k in 0..<6 { digit(full[7 + k], right: true, parities: [false]) }
            guardPattern("101")
        case .ean8:
            guard digits.count == 8 else { return nil }
            guardPattern("101")
            for k in 0..<4 { digit(digits[k], right: false, parities: [false]) }
            guardPattern("01010")
            for k in 0..<4 { digit(digits[4 + k], right: true, parities: [false]) }
            guardPattern("101")
        case .upce:
            guard digits.count == 8 else { return nil }
            // The parity of each digit follows from the number system and check digit; either is
            // tried here (the digit's identity is what is checked).
            guardPattern("101")
            for k in 0..<6 { digit(digits[1 + k], right: false, parities: [false, true]) }
            guardPattern("010101")
        default:
            return nil
        }
        return Synthesis(modules: modules, slots: slots, digits: encoded)
    }

    /// The correlation between a profile and a rendering of `modules` starting at `start` with
    /// `module` pixels each, blurred by a Gaussian of `sigma` pixels, over the symbol and a margin.
    static func correlation(_ values: [Double], _ modules: [Bool], start: Double, module: Double, sigma: Double) -> Double {
        let n = values.count
        let from = max(0, Int(start - 2 * module)), to = min(n - 1, Int(start + (Double(modules.count) + 2) * module))
        guard to - from > 10 else { return -1 }
        return fit(values, from: from, render(modules, from: from, to: to, start: start, module: module, sigma: sigma))
    }

    /// The correlation of `values[from...]` with a rendering of bar coverage, negated: bars are
    /// dark, so a good fit correlates negatively. -1 where either is flat.
    static func fit(_ values: [Double], from: Int, _ predicted: [Double]) -> Double {
        var so = 0.0, so2 = 0.0, sp = 0.0, sp2 = 0.0, sop = 0.0
        for (k, p) in predicted.enumerated() {
            let o = values[from + k]
            so += o; so2 += o * o; sp += p; sp2 += p * p; sop += o * p
        }
        let c = Double(predicted.count)
        let cov = sop / c - so / c * sp / c
        let vo = so2 / c - (so / c) * (so / c), vp = sp2 / c - (sp / c) * (sp / c)
        guard vo > 1e-9, vp > 1e-9 else { return -1 }
        return -cov / (vo * vp).squareRoot()
    }

    /// Bar coverage of each pixel in from...to (box-integrated), blurred by a Gaussian.
    static func render(_ modules: [Bool], from: Int, to: Int, start: Double, module: Double, sigma: Double) -> [Double] {
        let count = to - from + 1
        var coverage = [Double](repeating: 0, count: count)
        for (k, bar) in modules.enumerated() where bar {
            let a = start + Double(k) * module, b = a + module
            var x = max(from, Int(a.rounded(.down)))
            while x <= min(to, Int(b.rounded(.up))) {
                let overlap = min(b, Double(x) + 1) - max(a, Double(x))
                if overlap > 0 { coverage[x - from] += overlap }
                x += 1
            }
        }
        guard sigma > 0.3 else { return coverage }
        let radius = Int((3 * sigma).rounded(.up))
        let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        var out = [Double](repeating: 0, count: count)
        for i in 0..<count {
            var acc = 0.0
            for (j, w) in kernel.enumerated() {
                let k = min(count - 1, max(0, i + j - radius))
                acc += w * coverage[k]
            }
            out[i] = acc / total
        }
        return out
    }

    /// Checks an EAN/UPC reading by rendering it: the placement (start, module width, blur) that
    /// fits each line best, then, digit by digit, whether another digit would fit better. A digit
    /// that another fits better on most lines (or by far on any) contradicts the reading, however
    /// small the margin on each; so does a left-hand digit of the other parity (another first digit
    /// of an EAN-13). Works where bars are too thin or blurred for their edges to be found, as long as
    /// the line shows them at all.
    static func checkBySynthesis(
        _ symbology: Symbology, text: String, profiles: [(offset: Double, values: [Double])], span: (Double, Double),
        log: ((String) -> Void)? = nil
    ) -> Verdict {
        guard let synthesis = synthesis(symbology, text: text) else { return .unknown }
        var fitted = 0, clean = 0, good = 0, enclosed = 0
        var againstCount = [Int](repeating: 0, count: synthesis.slots.count)
        var strong = false
        for profile in profiles {
            var best: (fit: Double, against: [(Int, Double)], quiet: Bool)?
            for reversed in [false, true] {
                let values = reversed ? Array(profile.values.reversed()) : profile.values
                let total = Double(values.count)
                // zbar's box, in this profile's coordinates.
                var a = span.0 - profile.offset, b = span.1 - profile.offset
                if reversed { (a, b) = (total - b, total - a) }
                if let r = checkProfile(values, synthesis: synthesis, near: (a, b)), r.fit > (best?.fit ?? -2) { best = r }
            }
            guard let best, best.fit >= 0.6 else { continue }
            log?("synthesis line: fit \(String(format: "%.3f", best.fit)), digits against \(best.against.map { "\($0.0):\(String(format: "%.3f", $0.1))" })")
            fitted += 1
            // A short symbol (UPC-E, EAN-8) on a line with bars running on past its guards is a
            // piece of a longer one. (Not asked of EAN-13 and UPC-A: their outer digits are printed
            // in the quiet zones, beside the lower bars.)
            let short = symbology == .upce || symbology == .ean8
            if short && !best.quiet { enclosed += 1 }
            if best.against.isEmpty && best.fit >= 0.65 && (best.quiet || !short) { clean += 1 }
            // Only a line the rendering fits well is evidence against a digit (on a poor fit the
            // digits' margins are noise).
            guard best.fit >= 0.7 else { continue }
            good += 1
            for (k, margin) in best.against {
                againstCount[k] += 1
                if margin > 0.08 && best.fit >= 0.8 { strong = true }
            }
        }
        let consistent = againstCount.contains { good >= 3 && $0 * 2 > good }
        log?("synthesis: \(fitted) lines fitted, \(clean) clean, \(enclosed) without quiet zones, against by digit \(againstCount)")
        if strong || consistent || (enclosed > 0 && enclosed * 2 >= fitted) { return .contradicts }
        return clean > 0 && clean * 2 >= fitted ? .agrees : .unknown
    }

    /// One line's best placement of the rendering near `span`, and the digits another digit fits
    /// better, with the margin (difference of correlations).
    static func checkProfile(_ values: [Double], synthesis: Synthesis, near span: (Double, Double)) -> (fit: Double, against: [(Int, Double)], quiet: Bool)? {
        let count = Double(synthesis.modules.count)
        let width = span.1 - span.0
        guard width > count * 0.8 else { return nil }
        // Placement: coarse grid over start and module width, then finer, then the blur.
        var best = (corr: -2.0, start: span.0, module: width / count, sigma: 0.5 * width / count)
        func consider(_ start: Double, _ module: Double, _ sigma: Double) {
            let c = correlation(values, synthesis.modules, start: start, module: module, sigma: sigma)
            if c > best.corr { best = (c, start, module, sigma) }
        }
        let m0 = width / count
        for dm in stride(from: -0.08, through: 0.08, by: 0.02) {
            for ds in stride(from: -3.0, through: 3.0, by: 1.0) { consider(span.0 + ds * m0, m0 * (1 + dm), 0.5 * m0) }
        }
        let coarse = best
        for dm in stride(from: -0.01, through: 0.01, by: 0.005) {
            for ds in stride(from: -0.5, through: 0.5, by: 0.25) {
                consider(coarse.start + ds * coarse.module, coarse.module * (1 + dm), coarse.sigma)
            }
        }
        for f in [0.25, 0.4, 0.65, 0.8, 1.0] { consider(best.start, best.module, f * best.module) }
        guard best.corr >= 0.6 else { return (best.corr, [], false) }
        let quiet = quietZones(values, start: best.start, end: best.start + count * best.module, module: best.module, sigma: best.sigma)
        var against: [(Int, Double)] = []
        for (k, slot) in synthesis.slots.enumerated() {
            var modules = synthesis.modules
            var own = -2.0
            for even in slot.parities {
                modules.replaceSubrange(slot.start..<(slot.start + 7), with: digitModules(synthesis.digits[k], even: even, right: slot.right))
                own = max(own, correlation(values, modules, start: best.start, module: best.module, sigma: best.sigma))
            }
            // Rivals: every other digit, and on the left every digit in either parity (a different
            // parity is a different first digit for EAN-13).
            var rival = -2.0
            for d in 0..<10 {
                for even in slot.right ? [false] : [false, true] where d != synthesis.digits[k] || !slot.parities.contains(even) {
                    modules.replaceSubrange(slot.start..<(slot.start + 7), with: digitModules(d, even: even, right: slot.right))
                    rival = max(rival, correlation(values, modules, start: best.start, module: best.module, sigma: best.sigma))
                }
            }
            if rival - own > 0.015 { against.append((k, rival - own)) }
        }
        return (best.corr, against, quiet)
    }

    /// Whether the profile is light for three modules beyond each end of a symbol placed at
    /// `start`..`end` (past the blur of its outer bars): no sample there darker than a third of the
    /// way from the symbol's light level to its dark one. Bars that continue past the guards (a
    /// short symbol found inside a longer one's bars) fail. Where the photo ends first, what it shows
    /// of the zone must be light (a code at the photo's edge has nothing beyond it).
    static func quietZones(_ values: [Double], start: Double, end: Double, module: Double, sigma: Double) -> Bool {
        let n = values.count
        let a = max(0, Int(start.rounded(.down))), b = min(n - 1, Int(end.rounded(.up)))
        guard b - a > 10 else { return false }
        let inside = values[a...b].sorted()
        let dark = inside[inside.count / 20], light = inside[inside.count - 1 - inside.count / 20]
        guard light - dark > 10 else { return false }
        let limit = light - (light - dark) / 3
        let gap = max(0.6 * module, 2 * sigma)
        for (from, to) in [(start - gap - 3 * module, start - gap), (end + gap, end + gap + 3 * module)] {
            let i0 = max(0, Int(from.rounded(.down))), i1 = min(n - 1, Int(to.rounded(.up)))
            guard i1 > i0 else { continue }
            if values[i0...i1].contains(where: { $0 < limit }) { return false }
        }
        return true
    }
}
