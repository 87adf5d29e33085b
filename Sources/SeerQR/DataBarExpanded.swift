#if canImport(Glibc)
import Glibc
#endif
import SeerImage

/// GS1 DataBar Expanded and Expanded Stacked (ISO/IEC 24724), decoded by Seer from the elements
/// along scan lines.
///
/// A symbol is a row (or, stacked, several rows) of pairs: a data character (8 elements, 17
/// modules), a finder pattern (5 elements, 15 modules) and a second data character; the last pair
/// may lack its second character. The first character is the check character. Each finder is one of
/// six patterns (A–F), drawn as it is (orientation 1) or mirrored (orientation 2), and the sequence
/// of finders names the number of pairs. Each pair is read on its own from its finder outwards, so
/// rows read in either direction, and the rows of a stacked symbol, join by their finders.
///
/// A character's value (0–4 095) comes from its odd and even elements (counted from its outer edge,
/// away from the finder), each a set of widths ranked among the sets of its group. The check
/// character holds 211 × (characters − 4) plus the sum, modulo 211, of every other character's
/// widths weighted by powers of 3 modulo 211 fixed by its place. The data characters' 12-bit values
/// make a bit stream: a linkage flag, an encodation method (AI 01 compressed with weights, prices or
/// dates, or none) and a general-purpose field of numeric, alphanumeric and ISO/IEC 646 modes.
///
/// A symbol is returned only when every character of one finder sequence was read the same way on
/// at least two lines, the check character names the weighted sum and the count, the bit stream
/// decodes to its end, and no other choice of the characters read decodes otherwise.
enum DataBarExpanded {
    /// One data character: its value and its 8 widths in modules, from its outer edge.
    struct Character: Hashable {
        var value: Int
        var widths: [Int]
    }

    /// A pair as one line shows it, in the symbol's own reading direction.
    struct Pair: Hashable {
        /// The finder's pattern, 0–5 for A–F.
        var finder: Int
        /// Orientation 2: the finder mirrored.
        var mirrored: Bool
        var left: Character?
        var right: Character?
        /// Where along the line the pair lies (the line's coordinates).
        var from: Double
        var to: Double

        var key: Int { finder * 2 + (mirrored ? 1 : 0) }
    }

    /// The finder patterns' widths, orientation 1 (the last element, 1, included).
    static let finders: [[Int]] = [[1, 8, 4, 1, 1], [3, 6, 4, 1, 1], [3, 4, 6, 1, 1], [3, 2, 8, 1, 1], [2, 6, 5, 1, 1], [2, 2, 9, 1, 1]]

    /// Each finder as drawn and reversed, in the order ``pairs(_:)`` tries them.
    static let shapes: [(finder: Int, asDrawn: Bool, widths: [Int])] = finders.enumerated().flatMap { f, pattern in
        [(f, true, pattern), (f, false, pattern.reversed())]
    }

    /// The finder sequences by number of pairs (2–11): pair k's finder is mirrored when k is odd.
    static let sequences: [[Int]] = [
        [0, 0], [0, 1, 1], [0, 2, 1, 3], [0, 4, 1, 3, 2], [0, 4, 1, 3, 3, 5], [0, 4, 1, 3, 4, 5, 5],
        [0, 0, 1, 1, 2, 2, 3, 3], [0, 0, 1, 1, 2, 2, 3, 4, 4], [0, 0, 1, 1, 2, 2, 3, 4, 5, 5],
        [0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 5],
    ]

    /// The data characters' groups by odd-element module sum 12, 10, 8, 6, 4: first value, widest
    /// odd element, the odd-element sets used (the first of them in rank order; each holds a narrow
    /// element) and the even-element sets (summing to 17 − odd, widest 9 − odd widest).
    static let groups: [(first: Int, oddWidest: Int, oddSets: Int, evenSets: Int)] = [
        (0, 7, 87, 4), (348, 5, 52, 20), (1388, 4, 30, 52), (2948, 3, 10, 104), (3988, 1, 1, 204),
    ]

    // MARK: Characters

