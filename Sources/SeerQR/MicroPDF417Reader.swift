import Foundation
import SeerImage

/// Finds MicroPDF417 symbols by their two sides on the lines PDF417's locator scans: the left side a
/// quiet zone, a left RAP and a codeword; the right side a codeword, a right RAP, the one-module bar
/// and a quiet zone. Sides seen on successive lines make chains; a left and a right chain facing each
/// other make a candidate, read line by line between them.
enum MicroPDF417Locator {
    typealias Hit = PDF417Locator.Hit

    /// Whether the eight runs from `i` (pixels; `reversed`: read from the last) make a PDF417 codeword
    /// (`blurred`: read from their widths or from the sums of neighbouring runs).
    @inline(__always)
    static func isCodeword(_ w: UnsafeBufferPointer<Int32>, from i: Int, reversed: Bool, blurred: Bool = false) -> Bool {
        var total: Int32 = 0
        for k in 0..<8 { total += w[i + k] }
        // In modules: 17 across.
        let scale = 17 / Double(total)
        // The nine boundaries, in modules from the first (kept on the stack: the locator asks this
        // of many runs).
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { edges in
            edges[0] = 0
            for k in 0..<8 { edges[k + 1] = edges[k] + Double(w[reversed ? i + 7 - k : i + k]) * scale }
            let run = { (k: Int) in edges[k + 1] - edges[k] }
            let total = edges[8] - edges[0]
            guard total > 13, total < 21 else { return false }
            let direct = PDF417Locator.roundedWidths(elements: 8, modules: 17, widest: 6, total: total, run: run).flatMap(PDF417Locator.lookup)
            guard blurred else { return direct != nil }
            // As PDF417Locator.codeword reads one: when the widths and the sums read different
            // codewords, neither.
            let sums = PDF417Locator.sumsCodeword(run: run)
            guard let direct else { return sums != nil }
            guard let sums else { return true }
            return direct == sums
        }
    }

    /// Whether the eight runs from `i` could be a codeword: each 0.5–6.5 of its 17 modules.
    @inline(__always)
    static func looksLikeCodeword(_ w: UnsafeBufferPointer<Int32>, from i: Int) -> Bool {
        var total: Int32 = 0, low = Int32.max, high: Int32 = 0
        for k in 0..<8 {
            total += w[i + k]
            low = min(low, w[i + k])
            high = max(high, w[i + k])
        }
        return 34 * low >= total && 34 * high <= 13 * total
    }

