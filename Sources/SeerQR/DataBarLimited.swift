/// GS1 DataBar Limited (ISO/IEC 24724), decoded by Seer from the elements along one scan line.
///
/// The symbol is 74 modules wide and holds 46 elements: a left guard (one space, one bar), a left
/// data character (7 spaces and 7 bars, 26 modules), a check character (14 elements, 18 modules), a
/// right data character (26 modules) and a right guard (one space, one bar, then at least five
/// modules of space). Each data character's value (0–2 013 570) comes from its odd elements (the
/// 1st, 3rd, … read left to right) and its even ones, each a set of widths ranked among all the
/// sets of its group's module sum; the symbol's value is left × 2 013 571 + right: the 13 digits of a
/// GTIN-14 without its check digit (an indicator digit 0 or 1), plus 2 015 133 531 096 when a
/// composite component is linked. The check character's pattern names the sum of the 28 data
/// elements' widths weighted by 3ⁱ mod 89.
///
/// Widths are read from edge-to-edge distances (a bar and the space beside it), which ink spread
/// does not change; a character whose distances do not round clearly to whole modules, or whose
/// widths do not form a character of the standard, is not read. A symbol is returned only when both
/// guards and the space after it hold, the check character is one of the 89 patterns and names the
/// weighted sum, and the value is a 13-digit number with indicator 0 or 1.
enum DataBarLimited {
    /// A symbol decoded from one line.
    struct LineSymbol: Equatable {
        /// The GTIN-14 without its check digit (13 digits, the first 0 or 1).
        var digits: [Int]
        /// Whether a composite component is linked (the value carried the linkage offset).
        var linked: Bool
        /// Where along the line the symbol lies (its guard bars' outer edges, in the line's coordinates).
        var from: Double
        var to: Double

        /// The GTIN-14 with its check digit.
        var gtin: String { (digits + [LinearCheck.gtinCheckDigit(digits)]).map(String.init).joined() }
        /// The text Seer reports: AI (01) and the GTIN-14, as zbar reports GS1 DataBar.
        var text: String { "01" + gtin }
    }

    /// The data characters' groups: first value, odd-element module sum, widest odd element, and the
    /// number of even-element sets (the even elements sum to 26 − odd, widest 9 − odd widest).
    static let groups: [(first: Int, oddModules: Int, oddWidest: Int, evenSets: Int)] = [
        (0, 17, 6, 28), (183_064, 13, 5, 728), (820_064, 9, 3, 6454), (1_000_776, 15, 5, 203),
        (1_491_021, 11, 4, 2408), (1_979_845, 19, 8, 1), (1_996_939, 7, 1, 16632),
    ]
    /// Values a data character takes (0 ..< this).
    static let characterValues = 2_013_571
    /// Added to the symbol's value when a composite component is linked.
    static let linkageOffset = 2_015_133_531_096
    /// The largest value without linkage: 13 digits whose first is 0 or 1.
    static let largestValue = 1_999_999_999_999

    /// The check character's 14 element widths for each checksum 0–88 (ISO/IEC 24724's table; each
    /// has odd and even elements of 9 modules, none wider than 3).
    static let checkPatterns: [[Int]] = [
        "11111111113311", "11111111123211", "11111111133111", "11111112113211", "11111112123111", "11111113113111",
        "11111211113211", "11111211123111", "11111212113111", "11111311113111", "11121111113211", "11121111123111",
        "11121112113111", "11121211113111", "11131111113111", "12111111113211", "12111111123111", "12111112113111",
        "12111211113111", "12121111113111", "13111111113111", "11111111212311", "11111111222211", "11111111232111",
        "11111112212211", "11111112222111", "11111113212111", "11111211212211", "11111211222111", "11111212212111",
        "11111311212111", "11121111212211", "11121111222111", "11121112212111", "11121211212111", "11131111212111",
        "12111111212211", "12111111222111", "12111112212111", "12111211212111", "12121111212111", "13111111212111",
        "11111111311311", "11111111321211", "11111112311211", "11121111311211", "12111111311211", "11111121112311",
        "11111121122211", "11111121132111", "11111122112211", "11121121112211", "11121121122111", "11121122112111",
        "11121221112111", "11131121112111", "12111121112211", "12111121122111", "12121121112111", "11112111112311",
        "11112111122211", "11112111132111", "11112112112211", "11112112122111", "11112211112211", "12112111112211",
        "12112111122111", "12112112112111", "12112211112111", "12122111112111", "13112111112111", "11211111112311",
        "11211111122211", "11211111132111", "11211112112211", "11211112122111", "11211113112111", "11211211112211",
        "11211211122111", "11221111112211", "21111111122211", "21111111132111", "21111112112211", "21111112122111",
        "21111113112111", "21111211122111", "21111212112111", "21121111122111", "21111111221211",
    ].map { $0.compactMap(\.wholeNumberValue) }