    /// A character's value from its 8 widths (from its outer edge), or nil when they are not one.
    static func characterValue(_ w: [Int]) -> Int? {
        guard w.count == 8, w.reduce(0, +) == 17 else { return nil }
        let odd = [w[0], w[2], w[4], w[6]], even = [w[1], w[3], w[5], w[7]]
        let oddSum = odd.reduce(0, +)
        guard oddSum >= 4, oddSum <= 12, oddSum % 2 == 0 else { return nil }
        let g = groups[(12 - oddSum) / 2]
        guard let vOdd = DataBarLimited.rank(odd, widest: g.oddWidest, needsNarrow: true), vOdd < g.oddSets,
            let vEven = DataBarLimited.rank(even, widest: 9 - g.oddWidest, needsNarrow: false), vEven < g.evenSets
        else { return nil }
        return g.first + vOdd * g.evenSets + vEven
    }

    /// The weight of element `e` (from the outer edge) of the character at weight row `row`: 3 to
    /// the power 8 × row + e, modulo 211.
    static let weights: [[Int]] = {
        var w = 1
        return (0..<24).map { _ in
            (0..<8).map { _ in
                defer { w = w * 3 % 211 }
                return w
            }
        }
    }()

    /// The weight row of a pair's character (nil: the check character, weighed by none).
    static func weightRow(finder: Int, mirrored: Bool, left: Bool) -> Int? {
        let row = 4 * finder + (mirrored ? 2 : 0) + (left ? 0 : 1) - 1
        return row >= 0 ? row : nil
    }

    /// A character's 8 widths from their pixel widths (from the outer edge): each neighbouring
    /// pair's width (edge to edge, which ink spread does not change) in modules of the character's
    /// own size must round clearly; the pairs fix the widths up to the first one, chosen as the only
    /// one giving a valid character, or the one clearly closest to the pixels.
    static func character(_ px: [Double], module expected: Double) -> Character? {
        guard px.count == 8 else { return nil }
        let total = px.reduce(0, +)
        let module = total / 17
        guard module > 0, abs(module / expected - 1) < 0.2 else { return nil }
        var pairs: [Int] = []
        for j in 0..<7 {
            let e = (px[j] + px[j + 1]) / module
            let r = e.rounded()
            guard abs(e - r) <= 0.35, r >= 2 else { return nil }
            pairs.append(Int(r))
        }
        guard pairs[0] + pairs[2] + pairs[4] + pairs[6] == 17 else { return nil }
        var offsets = [0]
        for j in 0..<7 { offsets.append(pairs[j] - offsets[j]) }
        var found: [(Character, Double)] = []
        for first in 1...8 {
            let w = offsets.enumerated().map { $0.offset % 2 == 0 ? first + $0.element : $0.element - first }
            guard w.allSatisfy({ $0 >= 1 && $0 <= 8 }), let value = characterValue(w) else { continue }
            let miss = zip(w, px).reduce(0.0) { $0 + abs(Double($1.0) - $1.1 / module) }
            found.append((Character(value: value, widths: w), miss))
        }
        found.sort { $0.1 < $1.1 }
        guard let best = found.first else { return nil }
        if found.count > 1 && found[1].1 - best.1 < 1.5 { return nil }
        return best.0
    }

    // MARK: Lines

    /// The finder five neighbouring widths show, and whether as drawn: the best of the twelve
    /// shapes, when it misses by less than 0.45 of a module and no other shape comes within 0.3 of
    /// it. A shape's miss is the largest difference from it of two neighbouring widths together, or
    /// of 0.6 × one width, in modules.
    ///
    /// A shape that misses by 0.75 or more cannot change that decision, nor can one that misses by as
    /// much as the second best so far: each is dropped as soon as it does.
    static func finder(_ p: [Double], module: Double) -> (finder: Int, asDrawn: Bool)? {
        var best: (finder: Int, asDrawn: Bool, miss: Double)?
        var second = Double.infinity
        trying: for shape in shapes {
            let q = shape.widths, give = min(second, 0.75)
            var miss = 0.0
            for k in 0..<4 {
                miss = max(miss, abs((p[k] + p[k + 1]) / module - Double(q[k] + q[k + 1])))
                if miss >= give { continue trying }
            }
            for k in 0..<5 {
                miss = max(miss, 0.6 * abs(p[k] / module - Double(q[k])))
                if miss >= give { continue trying }
            }
            if best == nil || miss < best!.miss {
                if let b = best { second = b.miss }
                best = (shape.finder, shape.asDrawn, miss)
            } else {
                second = miss
            }
        }
        guard let best, best.miss < 0.45, second > best.miss + 0.3 else { return nil }
        return (best.finder, best.asDrawn)
    }

