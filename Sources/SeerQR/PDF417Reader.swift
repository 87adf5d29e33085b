import Foundation
import SeerImage

/// Finds PDF417 symbols by their start (bar-space widths 8 1 1 1 1 1 1 3) and stop (7 1 1 3 1 1 1 2 1)
/// patterns on the rows and columns of the reduced image, reads each row's codewords along lines
/// between the two patterns, places them by the row indicators and corrects them with
/// Reed–Solomon over GF(929).
enum PDF417Locator {
    /// A start or stop pattern crossed by one scan line.
    struct Hit {
        /// The scan line (row or column index) and the pattern's outer edge along it.
        var line: Int
        var edge: Double
        /// Pixels per module along the line.
        var module: Double
        var isStart: Bool
        /// For a MicroPDF417 side: whether the codeword next to the RAP is one of the table's (or
        /// only eight runs of codeword-like widths).
        var strong = true
        /// For a MicroPDF417 side: whether its RAP matched only by the sums of neighbouring runs (a
        /// blurred side); such sides are paired only when no symbol was read otherwise.
        var bySums = false
    }

    /// A chain of hits on successive lines: one side of a symbol.
    struct Chain {
        var hits: [Hit]
        var module: Double { hits.map(\.module).reduce(0, +) / Double(hits.count) }
        var first: Hit { hits[0] }
        var last: Hit { hits[hits.count - 1] }
    }

    static let start: [Double] = [8, 1, 1, 1, 1, 1, 1, 3]
    static let stop: [Double] = [7, 1, 1, 3, 1, 1, 1, 2, 1]

    /// Whether the runs `widths` have the ratios of `pattern` (total modules `sum`); the module size.
    /// The runs match when each has its width, or when each bar and the space after it (each
    /// space and the bar after it) have their sum: a blurred or unevenly lit pattern, whose threshold
    /// widens every bar and narrows every space by the same amount, keeps those sums.
    @inline(__always)
    static func matches(_ widths: UnsafeBufferPointer<Int32>, from i: Int, _ pattern: [Double], sum: Double, reversed: Bool) -> Double? {
        let n = pattern.count
        var total = 0
        for k in 0..<n { total += Int(widths[i + k]) }
        let u = Double(total) / sum
        guard u >= 0.8 else { return nil }
        @inline(__always) func element(_ k: Int) -> Double { pattern[reversed ? n - 1 - k : k] }
        var widthsMatch = true
        for k in 0..<n {
            let e = element(k)
            if abs(Double(widths[i + k]) - e * u) > max(0.5 * u + 0.5, 0.25 * e * u) {
                widthsMatch = false
                break
            }
        }
        if widthsMatch { return u }
        for k in 0..<(n - 1) {
            let e = element(k) + element(k + 1)
            if abs(Double(widths[i + k] + widths[i + k + 1]) - e * u) > max(0.5 * u + 0.5, 0.2 * e * u) { return nil }
        }
        return u
    }

    /// Inside a bar wider than the threshold's window (a start pattern's 8 modules where the symbol
    /// fills a short line) the window's mean is the bar's own grey, and the bar is cut into a dark
    /// run, a light one and a dark one. Such a light run, of 2 pixels or more, whose middle is no
    /// lighter than the middles of the dark runs either side (within 8 levels), is joined with them:
    /// a true space is lighter than the bars around it. MicroPDF417 has no wide bar: its sides are
    /// looked for in the runs before.
    static func joinSplitBars(_ r: [Int32], _ widths: inout [Int32], _ starts: inout [Int32], _ dark: inout [Bool]) {
        let n = widths.count
        guard n >= 3 else { return }
        func middle(_ k: Int) -> Int32 { r[Int(starts[k] + widths[k] / 2)] }
        // Runs kept are moved down to `kept`; a joined bar grows in place.
        var kept = 1, k = 1
        while k < n {
            if k + 1 < n, !dark[k], dark[kept - 1], dark[k + 1], widths[k] >= 2,
                middle(k) <= min(middle(kept - 1), middle(k + 1)) + 8
            {
                widths[kept - 1] += widths[k] + widths[k + 1]
                k += 2
                continue
            }
            widths[kept] = widths[k]
            starts[kept] = starts[k]
            dark[kept] = dark[k]
            kept += 1
            k += 1
        }
        widths.removeLast(n - kept)
        starts.removeLast(n - kept)
        dark.removeLast(n - kept)
    }

    /// Scans `count` lines of `length` pixels (`pixel(line, i)`), every `step` lines, for the
    /// patterns read forwards (`forward`) or backwards.
    static func scan(
        _ px: UnsafeBufferPointer<UInt8>, lines count: Int, length: Int, lineStride: Int, pixelStride: Int, step: Int,
        pdf417: Bool = true, micro: Bool = false
    ) -> (forward: [Hit], backward: [Hit], microForward: [Hit], microBackward: [Hit]) {
        var forward: [Hit] = [], backward: [Hit] = []
        var microForward: [Hit] = [], microBackward: [Hit] = []
        var row = [Int32](repeating: 0, count: length)
        var prefix = [Int32](repeating: 0, count: length + 1)
        var widths = [Int32](), starts = [Int32](), dark = [Bool]()
        let half = max(8, length / 32)
        for line in stride(from: 0, to: count, by: step) {
            let base = line * lineStride
            widths.removeAll(keepingCapacity: true)
            starts.removeAll(keepingCapacity: true)
            dark.removeAll(keepingCapacity: true)
            var prev = false
            var runStart = 0
            row.withUnsafeMutableBufferPointer { r in
                prefix.withUnsafeMutableBufferPointer { p in
                    var acc: Int32 = 0
                    p[0] = 0
                    for i in 0..<length {
                        let v = Int32(px[base + i * pixelStride])
                        r[i] = v
                        acc += v
                        p[i + 1] = acc
                    }
                    for i in 0..<length {
                        let a = i > half ? i - half : 0, b = i + half + 1 < length ? i + half + 1 : length
                        let span = Int32(b - a)
                        // Darker than the window's mean by 4 levels, without dividing.
                        let d = r[i] * span < p[b] - p[a] - 4 * span
                        if i == 0 { prev = d; continue }
                        if d != prev {
                            widths.append(Int32(i - runStart)); starts.append(Int32(runStart)); dark.append(prev)
                            runStart = i
                            prev = d
                        }
                    }
                }
            }
            widths.append(Int32(length - runStart)); starts.append(Int32(runStart)); dark.append(prev)
            // MicroPDF417's sides, on every other line scanned (its rows are at least two modules
            // high and a symbol at least four rows).
            if micro && widths.count >= 15 && (line / step) % 2 == 0 {
                widths.withUnsafeBufferPointer { w in
                    starts.withUnsafeBufferPointer { st in
                        MicroPDF417Locator.edges(w, starts: st, dark: dark, line: line, forward: &microForward, backward: &microBackward)
                    }
                }
            }
            guard pdf417 else { continue }
            Self.joinSplitBars(row, &widths, &starts, &dark)
            let n = widths.count
            guard n >= 9 else { continue }
            widths.withUnsafeBufferPointer { w in
                for i in 0..<(n - 7) {
                    // Forwards: start and stop begin with a bar; backwards the start begins with its
                    // 3-module space and the stop with its 1-module bar.
                    if dark[i] {
                        // Quick reject on the wide bar before the full test.
                        let w0 = Double(w[i])
                        if w0 >= 5, let u = matches(w, from: i, start, sum: 17, reversed: false), w0 > 6 * u {
                            forward.append(Hit(line: line, edge: Double(starts[i]), module: u, isStart: true))
                        }
                        if w0 >= 5, i + 8 < n, let u = matches(w, from: i, stop, sum: 18, reversed: false) {
                            forward.append(Hit(line: line, edge: Double(starts[i + 8] + w[i + 8]), module: u, isStart: false))
                        }
                        if i + 8 < n, w[i + 8] >= 5, let u = matches(w, from: i, stop, sum: 18, reversed: true) {
                            backward.append(Hit(line: line, edge: Double(starts[i]), module: u, isStart: false))
                        }
                    } else if w[i + 7] >= 5, let u = matches(w, from: i, start, sum: 17, reversed: true) {
                        backward.append(Hit(line: line, edge: Double(starts[i + 7] + w[i + 7]), module: u, isStart: true))
                    }
                }
            }
        }
        return (forward, backward, microForward, microBackward)
    }