    /// Adds the symbol sides crossed by one scan line's runs `w` (alternating, `dark` saying which
    /// are bars, `starts` where each begins) to `forward` (sides read left to right) and `backward`
    /// (a symbol upside down along the line). Sums of runs come from a prefix sum, and the cheap
    /// tests go first: most lines of a photo with no code cost a few comparisons a bar.
    static func edges(
        _ w: UnsafeBufferPointer<Int32>, starts: UnsafeBufferPointer<Int32>, dark: [Bool], line: Int,
        forward: inout [Hit], backward: inout [Hit]
    ) {
        let n = w.count
        guard n >= 15 else { return }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: n + 1) { prefix in
            prefix[0] = 0
            for k in 0..<n { prefix[k + 1] = prefix[k] + w[k] }
            /// Light run `k` (or none: the line's end) at least 0.75 of a module `u`.
            @inline(__always) func quiet(_ k: Int, _ u: Double) -> Bool { k < 0 || k >= n || Double(w[k]) >= 0.75 * u }
            for i in 0..<n where dark[i] {
                let wi = w[i]
                // A left RAP's first bar (2–4 modules): the RAP runs away from it, a codeword after.
                // Forwards runs i…i+5 and i+6…i+13, light before; backwards i−5…i and i−13…i−6,
                // light after. 1.35 < codeword / RAP < 2.1, the bar at least 1.5 modules.
                if i + 13 < n {
                    let t1 = prefix[i + 6] - prefix[i], t2 = prefix[i + 14] - prefix[i + 6]
                    if 20 * t2 > 27 * t1, 20 * t2 < 42 * t1, 18 * wi >= t1 + t2, t1 + t2 >= 22 {
                        let u = Double(t1 + t2) / 27
                        if quiet(i - 1, u), let rap = MicroPDF417.sideRAP(w, from: i, reversed: false), looksLikeCodeword(w, from: i + 6) {
                            forward.append(Hit(line: line, edge: Double(starts[i]), module: u, isStart: true, strong: isCodeword(w, from: i + 6, reversed: false, blurred: rap == .sums), bySums: rap == .sums))
                        }
                    }
                }
                if i >= 13 {
                    let t1 = prefix[i + 1] - prefix[i - 5], t2 = prefix[i - 5] - prefix[i - 13]
                    if 20 * t2 > 27 * t1, 20 * t2 < 42 * t1, 18 * wi >= t1 + t2, t1 + t2 >= 22 {
                        let u = Double(t1 + t2) / 27
                        if quiet(i + 1, u), let rap = MicroPDF417.sideRAP(w, from: i - 5, reversed: true), looksLikeCodeword(w, from: i - 13) {
                            backward.append(Hit(line: line, edge: Double(starts[i] + wi), module: u, isStart: true, strong: isCodeword(w, from: i - 13, reversed: true, blurred: rap == .sums), bySums: rap == .sums))
                        }
                    }
                }
                // The final bar (one module) after a right RAP and a codeword. Forwards runs i−6…i
                // and i−14…i−7, light after; backwards i…i+6 and i+7…i+14, light before.
                // 1.2 < codeword / (RAP and bar) < 1.95, the bar at most 2 modules.
                if i >= 14 {
                    let t1 = prefix[i + 1] - prefix[i - 6], t2 = prefix[i - 6] - prefix[i - 14]
                    if 5 * t2 > 6 * t1, 20 * t2 < 39 * t1, 14 * wi <= t1 + t2, t1 + t2 >= 23 {
                        let u = Double(t1 + t2) / 28
                        if quiet(i + 1, u), let rap = MicroPDF417.sideRAP(w, from: i - 6, reversed: false), looksLikeCodeword(w, from: i - 14) {
                            forward.append(Hit(line: line, edge: Double(starts[i] + wi), module: u, isStart: false, strong: isCodeword(w, from: i - 14, reversed: false, blurred: rap == .sums), bySums: rap == .sums))
                        }
                    }
                }
                if i + 14 < n {
                    let t1 = prefix[i + 7] - prefix[i], t2 = prefix[i + 15] - prefix[i + 7]
                    if 5 * t2 > 6 * t1, 20 * t2 < 39 * t1, 14 * wi <= t1 + t2, t1 + t2 >= 23 {
                        let u = Double(t1 + t2) / 28
                        if quiet(i - 1, u), let rap = MicroPDF417.sideRAP(w, from: i + 1, reversed: true), looksLikeCodeword(w, from: i + 7) {
                            backward.append(Hit(line: line, edge: Double(starts[i]), module: u, isStart: false, strong: isCodeword(w, from: i + 7, reversed: true, blurred: rap == .sums), bySums: rap == .sums))
                        }
                    }
                }
            }
        }
    }

    /// What one line across a candidate showed: its RAP numbers and codewords.
    struct LineRead {
        var t: Double
        var left: Int?, centre: Int?, right: Int?
        var codewords: [(cluster: Int, value: Int)?]
    }

    /// Reads a line's RAPs and codewords from its boundaries (modules from the left RAP's outer edge).
    static func read(edges e: [Double], darkStarts d: [Bool], columns: Int, t: Double) -> LineRead {
        let modules = Double(MicroPDF417.width(columns: columns))
        /// The dark start nearest `x` within 2.5 modules.
        func nearest(_ x: Double) -> Int? {
            var best: Int?, bestD = 2.5
            for (i, v) in e.enumerated() where d[i] && abs(v - x) < bestD {
                best = i
                bestD = abs(v - x)
            }
            return best
        }
        let layout = MicroPDF417.layout(columns: columns)
        var line = LineRead(t: t, codewords: PDF417Locator.codewords(edges: e, darkStarts: d, at: layout.codewords, follow: true))
        if let i = nearest(0), i + 6 < e.count, let r = MicroPDF417.rap(e[i...(i + 6)]), !r.centre { line.left = r.number }
        if let x = layout.centre, let i = nearest(x), i + 6 < e.count, let r = MicroPDF417.rap(e[i...(i + 6)]), r.centre {
            line.centre = r.number
        }
        if let i = nearest(modules - 1), i >= 6, d[i - 6], let r = MicroPDF417.rap(e[(i - 6)...i]), !r.centre { line.right = r.number }
        return line
    }

    /// The row `line` lies in under `variant`: every RAP it showed names the same row, and at least
    /// two of its RAPs and its codewords' cluster agree. Nil otherwise.
    static func row(of line: LineRead, in v: MicroPDF417.Variant) -> Int? {
        var row: Int?
        var agreeing = 0
        for (number, first) in [(line.left, v.left), (line.centre, v.centre), (line.right, v.right)] {
            guard let number, first > 0 else { continue }
            guard let r = v.row(of: number, first: first), row == nil || row == r else { return nil }
            row = r
            agreeing += 1
        }
        guard let row else { return nil }
        let clusters = line.codewords.compactMap { $0?.cluster }
        if clusters.contains(v.cluster(of: row)) { agreeing += 1 }
        return agreeing >= 2 ? row : nil
    }
}