    /// The pairs along a line: each finder found, with the characters beside it that read, in the
    /// direction its colours name (a finder in orientation 1 starts with a space, in orientation 2
    /// with a bar, when read the symbol's way).
    static func pairs(_ e: [LinearCheck.Element]) -> [Pair] {
        var out: [Pair] = []
        guard e.count >= 13 else { return out }
        var p = [Double](repeating: 0, count: 5)
        for i in 0...(e.count - 5) {
            for k in 0..<5 { p[k] = e[i + k].width }
            let module = p.reduce(0, +) / 15
            guard module > 0.6, let b = finder(p, module: module) else { continue }
            // Orientation by colour; the line runs the symbol's way when the shape as drawn and a
            // leading space agree.
            let mirrored = e[i].isBar
            let forward = b.asDrawn != e[i].isBar
            var before: Character?, after: Character?
            if i >= 8 { before = character((i - 8..<i).map { e[$0].width }, module: module) }
            if i + 13 <= e.count { after = character((i + 5..<i + 13).reversed().map { e[$0].width }, module: module) }
            guard before != nil || after != nil else { continue }
            let a = e[max(0, i - 8)].start, z = e[min(e.count - 1, i + 12)].start + e[min(e.count - 1, i + 12)].width
            out.append(
                Pair(finder: b.finder, mirrored: mirrored, left: forward ? before : after, right: forward ? after : before, from: a, to: z))
        }
        return out
    }

    // MARK: Joining pairs

    /// What the lines read: for each finder and orientation, the values each side took and on how
    /// many lines.
    struct Votes {
        var left: [Int: [Character: Int]] = [:]
        var right: [Int: [Character: Int]] = [:]
        var lines: [Int: Int] = [:]

        /// Adds the pairs one line read (each finder counted once per line).
        mutating func add(line pairs: [Pair]) {
            var seenLeft = Set<[Int]>(), seenRight = Set<[Int]>(), seen = Set<Int>()
            for p in pairs {
                if seen.insert(p.key).inserted { lines[p.key, default: 0] += 1 }
                if let c = p.left, seenLeft.insert([p.key, c.value]).inserted { left[p.key, default: [:]][c, default: 0] += 1 }
                if let c = p.right, seenRight.insert([p.key, c.value]).inserted { right[p.key, default: [:]][c, default: 0] += 1 }
            }
        }

        var isEmpty: Bool { lines.isEmpty }
    }

    /// The least lines that must read each character.
    static let leastLines = 2

    /// A decoded symbol: its element string (GS after variable-length fields) and the finders
    /// (keys) its pairs used.
    struct Symbol: Equatable {
        var bytes: [UInt8]
        var keys: Set<Int>
    }