    /// The check value of each check pattern, keyed by its widths.
    static let checkValue: [[Int]: Int] = Dictionary(uniqueKeysWithValues: checkPatterns.enumerated().map { ($1, $0) })

    // MARK: Widths to values

    /// `counts[noNarrow][widest][k][s]`: sequences of `k` widths from 1 (from 2 when `noNarrow` is
    /// 1) to `widest` summing to `s`.
    static let counts: [[[[Int]]]] = (0...1).map { noNarrow in
        (0...9).map { widest in
            var c = [[Int]](repeating: [Int](repeating: 0, count: 27), count: 8)
            c[0][0] = 1
            for k in 1...7 {
                for s in 0...26 {
                    var n = 0
                    if widest >= 1 + noNarrow {
                        for w in (1 + noNarrow)...widest where w <= s { n += c[k - 1][s - w] }
                    }
                    c[k][s] = n
                }
            }
            return c
        }
    }

    /// Sequences of `k` widths 1…`widest` summing to `s`, holding a width of 1 when `needsNarrow`.
    static func sets(_ k: Int, _ s: Int, widest: Int, needsNarrow: Bool) -> Int {
        guard s >= 0, s <= 26, k >= 0, k <= 7 else { return 0 }
        let all = counts[0][widest][k][s]
        return needsNarrow ? all - counts[1][widest][k][s] : all
    }

    /// The rank of `widths` among all sequences of its length and sum with widths 1…`widest` (and a
    /// width of 1 somewhere when `needsNarrow`), in lexicographic order; nil when it is not one.
    static func rank(_ widths: [Int], widest: Int, needsNarrow: Bool) -> Int? {
        guard widths.allSatisfy({ $0 >= 1 && $0 <= widest }) else { return nil }
        if needsNarrow && !widths.contains(1) { return nil }
        var left = widths.reduce(0, +), narrowSeen = false, rank = 0
        for (i, w) in widths.enumerated() {
            let rest = widths.count - i - 1
            for v in 1..<w {
                // Sequences that take `v` here and any valid completion after it.
                rank += sets(rest, left - v, widest: widest, needsNarrow: needsNarrow && !narrowSeen && v != 1)
            }
            if w == 1 { narrowSeen = true }
            left -= w
        }
        return rank
    }

    /// A data character's value from its 14 widths in modules (read left to right), or nil.
    static func characterValue(_ w: [Int]) -> Int? {
        guard w.count == 14, w.reduce(0, +) == 26 else { return nil }
        let odd = stride(from: 0, to: 14, by: 2).map { w[$0] }, even = stride(from: 1, to: 14, by: 2).map { w[$0] }
        let oddSum = odd.reduce(0, +)
        guard let g = groups.first(where: { $0.oddModules == oddSum }) else { return nil }
        guard let vOdd = rank(odd, widest: g.oddWidest, needsNarrow: false),
            let vEven = rank(even, widest: 9 - g.oddWidest, needsNarrow: true), vEven < g.evenSets
        else { return nil }
        let value = g.first + vOdd * g.evenSets + vEven
        return value < characterValues ? value : nil
    }

    /// The weighted sum of a character's widths, weights 3ⁱ mod 89 from `first`.
    static func weightedSum(_ w: [Int], first: Int) -> Int {
        var weight = 1
        for _ in 0..<first { weight = weight * 3 % 89 }
        var sum = 0
        for x in w {
            sum += x * weight
            weight = weight * 3 % 89
        }
        return sum
    }

    // MARK: Widths from a line