    /// Groups hits of one kind into chains down successive lines.
    static func chains(_ hits: [Hit], step: Int) -> [Chain] {
        var chains: [Chain] = []
        for h in hits {  // in line order
            var best: Int?
            for (ci, c) in chains.enumerated() where c.last.line < h.line && h.line - c.last.line <= 8 * step {
                if abs(c.last.edge - h.edge) <= max(2, 2 * h.module), abs(c.last.module - h.module) <= 0.5 * h.module {
                    best = ci
                    break
                }
            }
            if let best { chains[best].hits.append(h) } else { chains.append(Chain(hits: [h])) }
        }
        // Pieces of one side broken by a mark or a glare: joined when the later one starts where the
        // earlier one ends, within a gap of 20 modules.
        var merged: [Chain] = []
        for c in chains.filter({ $0.hits.count >= 3 }) {
            if let i = merged.lastIndex(where: { m in
                let gap = Double(c.first.line - m.last.line)
                return gap > 0 && gap <= 20 * m.module && abs(c.first.edge - m.last.edge) <= max(2, 2 * m.module)
                    && abs(c.module - m.module) <= 0.3 * m.module
            }) {
                merged[i].hits += c.hits
            } else {
                merged.append(c)
            }
        }
        return merged
    }
}

extension PDF417Locator {
    /// The rows of a symbol turned against the scan lines run across its sides: each end of one
    /// side's edge `a` carried along the perpendicular to the line through the other side's edge
    /// `b` (two points of it), and the factor by which the perpendicular is shorter than the scan
    /// line (rows of the image with `horizontal`, else columns) between the two edges.
    static func across(_ a: [Point], to b: [Point], horizontal: Bool) -> (b: [Point], shortening: Double)? {
        let d = Point(x: a[0].y - a[1].y, y: a[1].x - a[0].x)
        let ends = a.compactMap { AztecReader.intersect(($0, d), (b[0], Point(x: b[1].x - b[0].x, y: b[1].y - b[0].y))) }
        let length = (d.x * d.x + d.y * d.y).squareRoot()
        guard ends.count == 2, length > 0 else { return nil }
        return (ends, abs(horizontal ? d.x : d.y) / length)
    }

    /// A chain's edge as a straight function of the scan line (least squares): its slope, and the
    /// edge at a line.
    static func line(_ c: Chain) -> (slope: Double, edge: (Int) -> Double) {
        let n = Double(c.hits.count)
        let ml = c.hits.map { Double($0.line) }.reduce(0, +) / n
        let me = c.hits.map(\.edge).reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for h in c.hits { sxy += (Double(h.line) - ml) * (h.edge - me); sxx += (Double(h.line) - ml) * (Double(h.line) - ml) }
        let slope = sxx > 0 ? sxy / sxx : 0
        return (slope, { me + slope * (Double($0) - ml) })
    }
}

/// One symbol's reading: codewords placed in their rows and columns by the row indicators.
struct PDF417Grid {
    var rows = 0, columns = 0, ecLevel = 0
    /// Votes per cell: value → count.
    var votes: [[Int: Int]] = []
}

extension PDF417Locator {
    /// The eight element widths of the codeword whose runs are `edges` (nine boundaries, in modules
    /// along the line), as a packed pattern; nil when they do not make 17 modules of widths 1–6.
    static func pattern(_ edges: ArraySlice<Double>) -> UInt32? {
        let e0 = edges.startIndex
        guard edges.count == 9 else { return nil }
        let total = edges[e0 + 8] - edges[e0]
        guard total > 13, total < 21 else { return nil }
        return roundedWidths(elements: 8, modules: 17, widest: 6, total: total) { edges[e0 + $0 + 1] - edges[e0 + $0] }
    }