    /// The symbol the votes make, or nil when none does or two choices decode differently.
    static func decode(_ votes: Votes) -> Symbol? {
        var results: [Symbol] = []
        // The values a side may take: the most read, and any read nearly as often.
        func choices(_ m: [Character: Int]?) -> [Character] {
            guard let m, let top = m.values.max(), top >= leastLines else { return [] }
            return m.filter { $0.value * 2 > top && $0.value >= leastLines }.map(\.key).sorted { $0.value < $1.value }
        }
        for seq in sequences {
            let keys = seq.enumerated().map { $0.element * 2 + ($0.offset % 2) }
            guard keys.allSatisfy({ votes.lines[$0] != nil }) else { continue }
            // Slots: check, then each pair's characters; the last pair's right may be absent.
            var slots: [[Character?]] = []
            var slotRows: [Int?] = []
            var complete = true
            for (k, key) in keys.enumerated() {
                let l = choices(votes.left[key]), r = choices(votes.right[key])
                if l.isEmpty { complete = false; break }
                slots.append(l)
                slotRows.append(weightRow(finder: key / 2, mirrored: key % 2 == 1, left: true))
                if k == keys.count - 1 {
                    slots.append(r + [nil])
                } else {
                    if r.isEmpty { complete = false; break }
                    slots.append(r)
                }
                slotRows.append(weightRow(finder: key / 2, mirrored: key % 2 == 1, left: false))
            }
            guard complete else { continue }
            // Every combination of the choices (a handful at most).
            var combos: [[Character?]] = [[]]
            for s in slots {
                combos = combos.flatMap { c in s.map { c + [$0] } }
                if combos.count > 64 { return nil }
            }
            for combo in combos {
                guard let check = combo[0] else { continue }
                var sum = 0, count = 1
                var data: [Int] = []
                for (k, c) in combo.enumerated().dropFirst() {
                    guard let c, let row = slotRows[k] else { continue }
                    for e in 0..<8 { sum += c.widths[e] * weights[row][e] }
                    count += 1
                    data.append(c.value)
                }
                // The check character names the count and the weighted sum; a data character is
                // under 4 096.
                guard count >= 4, check.value == 211 * (count - 4) + sum % 211 else { continue }
                guard data.allSatisfy({ $0 < 4096 }) else { continue }
                var bits: [Bool] = []
                for v in data { for b in (0..<12).reversed() { bits.append(v >> b & 1 == 1) } }
                guard let bytes = decodeBits(bits, characters: count) else { continue }
                let symbol = Symbol(bytes: bytes, keys: Set(keys))
                if !results.contains(where: { $0.bytes == bytes }) { results.append(symbol) }
            }
        }
        return results.count == 1 ? results[0] : nil
    }

    // MARK: The bit stream

    /// The element string the data characters' bits hold (FNC1 as GS, none at the end), or nil when
    /// they do not decode to their end.
    static func decodeBits(_ bits: [Bool], characters: Int) -> [UInt8]? {
        var reader = BitReader(bits: bits)
        guard bits.count >= 12 else { return nil }
        var out: [UInt8] = []
        func digits(_ n: Int, _ width: Int) -> [UInt8] {
            var s = Array(String(n).utf8)
            while s.count < width { s.insert(0x30, at: 0) }
            return s
        }
        func gtin(_ first: Int, at pos: Int) -> [UInt8]? {
            var d = [first]
            for k in 0..<4 {
                let v = reader.value(pos + 10 * k, 10)
                guard v < 1000 else { return nil }
                d += [v / 100, v / 10 % 10, v % 10]
            }
            d.append(LinearCheck.gtinCheckDigit(d))
            return Array("01".utf8) + d.map { UInt8(0x30 + $0) }
        }
        // The variable-length field: the count of symbol characters odd, and over 14.
        func lengthField(at pos: Int) -> Bool {
            reader.bit(pos) == (characters % 2 == 1) && reader.bit(pos + 1) == (characters > 14)
        }
        let b = { reader.bit($0) }
        if b(1) {
            // AI 01, any indicator digit, then the general-purpose field.
            guard bits.count >= 48, lengthField(at: 2) else { return nil }
            let first = reader.value(4, 4)
            guard first <= 9, let g = gtin(first, at: 8) else { return nil }
            out = g
            return general(&reader, from: 48, into: out)
        }
        if !b(2) {
            guard lengthField(at: 3) else { return nil }
            return general(&reader, from: 5, into: out)
        }
        switch (b(3), b(4)) {
        case (false, _):
            // 0100: AI 3103; 0101: AI 3202 / 3203; 15 bits of weight, nothing after.
            guard bits.count == 60, let g = gtin(9, at: 5) else { return nil }
            let w = reader.value(45, 15)
            out = g
            if !b(4) {
                guard w <= 99_999 else { return nil }
                out += Array("3103".utf8) + digits(w, 6)
            } else if w < 10_000 {
                out += Array("3202".utf8) + digits(w, 6)
            } else {
                guard w - 10_000 <= 9999 else { return nil }
                out += Array("3203".utf8) + digits(w - 10_000, 6)
            }
            return out
        case (true, false):
            // 01100: AI 392x; 01101: AI 393x with a currency; then the general-purpose field.
            guard bits.count >= 50, lengthField(at: 6), let g = gtin(9, at: 8) else { return nil }
            let x = reader.value(48, 2)
            out = g + Array("392".utf8) + [UInt8(0x30 + x)]
            if !b(5) { return general(&reader, from: 50, into: out) }
            out[out.count - 2] = UInt8(ascii: "3")
            guard bits.count >= 60 else { return nil }
            let currency = reader.value(50, 10)
            guard currency < 1000 else { return nil }
            return general(&reader, from: 60, into: out + digits(currency, 3))
        case (true, true):
            // 0111xyz: AI 310x or 320x (20 bits of weight) and a date (16 bits), nothing after.
            guard bits.count == 84, let g = gtin(9, at: 8) else { return nil }
            let code = reader.value(5, 3)
            let ai = code % 2 == 0 ? "310" : "320"
            let dateAI = ["11", "13", "15", "17"][code / 2]
            let w = reader.value(48, 20)
            guard w / 100_000 <= 9 else { return nil }
            out = g + Array((ai + String(w / 100_000)).utf8) + digits(w % 100_000, 6)
            let d = reader.value(68, 16)
            if d != 38_400 {
                let day = d % 32, month = d / 32 % 12 + 1, year = d / 384
                guard year <= 99 else { return nil }
                out += Array(dateAI.utf8) + digits(year, 2) + digits(month, 2) + digits(day, 2)
            }
            return out
        }
    }