extension ReadSession {
    /// MicroPDF417 candidates from the scan's hits: a left and a right chain on the same lines,
    /// facing each other, of similar module sizes and a span of 38 to 99 modules apart. Points in the
    /// work image's coordinates.
    static func microPDF417Candidates(
        _ hits: (forward: [PDF417Locator.Hit], backward: [PDF417Locator.Hit]), horizontal: Bool, step: Int, scale: (Double, Double),
        strongOnly: Bool
    ) -> [(a: [Point], b: [Point], module: Double, lines: Int)] {
        var out: [(a: [Point], b: [Point], module: Double, lines: Int)] = []
        for (all, forwards) in [(hits.forward, true), (hits.backward, false)] where !all.isEmpty {
            let list = strongOnly ? all.filter(\.strong) : all
            let lefts = PDF417Locator.chains(list.filter(\.isStart), step: step)
            let rights = PDF417Locator.chains(list.filter { !$0.isStart }, step: step)
            for s in lefts {
                for t in rights {
                    // A pair of sides is tried only when each read a codeword on some line.
                    guard strongOnly || (s.hits.contains(where: \.strong) && t.hits.contains(where: \.strong)) else { continue }
                    let ratio = s.module / t.module
                    guard ratio > 0.7, ratio < 1.4 else { continue }
                    let u = (s.module + t.module) / 2
                    let (sSlope, sEdge) = PDF417Locator.line(s), (tSlope, tEdge) = PDF417Locator.line(t)
                    func p(_ line: Int, _ edge: Double) -> Point {
                        let q = horizontal ? Point(x: edge, y: Double(line)) : Point(x: Double(line), y: edge)
                        return Point(x: q.x * scale.0, y: q.y * scale.1)
                    }
                    // The rows read across the left side's edge, over the whole of it, towards the
                    // right side's along the perpendicular (PDF417's turned symbols).
                    func across() {
                        let a = [p(s.first.line, sEdge(s.first.line)), p(s.last.line, sEdge(s.last.line))]
                        let right = [p(t.first.line, tEdge(t.first.line)), p(t.last.line, tEdge(t.last.line))]
                        guard let (b, shortening) = PDF417Locator.across(a, to: right, horizontal: horizontal) else { return }
                        // One hit fewer: after the pair read along the scan lines, when there is one.
                        out.append((a, b, u * (horizontal ? scale.0 : scale.1) * shortening, s.hits.count + t.hits.count - 1))
                    }
                    let top = max(s.first.line, t.first.line), bottom = min(s.last.line, t.last.line)
                    let sign = forwards ? 1.0 : -1.0
                    guard bottom - top >= 2 * step else {
                        // Sides no scan line crosses both of: a symbol turned so that the lines
                        // through one side pass above or below the other. They pair when their
                        // edges run alike and lie a symbol's width apart along the lines.
                        guard s.hits.count >= 4, t.hits.count >= 4, abs(atan(sSlope) - atan(tSlope)) < 0.3 else { continue }
                        let sMid = (s.first.line + s.last.line) / 2, tMid = (t.first.line + t.last.line) / 2
                        let spans = [(tEdge(sMid) - sEdge(sMid)) * sign, (tEdge(tMid) - sEdge(tMid)) * sign]
                        guard spans.allSatisfy({ $0 > 30 * u && $0 < 115 * u }) else { continue }
                        across()
                        continue
                    }
                    let span = (tEdge(top) - sEdge(top)) * sign
                    guard span > 30 * u, span < 115 * u else { continue }
                    let a = [p(top, sEdge(top)), p(bottom, sEdge(bottom))]
                    let b = [p(top, tEdge(top)), p(bottom, tEdge(bottom))]
                    out.append((a, b, u * (horizontal ? scale.0 : scale.1), s.hits.count + t.hits.count))
                    // A symbol turned a few degrees: a scan line that meets the left side in one row
                    // meets the right side rows away.
                    if span * max(abs(sSlope), abs(tSlope)) > 2 * u { across() }
                }
            }
        }
        return out
    }