    /// The widths of `elements` runs (`run(k)` long, `total` in all), scaled to `modules` in all
    /// and rounded to whole modules that sum to it (the widths rounded furthest give way), packed four
    /// bits each, the first highest; nil when one is wider than `widest`. Allocates nothing.
    @inline(__always)
    static func roundedWidths(elements: Int, modules: Int, widest: Int, total: Double, run: (Int) -> Double) -> UInt32? {
        guard total > 0 else { return nil }
        let scale = Double(modules) / total
        return withUnsafeTemporaryAllocation(of: (width: Int, fraction: Double).self, capacity: elements) { w -> UInt32? in
            var sum = 0
            for k in 0..<elements {
                let x = run(k) * scale
                let r = max(1, Int(x.rounded()))
                w[k] = (r, x - Double(r))
                sum += r
            }
            while sum != modules {
                // The first of the widths rounded furthest up (of those above one) loses a module,
                // or the first rounded furthest down gains one.
                var best = -1
                for k in 0..<elements {
                    if sum > modules {
                        if w[k].width > 1, best < 0 || w[k].fraction < w[best].fraction { best = k }
                    } else if best < 0 || w[k].fraction > w[best].fraction {
                        best = k
                    }
                }
                guard best >= 0 else { return nil }
                let d = sum > modules ? -1 : 1
                w[best].width += d
                w[best].fraction -= Double(d)
                sum += d
            }
            var p: UInt32 = 0
            for k in 0..<elements {
                guard w[k].width <= widest else { return nil }
                p = p << 4 | UInt32(w[k].width)
            }
            return p
        }
    }

    /// The widths again from the distances between similar edges (bar start to bar start, space
    /// start to space start), which ink spread and blur change less than the elements themselves.
    static func edgePattern(_ edges: ArraySlice<Double>) -> (cluster: Int, value: Int)? {
        let e0 = edges.startIndex
        guard edges.count == 9 else { return nil }
        let total = edges[e0 + 8] - edges[e0]
        guard total > 13, total < 21 else { return nil }
        return sumsCodeword { edges[e0 + $0 + 1] - edges[e0 + $0] }
    }

    /// The codeword of eight runs (`run(k)` long) from the sums of neighbouring runs.
    @inline(__always)
    static func sumsCodeword(run: (Int) -> Double) -> (cluster: Int, value: Int)? {
        var found: (cluster: Int, value: Int)?
        let p = edgeWidths(elements: 8, modules: 17, widest: 6, run: run) { p in
            found = lookup(p)
            return found != nil
        }
        return p == nil ? nil : found
    }

    /// The widths of `elements` runs (`run(k)` long, an even number of them), in whole modules of
    /// `modules` in all, from the sums of neighbouring runs, packed four bits each as
    /// ``roundedWidths(elements:modules:widest:total:run:)`` packs them. Allocates nothing: the MicroPDF417
    /// locator asks this of many runs.
    ///
    /// Each such sum spans two similar edges, so a threshold that widens every bar and narrows every
    /// space by δ leaves it as it is; the sums fix every width but for that one shift, bars +x and
    /// spaces −x. The shift the runs show (δ and all) is tried, and a module either side of it: the
    /// widths are those of the one shift whose widths are 1 to `widest` and `isValid` (a pattern of
    /// the table); nil when none or two are.
    @inline(__always)
    static func edgeWidths(elements: Int, modules: Int, widest: Int, run: (Int) -> Double, isValid: (UInt32) -> Bool) -> UInt32? {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: elements) { c -> UInt32? in
            var total = 0.0
            for k in 0..<elements { total += run(k) }
            guard total > 0 else { return nil }
            let scale = Double(modules) / total
            // w[k] = c[k] + s[k]·x, s alternating +1, −1 (bars +x, spaces −x).
            c[0] = 0
            for k in 0..<(elements - 1) { c[k + 1] = Int(((run(k) + run(k + 1)) * scale).rounded()) - c[k] }
            var sum = 0, acc = 0.0
            for k in 0..<elements {
                sum += c[k]
                let measured = run(k) * scale - Double(c[k])
                acc += k % 2 == 0 ? measured : -measured
            }
            guard sum == modules else { return nil }
            let x0 = Int((acc / Double(elements)).rounded())
            var found: UInt32?
            for step in 0..<3 {
                let x = step == 0 ? x0 : step == 1 ? x0 - 1 : x0 + 1
                var p: UInt32 = 0
                var fits = true
                for k in 0..<elements {
                    let w = c[k] + (k % 2 == 0 ? x : -x)
                    guard w >= 1, w <= widest else {
                        fits = false
                        break
                    }
                    p = p << 4 | UInt32(w)
                }
                guard fits, isValid(p) else { continue }
                if found != nil { return nil }
                found = p
            }
            return found
        }
    }

    /// The codeword whose nine boundaries are `edges`, read from its element widths and again from
    /// its edge-to-similar-edge distances; when both read a codeword and they differ, neither is
    /// taken (an erasure costs Reed–Solomon half of what an error does).
    static func codeword(_ edges: ArraySlice<Double>) -> (cluster: Int, value: Int)? {
        let direct = pattern(edges).flatMap(lookup), fromEdges = edgePattern(edges)
        guard let direct else { return fromEdges }
        guard let fromEdges else { return direct }
        return direct == fromEdges ? direct : nil
    }

    /// The cluster (0, 1, 2 for 0, 3, 6) and value of a packed pattern.
    static func lookup(_ p: UInt32) -> (cluster: Int, value: Int)? {
        // The cluster follows from the bar widths: (b1 − b2 + b3 − b4 + 9) mod 9.
        let b1 = Int(p >> 28 & 15), b2 = Int(p >> 20 & 15), b3 = Int(p >> 12 & 15), b4 = Int(p >> 4 & 15)
        let k = (b1 - b2 + b3 - b4 + 9) % 9
        guard k % 3 == 0 else { return nil }
        let c = k / 3
        let table = PDF417Patterns.patterns[c]
        var lo = 0, hi = table.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if table[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        guard lo < table.count, table[lo] == p else { return nil }
        return (c, Int(PDF417Patterns.values[c][lo]))
    }

    /// A scan line's profile between `from` and `to` (the outer edges of start and stop), sampled
    /// every quarter module, as the light→dark and dark→light boundaries in modules from `from`.
    /// `ratio`: the module size at `from` over the one at `to` (a symbol seen at a slant, the near
    /// side larger); the modules are then spaced as a plane in perspective spaces them, so that the
    /// boundaries stay in the symbol's own modules. `within`: only that stretch of the line (in
    /// modules from `from`); its boundaries more than 12 modules from either end of it are the ones
    /// the whole line shows. `across`: how far to each side of the line, in pixels, the samples
    /// averaged with it lie; they must stay in its row (default: a pixel, or half a module where
    /// modules are under two pixels, as rows are at least a module tall).
    static func boundaries(
        _ image: UnsafeBufferPointer<UInt8>, width: Int, height: Int, from a: Point, to b: Point, modules: Double, ratio: Double = 1,
        within: Range<Double>? = nil, across: Double? = nil
    ) -> (edges: [Double], darkStarts: [Bool]) {
        let perModule = 4.0
        let dx = (b.x - a.x) / modules / perModule, dy = (b.y - a.y) / modules / perModule
        // Samples from `origin` (two modules before `from`), every quarter module.
        let line = Int((modules + 4) * perModule)
        let first = within.map { max(0, Int(($0.lowerBound + 2) * perModule)) } ?? 0
        let n = (within.map { min(line, Int(($0.upperBound + 2) * perModule)) } ?? line) - first
        guard n >= 2 else { return ([], []) }
        var v = [Double](repeating: 0, count: n)
        let origin = Double(first) - 2 * perModule
        let norm = max(1e-9, (dx * dx + dy * dy).squareRoot())
        let across = across ?? min(1, 0.5 * perModule * norm)
        let nx = -dy / norm * across, ny = dx / norm * across
        // u = (1 + c)·σ / (1 + c·σ) along the line (σ the module position over `modules`): its slope
        // at the two ends differs by (1 + c)², the ratio of the module sizes.
        let c = min(2, max(0.5, ratio)).squareRoot() - 1
        let samples = modules * perModule
        for i in 0..<n {
            var t = Double(i) + origin
            if c != 0 {
                let sigma = t / samples
                t = samples * (1 + c) * sigma / (1 + c * sigma)
            }
            // Averaged across the line over a pixel each side: noise falls, the bars stay.
            let x = a.x + dx * t, y = a.y + dy * t
            v[i] = (Imaging.sampleFloat(image, width, height, x, y) + Imaging.sampleFloat(image, width, height, x + nx, y + ny)
                + Imaging.sampleFloat(image, width, height, x - nx, y - ny)) / 3
        }
        // Threshold: the mean over ±12 modules.
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + v[i] }
        let half = Int(12 * perModule)
        var thr = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            thr[i] = (prefix[hi] - prefix[lo]) / Double(hi - lo)
        }
        var edges: [Double] = [], darkStarts: [Bool] = []
        var prev = v[0] < thr[0]
        for i in 1..<n {
            let d = v[i] < thr[i]
            if d != prev {
                // Sub-sample position where the profile crosses the threshold.
                let d0 = v[i - 1] - thr[i - 1], d1 = v[i] - thr[i]
                let f = d0 == d1 ? 0.5 : d0 / (d0 - d1)
                edges.append((Double(i - 1) + f + origin) / perModule)
                darkStarts.append(d)
                prev = d
            }
        }
        return (edges, darkStarts)
    }

    /// Reads codewords along one line: at each expected start (modules from the start's outer
    /// edge) the nearest light→dark boundary, and the eight runs from it.
    static func codewords(edges: [Double], darkStarts: [Bool], at positions: [Double], follow: Bool = false) -> [(cluster: Int, value: Int)?] {
        var out: [(cluster: Int, value: Int)?] = []
        // When following, each codeword is looked for where the one before ended.
        var drift = 0.0
        for x0 in positions {
            let x = x0 + drift
            // Nearest dark start within 3 modules.
            var best = -1, bestD = 3.0
            var lo = 0, hi = edges.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if edges[mid] < x - 3 { lo = mid + 1 } else { hi = mid }
            }
            var i = lo
            while i < edges.count && edges[i] <= x + 3 {
                if darkStarts[i], abs(edges[i] - x) < bestD { best = i; bestD = abs(edges[i] - x) }
                i += 1
            }
            guard best >= 0, best + 8 < edges.count,
                let v = codeword(edges[best...(best + 8)])
            else {
                out.append(nil)
                continue
            }
            if follow { drift = edges[best + 8] - (x0 + 17) }
            out.append(v)
        }
        return out
    }
}