    /// Bits read from a stream (zeros past its end).
    struct BitReader {
        var bits: [Bool]
        var count: Int { bits.count }
        func bit(_ i: Int) -> Bool { i < bits.count && bits[i] }
        func value(_ from: Int, _ n: Int) -> Int {
            var v = 0
            for i in from..<(from + n) { v = v << 1 | (bit(i) ? 1 : 0) }
            return v
        }
    }

    static let gs: UInt8 = 0x1D

    /// The general-purpose field from bit `from` to the end: numeric (pairs of digits or FNC1 in 7
    /// bits), alphanumeric (5 or 6 bits) and ISO/IEC 646 (5, 7 or 8 bits) modes with their latches,
    /// FNC1 returning to numeric. Nil when bits are left that no mode reads.
    static func general(_ r: inout BitReader, from: Int, into start: [UInt8]) -> [UInt8]? {
        enum Mode { case numeric, alpha, iso }
        var out = start, pos = from, mode = Mode.numeric
        let size = r.count
        func fnc1() { out.append(gs) }
        while pos < size {
            switch mode {
            case .numeric:
                if pos + 7 > size {
                    // Four bits: a last digit (value − 1) or nothing.
                    if pos + 4 <= size {
                        let v = r.value(pos, 4)
                        guard v <= 10 else { return nil }
                        if v > 0 { out.append(UInt8(0x30 + v - 1)) }
                        pos = size
                        break
                    }
                    // Fewer: a numeric latch cut short, all zeros.
                    guard r.value(pos, size - pos) == 0 else { return nil }
                    pos = size
                    break
                }
                if r.value(pos, 4) == 0 {
                    mode = .alpha
                    pos += 4
                    break
                }
                let v = r.value(pos, 7)
                guard v >= 8 else { return nil }
                let d1 = (v - 8) / 11, d2 = (v - 8) % 11
                pos += 7
                if d1 == 10 {
                    fnc1()
                    // FNC1 then FNC1 is padding; FNC1 then a digit goes on.
                    if d2 != 10 { out.append(UInt8(0x30 + d2)) }
                } else {
                    out.append(UInt8(0x30 + d1))
                    if d2 == 10 { fnc1() } else { out.append(UInt8(0x30 + d2)) }
                }
            case .alpha, .iso:
                // Latches: 000 to numeric, 00100 between alphanumeric and ISO/IEC 646 (either cut
                // short at the end).
                let left = size - pos
                if left < 5 || r.value(pos, 5) < 5 {
                    if r.value(pos, min(3, left)) == 0 {
                        mode = .numeric
                        pos += 3
                        if pos >= size { pos = size }
                        break
                    }
                    let n = min(5, left)
                    if r.value(pos, n) == 0b00100 >> (5 - n) && n >= 3 {
                        mode = mode == .alpha ? .iso : .alpha
                        pos += 5
                        if pos >= size { pos = size }
                        break
                    }
                    return nil
                }
                let five = r.value(pos, 5)
                if five < 15 {
                    out.append(UInt8(0x30 + five - 5))
                    pos += 5
                    break
                }
                if five == 15 {
                    fnc1()
                    mode = .numeric
                    pos += 5
                    break
                }
                if mode == .alpha {
                    guard pos + 6 <= size else { return nil }
                    let six = r.value(pos, 6)
                    switch six {
                    case 32...57: out.append(UInt8(65 + six - 32))
                    case 58: out.append(UInt8(ascii: "*"))
                    case 59: out.append(UInt8(ascii: ","))
                    case 60: out.append(UInt8(ascii: "-"))
                    case 61: out.append(UInt8(ascii: "."))
                    case 62: out.append(UInt8(ascii: "/"))
                    default: return nil
                    }
                    pos += 6
                } else {
                    guard pos + 7 <= size else { return nil }
                    let seven = r.value(pos, 7)
                    if seven >= 64 && seven < 90 {
                        out.append(UInt8(65 + seven - 64))
                        pos += 7
                    } else if seven >= 90 && seven < 116 {
                        out.append(UInt8(97 + seven - 90))
                        pos += 7
                    } else {
                        guard pos + 8 <= size else { return nil }
                        let eight = r.value(pos, 8)
                        guard eight >= 232 && eight <= 252 else { return nil }
                        out.append(Array("!\"%&'()*+,-./:;<=>?_ ".utf8)[eight - 232])
                        pos += 8
                    }
                }
            }
        }
        while out.last == gs { out.removeLast() }
        return out
    }
}