    /// Reads the candidates (most hits first) not inside a symbol already read.
    mutating func readMicroPDF417(_ candidates: [(a: [Point], b: [Point], module: Double, lines: Int)]) {
        if debug, !candidates.isEmpty { debugLog("micropdf417: \(candidates.count) side pairs") }
        for c in candidates.sorted(by: { $0.lines > $1.lines }).prefix(8) {
            if outOfTime { break }
            let middle = Point(x: (c.a[0].x + c.b[1].x) / 2, y: (c.a[0].y + c.b[1].y) / 2)
            if found.contains(where: { $0.contains(middle) }) { continue }
            if debug { debugLog("micropdf417: candidate \(c.a) \(c.b) module \(c.module)") }
            guard let (message, corners) = readMicroPDF417(a: c.a, b: c.b, module: c.module) else { continue }
            let raw = RawSymbol(symbology: .micropdf417, bytes: message.bytes, points: [], quality: 1, isGS1: message.isGS1)
            add(raw, corners: corners, module: c.module)
            if debug { debugLog("micropdf417: read \(message.bytes.count) bytes") }
        }
    }

    /// Reads the symbol between its left side `a` (top, bottom: the left RAP's outer edge) and its
    /// right side `b` (the final bar's outer edge). Lines straight across first give each side's RAPs;
    /// for each variant they fit, where each row lies on either side; then each row is read along
    /// its own line.
    func readMicroPDF417(a: [Point], b: [Point], module: Double) -> (PDF417Message, [Point])? {
        let image = work
        func lerp(_ p: Point, _ q: Point, _ t: Double) -> Point { Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t) }
        let length = (dist(a[0], b[0]) + dist(a[1], b[1])) / 2
        let height = max(dist(a[0], a[1]), dist(b[0], b[1]))
        let measured = length / module
        // The column counts whose row width is within a quarter of the one measured, nearest first.
        let counts = (1...4).filter { abs(Double(MicroPDF417.width(columns: $0)) - measured) <= 0.25 * Double(MicroPDF417.width(columns: $0)) }
            .sorted { abs(Double(MicroPDF417.width(columns: $0)) - measured) < abs(Double(MicroPDF417.width(columns: $1)) - measured) }
        // Lines over the sides' extent and a little beyond: the scan may have missed an end row.
        let lineCount = min(300, max(16, Int(height * 1.2)))
        let ts = (0..<lineCount).map { -0.1 + 1.2 * (Double($0) + 0.5) / Double(lineCount) }
        return image.pixels.withUnsafeBufferPointer { px -> (PDF417Message, [Point])? in
            /// `rows`: the variant's, once known; the samples beside the line then stay within a
            /// quarter of a row of it (rows may be a pixel tall).
            func line(_ tl: Double, _ tr: Double, columns: Int, rows: Int? = nil) -> MicroPDF417Locator.LineRead {
                let modules = Double(MicroPDF417.width(columns: columns))
                let (e, d) = PDF417Locator.boundaries(
                    px, width: image.width, height: image.height, from: lerp(a[0], a[1], tl), to: lerp(b[0], b[1], tr), modules: modules,
                    across: rows.map { min(1, 0.25 * height / Double($0)) })
                return MicroPDF417Locator.read(edges: e, darkStarts: d, columns: columns, t: tl)
            }
            for columns in counts {
                // Sixteen lines spread over the candidate first: without a RAP among them, it is not
                // a symbol of this width.
                let spread = stride(from: 0, to: ts.count, by: max(1, ts.count / 16)).map { ts[$0] }
                let first = spread.map { line($0, $0, columns: columns) }
                guard first.contains(where: { $0.left != nil || $0.right != nil }) else { continue }
                let across = first + ts.filter { !spread.contains($0) }.map { line($0, $0, columns: columns) }
                // Per variant, the rows each side's RAPs (next to a codeword of the row's cluster) name.
                var ranked: [(v: MicroPDF417.Variant, left: (Double) -> Double, right: (Double) -> Double, score: Int)] = []
                for v in MicroPDF417.variants where v.columns == columns {
                    var leftRows: [(t: Double, row: Int)] = [], rightRows: [(t: Double, row: Int)] = []
                    for l in across {
                        if let n = l.left, let r = v.row(of: n, first: v.left), l.codewords.first??.cluster == v.cluster(of: r) { leftRows.append((l.t, r)) }
                        if let n = l.right, let r = v.row(of: n, first: v.right), l.codewords.last??.cluster == v.cluster(of: r) { rightRows.append((l.t, r)) }
                    }
                    let seen = Set(leftRows.map(\.row) + rightRows.map(\.row))
                    // At least a sixth of its rows seen (a large variant fits a few rows of
                    // anything by chance; reading it costs ten lines a row).
                    guard leftRows.count + rightRows.count >= 3, seen.count >= 2, 6 * seen.count >= v.rows else { continue }
                    guard let (fl, fr) = Self.fit(left: leftRows, right: rightRows) else { continue }
                    // Rows seen on both sides count double: one side alone fits variants that are
                    // shifts of one another.
                    let both = !leftRows.isEmpty && !rightRows.isEmpty
                    ranked.append((v, fl, fr, (leftRows.count + rightRows.count) * (both ? 2 : 1)))
                }
                ranked.sort { $0.score > $1.score }
                for (v, tLeft, tRight, score) in ranked.prefix(3) {
                    var votes = [[Int: Int]](repeating: [:], count: v.rows * v.columns)
                    var placed = 0
                    // Lines a tenth of a row apart along the fitted rows, from a row before the
                    // first to one after the last; each counts for the row its own RAPs name (the
                    // fit need not be exact: under perspective the rows are not evenly spaced).
                    for step in 0...(10 * (v.rows + 2)) {
                        let x = -1.0 + Double(step) / 10
                        let tl = tLeft(x), tr = tRight(x)
                        guard tl > -2, tl < 3, tr > -2, tr < 3 else { continue }
                        let l = line(tl, tr, columns: columns, rows: v.rows)
                        guard let row = MicroPDF417Locator.row(of: l, in: v) else { continue }
                        placed += 1
                        for (c, cw) in l.codewords.enumerated() {
                            guard let cw, cw.cluster == v.cluster(of: row) else { continue }
                            votes[row * v.columns + c][cw.value, default: 0] += 1
                        }
                    }
                    let (codewords, erasures) = PDF417Locator.cells(votes)
                    if debug { debugLog("micropdf417: \(v.columns)x\(v.rows), \(score) RAPs placed, \(placed) row lines, \(erasures.count) erasures") }
                    guard let message = MicroPDF417.decodeSymbol(codewords, variant: v, erasures: erasures, log: debug ? { debugLog($0) } : nil) else {
                        continue
                    }
                    let top = -0.5, bottom = Double(v.rows) - 0.5
                    let corners = [lerp(a[0], a[1], tLeft(top)), lerp(b[0], b[1], tRight(top)), lerp(b[0], b[1], tRight(bottom)), lerp(a[0], a[1], tLeft(bottom))]
                    return (message, corners)
                }
            }
            return nil
        }
    }

    /// t along each side as a straight function of the row, one slope for both sides (least
    /// squares, refitted without the points more than 1.5 rows off): a side that saw few rows
    /// takes its slope from the other. Nil unless two rows were seen.
    static func fit(left: [(t: Double, row: Int)], right: [(t: Double, row: Int)]) -> ((Double) -> Double, (Double) -> Double)? {
        var sides = [left, right]
        var result: ((Double) -> Double, (Double) -> Double)?
        for _ in 0..<2 {
            var sxy = 0.0, sxx = 0.0
            var means: [(r: Double, t: Double)?] = []
            for pts in sides {
                guard !pts.isEmpty else { means.append(nil); continue }
                let n = Double(pts.count)
                let mr = pts.map { Double($0.row) }.reduce(0, +) / n, mt = pts.map(\.t).reduce(0, +) / n
                for f in pts {
                    sxy += (Double(f.row) - mr) * (f.t - mt)
                    sxx += (Double(f.row) - mr) * (Double(f.row) - mr)
                }
                means.append((mr, mt))
            }
            guard sxx > 0, means.contains(where: { $0 != nil }) else { break }
            let slope = sxy / sxx
            let lines: [((Double) -> Double)?] = means.map { m in m.map { m in { m.t + slope * ($0 - m.r) } } }
            guard let l = lines[0] ?? lines[1], let r = lines[1] ?? lines[0] else { break }
            result = (l, r)
            for k in 0..<2 {
                guard let line = lines[k] else { continue }
                sides[k] = sides[k].filter { abs($0.t - line(Double($0.row))) <= abs(slope) * 1.5 }
            }
        }
        return result
    }
}