extension PDF417Locator {
    /// Reads `count` codewords leftwards from the light→dark boundary nearest `end` (within 4
    /// modules): the codewords that end there, the nearest first. Each codeword is the eight runs
    /// before the boundary it ends at.
    static func codewords(edges: [Double], darkStarts: [Bool], endingAt end: Double, count: Int) -> [(cluster: Int, value: Int)?] {
        var best = -1, bestD = 4.0
        for (i, e) in edges.enumerated() where darkStarts[i] && abs(e - end) < bestD {
            best = i
            bestD = abs(e - end)
        }
        return (0..<count).map { k in
            let j = best - 8 * k
            guard best >= 0, j - 8 >= 0, darkStarts[j - 8] else { return nil }
            return codeword(edges[(j - 8)...j])
        }
    }
}

extension PDF417Locator {
    /// Each cell's value, the one most lines read; a cell none read, or with a tie, is an erasure.
    static func cells(_ votes: [[Int: Int]]) -> (codewords: [Int], erasures: [Int]) {
        var codewords = [Int](repeating: 0, count: votes.count)
        var erasures: [Int] = []
        for (i, cell) in votes.enumerated() {
            let sorted = cell.sorted { $0.value > $1.value }
            if let first = sorted.first, sorted.count < 2 || sorted[1].value < first.value {
                codewords[i] = first.key
            } else {
                erasures.append(i)
            }
        }
        return (codewords, erasures)
    }
}

/// Which of a PDF417 symbol's start and stop patterns were found.
enum PDF417Side: Sendable { case both, start, stop }