/// GS1 DataBar Expanded (Stacked) read by Seer itself along lines across the patches of bars
/// (``BarEvidence``), where zbar, which must see a whole symbol's segments along its own scan lines
/// and decodes some encodations wrongly, may read none or a wrong one. Each line's pairs are
/// gathered over every patch (a stacked symbol's rows are patches of their own) and joined by
/// their finders (``DataBarExpanded/decode(_:)``).
extension ReadSession {
    /// The patches looked at, largest first (a stacked symbol's rows, and a long symbol's pieces
    /// between its wide spaces).
    static let dataBarExpandedPatches = 12
    /// Lines sampled across one patch.
    static let dataBarExpandedLines = 15
    /// The long side (pixels) up to which lines take two samples a pixel.
    static let smallImageSide = 800

    mutating func readDataBarExpanded() {
        guard options.symbologies.contains(.databarExpanded), !outOfTime, showsBars(), let (_, scale) = level(.reduced) else { return }
        let patches = openBarPatches.sorted { $0.cells > $1.cells }.prefix(Self.dataBarExpandedPatches)
        guard !patches.isEmpty else { return }
        var votes = DataBarExpanded.Votes()
        // Where each finder's pairs were seen (work coordinates).
        var places: [Int: [Point]] = [:]
        let image = work
        let diagonal = Double(image.width + image.height)
        // A small image may hold modules of one pixel, which samples between pixels blur into grey:
        // two samples a pixel keep them.
        let step = max(image.width, image.height) <= Self.smallImageSide ? 0.5 : 1
        // A patch touching another linear code read is that code's bars.
        let others = linearCodeBoxes(except: .databarExpanded)
        for patch in patches {
            if outOfTime { return }
            let x0 = Double(patch.x0) * scale.0, x1 = Double(patch.x1) * scale.0
            let y0 = Double(patch.y0) * scale.1, y1 = Double(patch.y1) * scale.1
            if Self.patch(patch, scale: scale, touches: others) { continue }
            let centre = Point(x: (x0 + x1) / 2, y: (y0 + y1) / 2)
            let angle = edgeAngle(patch) ?? patch.angle
            let u = Point(x: cos(angle), y: sin(angle)), v = Point(x: -sin(angle), y: cos(angle))
            let w = x1 - x0, h = y1 - y0
            let across = abs(u.x) * w / 2 + abs(u.y) * h / 2
            let along = abs(v.x) * w / 2 + abs(v.y) * h / 2
            // Three short lines first, reaching three times the patch's half width past its middle
            // (a wide space may have cut the symbol's bars apart): a patch where none finds a pair
            // is not DataBar's. Then the whole set, across the photo (a long row's far pairs).
            let probe = Self.dataBarExpandedPairs(
                image, centre: centre, u: u, v: v, reach: min(3 * across + 24, diagonal / 2), step: step,
                offsets: [-0.45, 0, 0.45].map { $0 * along })
            guard !probe.isEmpty else { continue }
            let count = Self.dataBarExpandedLines
            let offsets = (0..<count).map { along * 0.9 * (2 * Double($0) / Double(count - 1) - 1) }
            for (line, points) in Self.dataBarExpandedPairs(image, centre: centre, u: u, v: v, reach: diagonal / 2, step: step, offsets: offsets) {
                votes.add(line: line)
                for (pair, ends) in zip(line, points) { places[pair.key, default: []] += ends }
            }
        }
        guard !votes.isEmpty, let symbol = DataBarExpanded.decode(votes) else {
            if debug && !votes.isEmpty { debugLog("databar-exp lines: finders \(votes.lines.sorted { $0.key < $1.key }), no symbol") }
            return
        }
        let bytes = symbol.bytes
        // A space only here: zbar's readings keep the stricter shape, its decoding of the
        // alphanumeric and ISO/IEC 646 modes being the one that goes wrong.
        guard GS1Syntax.isWellFormed(bytes, allowingSpace: true) else {
            if debug { debugLog("databar-exp lines: not a well-formed GS1 element string: not reported") }
            return
        }
        let points = symbol.keys.flatMap { places[$0] ?? [] }
        guard let xa = points.map(\.x).min(), let xb = points.map(\.x).max(), let ya = points.map(\.y).min(),
            let yb = points.map(\.y).max()
        else { return }
        let corners = [Point(x: xa, y: ya), Point(x: xb, y: ya), Point(x: xb, y: yb), Point(x: xa, y: yb)]
        // Another reading of this place (zbar's, or readings that disagreed before): neither counts.
        let rivals = found.indices.filter {
            !found[$0].raw.symbology.isMatrix && found[$0].raw.bytes != bytes && Self.boxesOverlap(found[$0].corners, corners)
        }
        if !rivals.isEmpty
            || disputed.contains(where: { !$0.symbology.isMatrix && $0.bytes != bytes && Self.boxesOverlap($0.corners, corners) })
        {
            if debug { debugLog("databar-exp lines: \(DecoderInput.gs1(bytes: bytes).hex) and another reading in one place: neither") }
            for i in rivals.reversed() {
                disputed.append((found[i].raw.symbology, found[i].raw.bytes, found[i].corners))
                found.remove(at: i)
            }
            return
        }
        if debug { debugLog("databar-exp lines: \(String(decoding: bytes, as: UTF8.self))") }
        var raw = RawSymbol(symbology: .databarExpanded, bytes: bytes, points: [], quality: votes.lines.values.max() ?? 0, isGS1: true)
        raw.barsAgree = true
        add(raw, corners: corners, module: 0)
    }