    /// A character's 14 widths in whole modules from its elements' pixel widths: each bar–space pair's
    /// width (edge to edge) in modules of the character's own size, which must round clearly (within
    /// `tolerance`); the pairs fix the widths up to the first one, which `oddSums` (the sums the odd
    /// elements may have) settles: a step of the first width moves the odd sum by 7.
    static func widths(_ px: ArraySlice<Double>, modules: Int, oddSums: Set<Int>, tolerance: Double = 0.3) -> [Int]? {
        guard px.count == 14 else { return nil }
        let p = Array(px)
        let module = p.reduce(0, +) / Double(modules)
        guard module > 0 else { return nil }
        var pairs: [Int] = []
        for j in 0..<13 {
            let e = (p[j] + p[j + 1]) / module
            let r = e.rounded()
            guard abs(e - r) <= tolerance, r >= 2 else { return nil }
            pairs.append(Int(r))
        }
        // Every other pair covers the character once.
        guard stride(from: 0, to: 13, by: 2).reduce(0, { $0 + pairs[$1] }) == modules else { return nil }
        // Widths as first + offset (even index) or offset − first (odd index).
        var offsets = [0]
        for j in 0..<13 { offsets.append(pairs[j] - offsets[j]) }
        var found: [Int]?
        for first in 1...9 {
            let w = offsets.enumerated().map { $0.offset % 2 == 0 ? first + $0.element : $0.element - first }
            guard w.allSatisfy({ $0 >= 1 && $0 <= 9 }) else { continue }
            guard oddSums.contains(stride(from: 0, to: 14, by: 2).reduce(0, { $0 + w[$1] })) else { continue }
            if found != nil { return nil }
            found = w
        }
        return found
    }

    static let dataOddSums = Set(groups.map(\.oddModules))

    /// Every symbol decoded whole along the line, read either way.
    static func decodeLine(_ line: [LinearCheck.Element]) -> [LineSymbol] {
        var out: [LineSymbol] = []
        for elements in [line, Array(line.reversed())] {
            for s in decodeRuns(elements) where !out.contains(where: { $0.digits == s.digits }) { out.append(s) }
        }
        return out
    }

    /// The symbols whose guard bar is one of the line's bars, read in the line's order.
    static func decodeRuns(_ e: [LinearCheck.Element]) -> [LineSymbol] {
        var out: [LineSymbol] = []
        // The guard bar, 42 character elements, the right guard's space and bar, and the space after.
        let n = 45
        guard e.count >= n + 2 else { return out }
        // Prefix sums of the widths: the ratio tests cost a few subtractions per start.
        var sum = [0.0]
        sum.reserveCapacity(e.count + 1)
        for x in e { sum.append(sum[sum.count - 1] + x.width) }
        for i in 1..<(e.count - n) where e[i].isBar && !e[i - 1].isBar {
            let lw = sum[i + 15] - sum[i + 1], cw = sum[i + 29] - sum[i + 15], rw = sum[i + 43] - sum[i + 29]
            // The characters' widths in the ratio 26 : 18 : 26.
            let module = (lw + cw + rw) / 70
            guard module >= 0.8, abs(lw / 26 / module - 1) < 0.08, abs(rw / 26 / module - 1) < 0.08,
                abs(cw / 18 / module - 1) < 0.1
            else { continue }
            let px = e[i..<(i + n)].map(\.width)
            let left = px[1..<15], check = px[15..<29], right = px[29..<43]
            // The guards: one module each (the right guard's space and bar together two, which ink
            // spread does not change), a space before and at least five modules of space after
            // (four allowed for blur eating into it).
            guard abs(px[0] / module - 1) < 0.6, abs(px[43] / module - 1) < 0.6, abs(px[44] / module - 1) < 0.6,
                abs((px[43] + px[44]) / module - 2) < 0.5
            else { continue }
            guard e[i - 1].width >= 0.6 * module, !e[i + n].isBar, e[i + n].width >= 4 * module else { continue }
            guard let lwid = widths(left, modules: 26, oddSums: dataOddSums),
                let rwid = widths(right, modules: 26, oddSums: dataOddSums),
                let cwid = widths(check, modules: 18, oddSums: [9]),
                let checksum = checkValue[cwid],
                let lv = characterValue(lwid), let rv = characterValue(rwid)
            else { continue }
            guard (weightedSum(lwid, first: 0) + weightedSum(rwid, first: 14)) % 89 == checksum else { continue }
            var value = lv * characterValues + rv
            var linked = false
            if value >= linkageOffset {
                value -= linkageOffset
                linked = true
            }
            guard value <= largestValue else { continue }
            var digits = [Int](repeating: 0, count: 13)
            for k in (0..<13).reversed() {
                digits[k] = value % 10
                value /= 10
            }
            let first = e[i], last = e[i + n - 1]
            let from = min(first.start, last.start), to = max(first.start + first.width, last.start + last.width)
            out.append(LineSymbol(digits: digits, linked: linked, from: from, to: to))
        }
        return out
    }
}

extension LinearCheck {
    /// The GTIN check digit for `digits` (weights 3 and 1 alternating from the last digit, going left).
    static func gtinCheckDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (k, d) in digits.reversed().enumerated() { sum += d * (k % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }
}