extension ReadSession {
    /// Finds and reads PDF417 symbols (when asked for) on the reduced image.
    mutating func readPDF417() {
        let wantsPDF417 = options.symbologies.contains(.pdf417), wantsMicro = options.symbologies.contains(.micropdf417)
        guard wantsPDF417 || wantsMicro, !outOfTime, let (reduced, scale) = level(.reduced) else { return }
        let w = reduced.width, h = reduced.height
        let coarsest = max(w, h) > 600 ? 6 : max(w, h) > 300 ? 2 : 1
        var candidates: [(a: [Point], b: [Point], module: Double, moduleA: Double, moduleB: Double)] = []
        // Patterns with no partner (the other one cut off by the picture's edge, or smudged): read
        // from their own side only, after every pair.
        var oneSided: [(a: [Point], b: [Point], module: Double, side: PDF417Side)] = []
        var microCandidates: [(a: [Point], b: [Point], module: Double, lines: Int)] = []
        var weakCandidates: [(a: [Point], b: [Point], module: Double, lines: Int)] = []
        // Sides whose RAP matched only by its runs' sums (blurred), kept to be paired only when
        // nothing at all was read: a photo of bars shows many such sides.
        var blurredHits: [(hits: (forward: [PDF417Locator.Hit], backward: [PDF417Locator.Hit]), horizontal: Bool, step: Int)] = []
        reduced.pixels.withUnsafeBufferPointer { px in
            for horizontal in [true, false] {
                let (count, length) = horizontal ? (h, w) : (w, h)
                // At least 24 lines across the level: a flat symbol of a few rows, alone in a
                // picture as flat, is crossed by enough of them to chain its sides.
                let step = min(coarsest, max(1, count / 24))
                let hits = horizontal
                    ? PDF417Locator.scan(px, lines: count, length: length, lineStride: w, pixelStride: 1, step: step, pdf417: wantsPDF417, micro: wantsMicro)
                    : PDF417Locator.scan(px, lines: count, length: length, lineStride: 1, pixelStride: w, step: step, pdf417: wantsPDF417, micro: wantsMicro)
                if debug, wantsMicro { debugLog("micropdf417: \(hits.microForward.count) + \(hits.microBackward.count) side hits") }
                let microHits = (forward: hits.microForward, backward: hits.microBackward)
                let blurred = microHits.forward.contains(where: \.bySums) || microHits.backward.contains(where: \.bySums)
                let widthHits = blurred ? (microHits.forward.filter { !$0.bySums }, microHits.backward.filter { !$0.bySums }) : microHits
                microCandidates += Self.microPDF417Candidates(widthHits, horizontal: horizontal, step: 2 * step, scale: scale, strongOnly: true)
                // Sides whose codeword did not read (a turned symbol's lines cross rows) too, tried
                // when nothing at all was read.
                if widthHits.0.contains(where: { !$0.strong }) || widthHits.1.contains(where: { !$0.strong }) {
                    weakCandidates += Self.microPDF417Candidates(widthHits, horizontal: horizontal, step: 2 * step, scale: scale, strongOnly: false)
                }
                if blurred { blurredHits.append((microHits, horizontal, step)) }
                for (list, forwards) in [(hits.forward, true), (hits.backward, false)] {
                    var paired = Set<Int>()
                    let starts = PDF417Locator.chains(list.filter(\.isStart), step: step)
                    let stops = PDF417Locator.chains(list.filter { !$0.isStart }, step: step)
                    for s in starts {
                        for t in stops {
                            let overlap = min(s.last.line, t.last.line) - max(s.first.line, t.first.line)
                            let ratio = s.module / t.module
                            guard ratio > 0.6, ratio < 1.6 else { continue }
                            func p(_ line: Int, _ edge: Double) -> Point {
                                let q = horizontal ? Point(x: edge, y: Double(line)) : Point(x: Double(line), y: edge)
                                return Point(x: q.x * scale.0, y: q.y * scale.1)
                            }
                            let f = horizontal ? scale.0 : scale.1
                            let (sSlope, sEdge) = PDF417Locator.line(s), (tSlope, tEdge) = PDF417Locator.line(t)
                            // The rows read across the start's edge `a` (its ends), towards the stop's.
                            func acrossFrom(_ a: [Point]) -> (b: [Point], module: Double)? {
                                let stop = [p(t.first.line, tEdge(t.first.line)), p(t.last.line, tEdge(t.last.line))]
                                return PDF417Locator.across(a, to: stop, horizontal: horizontal).map { ($0.b, f * $0.shortening) }
                            }
                            if overlap >= 2 * step {
                                let span = (t.first.edge - s.first.edge) * (forwards ? 1 : -1)
                                guard span > 60 * s.module else { continue }
                                paired.insert(s.first.line * 100_003 + Int(s.first.edge))
                                paired.insert(t.first.line * 100_003 + Int(t.first.edge))
                                // The lines both patterns cross, extended half a step.
                                let top = max(s.first.line, t.first.line), bottom = min(s.last.line, t.last.line)
                                let a = [p(top, sEdge(top)), p(bottom, sEdge(bottom))]
                                let b = [p(top, tEdge(top)), p(bottom, tEdge(bottom))]
                                candidates.append((a, b, (s.module + t.module) / 2 * f, s.module * f, t.module * f))
                                // A symbol turned a few degrees: a scan line that meets the start
                                // in one row meets the stop rows away (by its length times the
                                // edges' slope). Next, then, the rows read across the start's edge,
                                // over the whole of it.
                                if span * max(abs(sSlope), abs(tSlope)) > 2 * s.module {
                                    let a = [p(s.first.line, sEdge(s.first.line)), p(s.last.line, sEdge(s.last.line))]
                                    if let (b, g) = acrossFrom(a) {
                                        candidates.append((a, b, (s.module + t.module) / 2 * g, s.module * g, t.module * g))
                                    }
                                }
                                continue
                            }
                            // A long symbol turned near 45°: its start and its stop cross no scan
                            // line in common. They pair when their edges run alike (within 0.3 rad,
                            // what a slant leaves), lie 60 to 600 modules apart along the scan lines
                            // in the reading direction, and face each other (the stop's extent,
                            // projected on the start's edge, covers a third of the shorter).
                            guard s.hits.count >= 4, t.hits.count >= 4, abs(atan(sSlope) - atan(tSlope)) < 0.3 else { continue }
                            let sMid = (s.first.line + s.last.line) / 2, tMid = (t.first.line + t.last.line) / 2
                            let sign = forwards ? 1.0 : -1.0
                            let spans = [(tEdge(sMid) - sEdge(sMid)) * sign, (tEdge(tMid) - sEdge(tMid)) * sign]
                            guard spans.allSatisfy({ $0 > 60 * s.module && $0 < 600 * s.module }) else { continue }
                            let norm = (1 + sSlope * sSlope).squareRoot()
                            func along(_ line: Int, _ edge: Double) -> Double { (Double(line) + edge * sSlope) / norm }
                            let sRange = (along(s.first.line, sEdge(s.first.line)), along(s.last.line, sEdge(s.last.line)))
                            let tRange = (along(t.first.line, tEdge(t.first.line)), along(t.last.line, tEdge(t.last.line)))
                            let common = min(max(sRange.0, sRange.1), max(tRange.0, tRange.1)) - max(min(sRange.0, sRange.1), min(tRange.0, tRange.1))
                            guard common >= min(abs(sRange.1 - sRange.0), abs(tRange.1 - tRange.0)) / 3 else { continue }
                            // The rows run across the start's edge (the rows the indicators then
                            // place are read along their own lines).
                            let a = [p(s.first.line, sEdge(s.first.line)), p(s.last.line, sEdge(s.last.line))]
                            guard let (b, g) = acrossFrom(a) else { continue }
                            candidates.append((a, b, (s.module + t.module) / 2 * g, s.module * g, t.module * g))
                        }
                    }
                    // A chain over at least eight lines with no partner: its edge's perpendicular,
                    // in the reading direction, carries the rows.
                    for c in starts + stops where c.hits.count >= 8 && !paired.contains(c.first.line * 100_003 + Int(c.first.edge)) {
                        let isStart = c.first.isStart
                        func p(_ line: Int, _ edge: Double) -> Point {
                            let q = horizontal ? Point(x: edge, y: Double(line)) : Point(x: Double(line), y: edge)
                            return Point(x: q.x * scale.0, y: q.y * scale.1)
                        }
                        let e0 = p(c.first.line, c.first.edge), e1 = p(c.last.line, c.last.edge)
                        let ex = e1.x - e0.x, ey = e1.y - e0.y
                        let n = (ex * ex + ey * ey).squareRoot()
                        guard n > 0 else { continue }
                        var u = Point(x: -ey / n, y: ex / n)
                        let along = horizontal ? u.x : u.y
                        if (along < 0) == forwards { u = Point(x: -u.x, y: -u.y) }
                        // The module along the perpendicular: the scan line's, shortened by the slant.
                        let m = c.module * (horizontal ? scale.0 : scale.1) * abs(along)
                        guard abs(along) > 0.7, m > 0 else { continue }
                        let reach = 100 * m
                        if isStart {
                            oneSided.append(([e0, e1], [e0, e1].map { Point(x: $0.x + u.x * reach, y: $0.y + u.y * reach) }, m, .start))
                        } else {
                            oneSided.append(([e0, e1].map { Point(x: $0.x - u.x * reach, y: $0.y - u.y * reach) }, [e0, e1], m, .stop))
                        }
                    }
                }
            }
        }
        if debug, !candidates.isEmpty { debugLog("pdf417: \(candidates.count) start/stop pairs") }
        for c in candidates.prefix(8) {
            if outOfTime { break }
            if found.contains(where: { $0.raw.symbology == .pdf417 && $0.contains(Point(x: (c.a[0].x + c.b[1].x) / 2, y: (c.a[0].y + c.b[1].y) / 2)) }) { continue }
            if debug { debugLog("pdf417: candidate \(c.a) \(c.b) module \(c.module) (\(c.moduleA), \(c.moduleB))") }
            if let (message, corners) = readPDF417(a: c.a, b: c.b, module: c.module, modules: (c.moduleA, c.moduleB)) {
                let raw = RawSymbol(symbology: .pdf417, bytes: message.bytes, points: [], quality: 1, isGS1: message.isGS1)
                add(raw, corners: corners, module: c.module)
                if debug { debugLog("pdf417: read \(message.bytes.count) bytes") }
            }
        }
        for c in oneSided.prefix(4) where wantsPDF417 {
            if outOfTime { break }
            if found.contains(where: { $0.raw.symbology == .pdf417 && ($0.contains(c.a[0]) || $0.contains(c.b[0]) || $0.contains(c.a[1]) || $0.contains(c.b[1])) }) { continue }
            if debug { debugLog("pdf417: one-sided candidate (\(c.side)) \(c.a) \(c.b) module \(c.module)") }
            if let (message, corners) = readPDF417(a: c.a, b: c.b, module: c.module, modules: (c.module, c.module), side: c.side) {
                let raw = RawSymbol(symbology: .pdf417, bytes: message.bytes, points: [], quality: 1, isGS1: message.isGS1)
                add(raw, corners: corners, module: c.module)
                if debug { debugLog("pdf417: read \(message.bytes.count) bytes from one side") }
            }
        }
        readMicroPDF417(microCandidates)
        if found.isEmpty { readMicroPDF417(weakCandidates) }
        // Last, the blurred sides too, each with its codeword read beside the RAP (a textured photo
        // shows many such RAPs, few with a codeword).
        if found.isEmpty, !blurredHits.isEmpty {
            readMicroPDF417(blurredHits.flatMap { Self.microPDF417Candidates($0.hits, horizontal: $0.horizontal, step: 2 * $0.step, scale: scale, strongOnly: true) })
        }
    }