    /// The pairs each line finds (with their ends in work coordinates): lines along `u` through
    /// `centre` moved by each of `offsets` along `v`, `reach` pixels either side, sampled every
    /// `step` pixels, read with one level for the whole line and with levels local to 8 samples.
    static func dataBarExpandedPairs(
        _ image: GrayImage, centre: Point, u: Point, v: Point, reach: Double, step: Double, offsets: [Double]
    ) -> [(pairs: [DataBarExpanded.Pair], ends: [[Point]])] {
        let n = Int(2 * reach / step)
        guard n >= 60 else { return [] }
        var out: [(pairs: [DataBarExpanded.Pair], ends: [[Point]])] = []
        image.pixels.withUnsafeBufferPointer { p in
            var values = [Double](repeating: 255, count: n)
            for s in offsets {
                let ox = centre.x + s * v.x - reach * u.x, oy = centre.y + s * v.y - reach * u.y
                for i in 0..<n {
                    let t = Double(i) * step
                    values[i] = Imaging.sampleFloat(p, image.width, image.height, ox + t * u.x, oy + t * u.y)
                }
                var line: [DataBarExpanded.Pair] = []
                for radius in [nil, 8] as [Int?] {
                    line += DataBarExpanded.pairs(LinearCheck.elements(values, offset: 0, radius: radius))
                }
                guard !line.isEmpty else { continue }
                let ends = line.map { pair in
                    [Point(x: ox + pair.from * step * u.x, y: oy + pair.from * step * u.y),
                     Point(x: ox + pair.to * step * u.x, y: oy + pair.to * step * u.y)]
                }
                out.append((line, ends))
            }
        }
        return out
    }
}