    /// Reads the symbol between the start pattern's outer edge `a` (top, bottom) and the stop's `b`.
    /// `modules`: the module sizes the start and the stop pattern showed.
    /// `side`: which of the patterns was seen (for one, `a` or `b` only marks the direction: the
    /// other end is placed once the row indicators give the columns).
    func readPDF417(a: [Point], b: [Point], module: Double, modules sides: (Double, Double), side: PDF417Side = .both) -> (PDF417Message, [Point])? {
        var a = a, b = b
        let image = work
        func lerp(_ p: Point, _ q: Point, _ t: Double) -> Point { Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t) }
        let length = (dist(a[0], b[0]) + dist(a[1], b[1])) / 2
        let height = max(dist(a[0], a[1]), dist(b[0], b[1]))
        // Lines through the symbol, from the first pixel's centre to the last's: on each pixel row
        // of an upright symbol (and evenly between them, when that makes fewer than twelve lines),
        // so that rows a pixel or two high are each read on their own.
        let pixelRows = max(1, Int(height.rounded()))
        let lineCount = min(400, pixelRows * max(1, (11 + pixelRows - 1) / pixelRows) + 1)
        let ts = (0..<lineCount).map { Double($0) / Double(lineCount - 1) }
        return image.pixels.withUnsafeBufferPointer { px -> (PDF417Message, [Point])? in
            /// The line at `t` in modules of the size one pattern showed (the layout is not known
            /// yet), its stretch next to the start (`atStart`) or next to the stop: the pattern, two
            /// codewords and the 12 modules the threshold looks beyond them.
            func read(_ t: Double, size: Double, atStart: Bool) -> (edges: [Double], dark: [Bool], modules: Double) {
                let modules = max(86, length / (size > 0 ? size : module))
                let (e, d) = PDF417Locator.boundaries(
                    px, width: image.width, height: image.height, from: lerp(a[0], a[1], t), to: lerp(b[0], b[1], t), modules: modules,
                    within: atStart ? -2..<72 : (modules - 72)..<(modules + 2))
                return (e, d, modules)
            }
            // First the row indicators, read from each end, give the layout and where each row lies.
            var colVotes: [Int: Int] = [:], rowDiv: [Int: Int] = [:], rowMod: [Int: Int] = [:]
            // Where each side's rows lie along the edges: (t, row) from the left and right indicators.
            var leftRows: [(t: Double, row: Int)] = [], rightRows: [(t: Double, row: Int)] = []
            // Twelve lines spread over the symbol first: when none of them shows an indicator next
            // to a data codeword of its cluster, the pair of patterns is not a symbol Seer can read.
            let spread = stride(from: 0, to: ts.count, by: max(1, ts.count / 12)).map { ts[$0] }
            var order = spread + ts.filter { !spread.contains($0) }
            var checked = false
            while !order.isEmpty {
                let t = order.removeFirst()
                if !checked && order.count < ts.count - spread.count {
                    checked = true
                    if leftRows.isEmpty && rightRows.isEmpty { return nil }
                }
                // Each indicator in the module size of the pattern next to it.
                let (e, d, _) = read(t, size: sides.0, atStart: true)
                let (e2, d2, m) = read(t, size: sides.1, atStart: false)
                // An indicator counts only when the data codeword next to it is of its cluster.
                let four = PDF417Locator.codewords(edges: e, darkStarts: d, at: [17, 34])
                    + PDF417Locator.codewords(edges: e2, darkStarts: d2, endingAt: m - 18, count: 2).reversed()
                let cw = [
                    side == .stop ? nil : four[0].flatMap { $0.cluster == four[1]?.cluster ? $0 : nil },
                    side == .start ? nil : four[3].flatMap { $0.cluster == four[2]?.cluster ? $0 : nil },
                ]
                if let l = cw[0] { leftRows.append((t, 3 * (l.value / 30) + l.cluster)) }
                if let r = cw[1] { rightRows.append((t, 3 * (r.value / 30) + r.cluster)) }
                if let l = cw[0] {
                    let x = l.value % 30
                    switch l.cluster { case 0: rowDiv[x, default: 0] += 1; case 1: rowMod[x, default: 0] += 1; default: colVotes[x + 1, default: 0] += 1 }
                }
                if let r = cw[1] {
                    let x = r.value % 30
                    switch r.cluster { case 0: colVotes[x + 1, default: 0] += 1; case 1: rowDiv[x, default: 0] += 1; default: rowMod[x, default: 0] += 1 }
                }
            }
            // Both patterns seen: the symbol is 17·(columns + 4) + 1 modules long, so a column count
            // the length between them rules out (by more than a column and a tenth) is a misread
            // indicator, unless no count read agrees with the length.
            if side == .both {
                let measured = (length / module - 1) / 17 - 4
                let agreeing = colVotes.filter { abs(Double($0.key) - measured) <= max(1, 0.1 * measured) }
                if !agreeing.isEmpty { colVotes = agreeing }
            }
            guard let columns = colVotes.max(by: { $0.value < $1.value })?.key,
                let div = rowDiv.max(by: { $0.value < $1.value })?.key,
                let mod = rowMod.max(by: { $0.value < $1.value })?.key
            else { return nil }
            let rows = div * 3 + mod % 3 + 1, ecLevel = mod / 3
            guard (3...90).contains(rows), (1...30).contains(columns), ecLevel <= 8 else { return nil }
            let k = 1 << (ecLevel + 1)
            guard rows * columns > k else { return nil }
            if debug {
                func top(_ votes: [Int: Int]) -> String { votes.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key):\($0.value)" }.joined(separator: " ") }
                debugLog("pdf417: \(rows) rows, \(columns) columns, level \(ecLevel) (votes: columns \(top(colVotes)), rows/3 \(top(rowDiv)), rows%3+level \(top(rowMod)))")
            }
            // t along each edge as a straight function of the row (least squares, refitted without
            // outliers), so each row is read along its own line, even where the patterns were not seen.
            func fit(_ points: [(t: Double, row: Int)]) -> ((Double) -> Double)? {
                var pts = points.filter { $0.row < rows }
                var line: ((Double) -> Double)? = nil
                for _ in 0..<2 {
                    guard pts.count >= 2 else { break }
                    let n = Double(pts.count)
                    let mr = pts.map { Double($0.row) }.reduce(0, +) / n, mt = pts.map(\.t).reduce(0, +) / n
                    var sxy = 0.0, sxx = 0.0
                    for f in pts { sxy += (Double(f.row) - mr) * (f.t - mt); sxx += (Double(f.row) - mr) * (Double(f.row) - mr) }
                    guard sxx > 0 else { break }
                    let slope = sxy / sxx
                    line = { mt + slope * ($0 - mr) }
                    let rowSpan = abs(slope)
                    pts = pts.filter { abs($0.t - mt - slope * (Double($0.row) - mr)) <= rowSpan * 1.5 }
                }
                // Seen at a slant, the rows' spacing along an edge changes from one end to the other
                // (the far end's rows shorter): a parabola through the rows found, when they reach
                // over half the rows and the spacing it gives at the first and last rows differs by
                // less than a factor of two.
                guard let line, pts.count >= 8 else { return line }
                let rowValues = pts.map { Double($0.row) }
                guard let low = rowValues.min(), let high = rowValues.max(), high - low >= Double(rows) / 2 else { return line }
                let mr = rowValues.reduce(0, +) / Double(pts.count)
                var m = [[Double]](repeating: [0, 0, 0, 0], count: 3)
                for f in pts {
                    let x = Double(f.row) - mr, basis = [1, x, x * x]
                    for i in 0..<3 {
                        for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
                        m[i][3] += basis[i] * f.t
                    }
                }
                func det3(_ c: [[Double]]) -> Double {
                    c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0])
                        + c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])
                }
                let d = det3(m)
                guard abs(d) > 1e-12 else { return line }
                // Cramer's rule: each coefficient with its column replaced by the right-hand side.
                let k = (0..<3).map { col in det3(m.map { r in (0..<3).map { $0 == col ? r[3] : r[$0] } }) / d }
                func slopeAt(_ row: Double) -> Double { k[1] + 2 * k[2] * (row - mr) }
                let s0 = slopeAt(0), s1 = slopeAt(Double(rows - 1))
                guard s0 * s1 > 0, max(abs(s0), abs(s1)) < 2 * min(abs(s0), abs(s1)) else { return line }
                return { k[0] + k[1] * ($0 - mr) + k[2] * ($0 - mr) * ($0 - mr) }
            }
            let modules = Double(17 * (columns + 4) + 1)
            // One pattern seen: the other end lies the symbol's width along the rows from it.
            switch side {
            case .both: break
            case .start:
                b = (0..<2).map { k in lerp(a[k], b[k], modules * module / dist(a[k], b[k])) }
            case .stop:
                a = (0..<2).map { k in lerp(b[k], a[k], modules * module / dist(a[k], b[k])) }
            }
            var tLeft = fit(leftRows), tRight = fit(rightRows)
            // Those indicators were read on lines between the patterns at equal t, which cross the
            // rows of a turned symbol: each was seen a quarter of its way in from its edge (its
            // centre, 25.5 modules from the outer edge), where the line meets the row further along.
            // With each row's line from t = TL on the left to TR on the right, an indicator at
            // fraction s of the line shows its row at (1 − s)·TL + s·TR; both sides' fits give TL, TR.
            if side == .both, let seenLeft = tLeft, let seenRight = tRight {
                let sL = 25.5 / modules, sR = (modules - 26.5) / modules
                func span(_ r: Double) -> Double { (seenRight(r) - seenLeft(r)) / (sR - sL) }
                tLeft = { seenLeft($0) - sL * span($0) }
                tRight = { seenRight($0) + (1 - sR) * span($0) }
            }
            if side == .start { tRight = tLeft }
            if side == .stop { tLeft = tRight }
            var votes = [[Int: Int]](repeating: [:], count: rows * columns)
            // The samples beside each line within a quarter of a row of it: rows may be a pixel tall.
            let across = min(1, 0.25 * height / Double(rows))
            let positions = (0..<(columns + 2)).map { Double(17 * ($0 + 1)) }
            // The start pattern's module over the stop's: a symbol seen at a slant.
            let ratio = sides.0 > 0 && sides.1 > 0 ? sides.0 / sides.1 : 1
            // Indicators read on the lines along the rows, with the data codeword beside them of their
            // cluster: where each row lies along the edges, also beyond the lines the patterns crossed.
            var seenLeft: [(t: Double, row: Int)] = [], seenRight: [(t: Double, row: Int)] = []
            /// Reads the line from the left edge at `tl` to the right at `tr`; its votes count for `row`,
            /// or for the row its indicators name (nil: both must name one).
            func vote(_ tl: Double, _ tr: Double, row expected: Int?) {
                let (e, d) = PDF417Locator.boundaries(
                    px, width: image.width, height: image.height, from: lerp(a[0], a[1], tl), to: lerp(b[0], b[1], tr), modules: modules,
                    ratio: ratio, across: across)
                var cw = PDF417Locator.codewords(edges: e, darkStarts: d, at: positions, follow: true)
                // The right indicator also as the codeword ending where the stop pattern starts.
                if cw[columns + 1] == nil { cw[columns + 1] = PDF417Locator.codewords(edges: e, darkStarts: d, endingAt: modules - 18, count: 1)[0] }
                // The indicator on the side not seen is not trusted to name the row.
                if side == .start { cw[columns + 1] = nil }
                if side == .stop { cw[0] = nil }
                if expected != nil {
                    if let l = cw[0], l.cluster == cw[1]?.cluster { seenLeft.append((tl, 3 * (l.value / 30) + l.cluster)) }
                    if let r = cw[columns + 1], r.cluster == cw[columns]?.cluster { seenRight.append((tr, 3 * (r.value / 30) + r.cluster)) }
                }
                var row = expected
                for ri in [cw[0], cw[columns + 1]] {
                    guard let ri else { continue }
                    let r = 3 * (ri.value / 30) + ri.cluster
                    if let row0 = row, row0 != r { return }
                    row = r
                }
                guard let row, row >= 0, row < rows else { return }
                for c in 0..<columns {
                    guard let v = cw[c + 1], v.cluster == row % 3 else { continue }
                    votes[row * columns + c][v.value, default: 0] += 1
                }
            }
            // Lines at even steps between the ends of the patterns seen, placed by their indicators.
            for t in ts { vote(t, t, row: nil) }
            // Lines along each row as the indicators place it on each side.
            func followRows() {
                guard let tLeft, let tRight else { return }
                if debug { debugLog("pdf417: rows at t \(tLeft(0))…\(tLeft(Double(rows - 1))) left, \(tRight(0))…\(tRight(Double(rows - 1))) right") }
                for row in 0..<rows {
                    for f in [-0.2, 0, 0.2] {
                        let tl = tLeft(Double(row) + f), tr = tRight(Double(row) + f)
                        guard tl > -1, tl < 2, tr > -1, tr < 2 else { continue }
                        vote(tl, tr, row: row)
                    }
                }
            }
            func decode() -> PDF417Message? {
                let (codewords, erasures) = PDF417Locator.cells(votes)
                if debug { debugLog("pdf417: \(erasures.count) erasures of \(rows * columns)") }
                if debug {
                    debugLog("decoder input \(DecoderInput.pdf417(codewords: codewords, checkCount: k, erasures: erasures).hex)")
                }
                return PDF417HighLevel.decodeSymbol(codewords, checkCount: k, erasures: erasures, log: debug ? { debugLog($0) } : nil)
            }
            followRows()
            var decoded = decode()
            // Not read: the edges fitted again with the indicators the lines along the rows read too
            // (rows beyond the lines both patterns crossed were placed by extrapolation), and the rows
            // followed once more if that moves one by a fifth of a row or more on either edge.
            if decoded == nil, side == .both, let oldLeft = tLeft, let oldRight = tRight {
                tLeft = fit(leftRows + seenLeft)
                tRight = fit(rightRows + seenRight)
                func moved(_ new: (Double) -> Double, _ old: (Double) -> Double) -> Bool {
                    (0..<rows).contains { r in abs(new(Double(r)) - old(Double(r))) >= 0.2 * abs(old(Double(r) + 1) - old(Double(r))) }
                }
                if let newLeft = tLeft, let newRight = tRight, moved(newLeft, oldLeft) || moved(newRight, oldRight) {
                    followRows()
                    decoded = decode()
                }
            }
            guard let message = decoded else { return nil }
            // Corners: the first and last rows' lines.
            let top = -0.5, bottom = Double(rows) - 0.5
            let l0 = tLeft?(top) ?? 0, l1 = tLeft?(bottom) ?? 1, r0 = tRight?(top) ?? l0, r1 = tRight?(bottom) ?? l1
            let corners = [lerp(a[0], a[1], l0), lerp(b[0], b[1], r0), lerp(b[0], b[1], r1), lerp(a[0], a[1], l1)]
            return (message, corners)
        }
    }
}
