/// A finder pattern (one of a QR code's three 7×7 corner squares) found in a binary image.
struct FinderPattern: Sendable {
    var x: Double
    var y: Double
    /// Module size in pixels (the pattern is 7 modules across).
    var module: Double
    /// How many scan lines confirmed it.
    var count: Int
    /// Module size measured across (x) and down (y).
    var moduleX: Double = 0
    var moduleY: Double = 0

    /// Whether `other` has modules of about this one's size (within half again): a finder of the
    /// same code, or a code printed at the same scale.
    func isSized(like other: FinderPattern) -> Bool {
        max(module, other.module) <= 1.5 * min(module, other.module)
    }

    /// The module size along a direction (perspective makes it differ between axes).
    func module(along dx: Double, _ dy: Double) -> Double {
        let l = (dx * dx + dy * dy).squareRoot()
        guard l > 0, moduleX > 0, moduleY > 0 else { return module }
        return (abs(dx) * moduleX + abs(dy) * moduleY) / l
    }
}

/// Three finder patterns that may be one code, in reading order, with the code's estimated size.
struct FinderTriple: Sendable {
    var topLeft: FinderPattern
    var topRight: FinderPattern
    var bottomLeft: FinderPattern
    /// Modules per side (4 × version + 17), estimated from the finder distance.
    var dimension: Int
    /// Lower is better: how far from a square with equal module sizes.
    var score: Double
    /// Indices of the three patterns in the list they came from.
    var members: [Int]
}

/// Finds QR finder patterns by their 1:1:3:1:1 dark-light-dark-light-dark runs, confirmed across,
/// and groups them into codes by geometry.
enum FinderLocator {
    /// Whether five run lengths have the finder ratio 1:1:3:1:1 (loosely, for blur and perspective).
    @inline(__always)
    static func isFinderRatio(_ r0: Int, _ r1: Int, _ r2: Int, _ r3: Int, _ r4: Int, loose: Bool = false) -> Bool {
        let total = r0 + r1 + r2 + r3 + r4
        guard total >= 7 else { return false }
        let m = Double(total) / 7
        if loose {
            // Textured or outlined modules: any centre run that is clearly the longest.
            let tol = m * 0.75
            return abs(Double(r0) - m) < tol && abs(Double(r1) - m) < tol && abs(Double(r3) - m) < tol
                && abs(Double(r4) - m) < tol && abs(Double(r2) - 3 * m) < 3 * tol
        }
        let tol = m * 0.7
        // The centre run must stand out: an alignment pattern (1:1:1:1:1) must not pass.
        let centre = Double(r2)
        return abs(Double(r0) - m) < tol && abs(Double(r1) - m) < tol && abs(Double(r3) - m) < tol
            && abs(Double(r4) - m) < tol && centre > 1.8 * m && centre < 4.5 * m
            && centre >= 1.4 * Double(max(r0, r4))
    }

    /// Runs along a line through (`cx`, `cy`) in direction (`dx`, `dy`): the centre dark run's extent
    /// and the four runs around it. Returns the centre offset along the line and the total, or nil.
    static func crossCheck(
        _ b: BinaryImage, _ cx: Int, _ cy: Int, _ dx: Int, _ dy: Int, maxTotal: Int, loose: Bool = false
    ) -> (centre: Double, total: Int, module: Double)? {
        let w = b.width, h = b.height
        @inline(__always) func inside(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < w && y < h }
        guard inside(cx, cy), b.isDark(cx, cy) else { return nil }
        var counts = (0, 0, 0, 0, 0)
        // Backwards from the centre: centre run (part), light, dark.
        var x = cx, y = cy
        while inside(x, y) && b.isDark(x, y) && counts.2 <= maxTotal { counts.2 += 1; x -= dx; y -= dy }
        guard inside(x, y) else { return nil }
        while inside(x, y) && !b.isDark(x, y) && counts.1 <= maxTotal { counts.1 += 1; x -= dx; y -= dy }
        guard inside(x, y), counts.1 <= maxTotal else { return nil }
        while inside(x, y) && b.isDark(x, y) && counts.0 <= maxTotal { counts.0 += 1; x -= dx; y -= dy }
        guard counts.0 <= maxTotal else { return nil }
        let back = counts.2
        // Forwards.
        x = cx + dx
        y = cy + dy
        while inside(x, y) && b.isDark(x, y) && counts.2 <= maxTotal { counts.2 += 1; x += dx; y += dy }
        guard inside(x, y) else { return nil }
        while inside(x, y) && !b.isDark(x, y) && counts.3 <= maxTotal { counts.3 += 1; x += dx; y += dy }
        guard inside(x, y), counts.3 <= maxTotal else { return nil }
        while inside(x, y) && b.isDark(x, y) && counts.4 <= maxTotal { counts.4 += 1; x += dx; y += dy }
        guard counts.4 <= maxTotal else { return nil }
        guard isFinderRatio(counts.0, counts.1, counts.2, counts.3, counts.4, loose: loose) else { return nil }
        // Offset of the centre run's middle from (cx, cy), along the line.
        let centre = Double(counts.2) / 2 - Double(back) + 0.5
        // Module size: the inner runs are least affected by neighbouring dark modules merging in.
        let total = counts.0 + counts.1 + counts.2 + counts.3 + counts.4
        let inner = Double(counts.1 + counts.2 + counts.3) / 5
        let estimates = [Double(total) / 7, Double(counts.2) / 3, inner].sorted()
        return (centre, total, estimates[1])
    }

    /// All finder patterns in `b`, merged across scan lines. `rowStep` skips rows for speed.
    static func find(_ b: BinaryImage, rowStep: Int = 1, loose: Bool = false) -> [FinderPattern] {
        var found: [FinderPattern] = []
        let w = b.width
        var y = 0
        while y < b.height {
            // The row's runs as they end, the last five kept: each window of five runs that starts
            // with a dark run is checked, left to right, as a whole row's run-length encoding would be.
            var r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0
            var c0: UInt8 = 0, start2 = 0, start3 = 0, start4 = 0
            var n = 0
            var candidates: [(cx: Double, total: Int)] = []
            b.bits.withUnsafeBufferPointer { bits in
                let row = bits.baseAddress! + y * w
                var x = 0
                var c1: UInt8 = 0, c2: UInt8 = 0, c3: UInt8 = 0, c4: UInt8 = 0
                while x < w {
                    let c = row[x]
                    let s = x
                    x = runEnd(row, from: x, width: w)
                    // Shift the window by one run.
                    r0 = r1; r1 = r2; r2 = r3; r3 = r4; r4 = x - s
                    c0 = c1; c1 = c2; c2 = c3; c3 = c4; c4 = c
                    start2 = start3; start3 = start4; start4 = s
                    n += 1
                    if n >= 5 && c0 == 1 && isFinderRatio(r0, r1, r2, r3, r4, loose: loose) {
                        candidates.append((Double(start2) + Double(r2) / 2, r0 + r1 + r2 + r3 + r4))
                    }
                }
            }
            for candidate in candidates {
                confirm(b, cx: candidate.cx, cy: Double(y) + 0.5, total: candidate.total, loose: loose, into: &found)
            }
            y += rowStep
        }
        return found.filter { $0.count >= 2 || $0.module >= 4 }
    }

    /// Where the run of pixels equal to `row[start]` ends (the first pixel that differs, or `width`):
    /// eight pixels at a time while all eight are the same (most of a row lies in long runs), then
    /// the first that differs.
    @inline(__always)
    static func runEnd(_ row: UnsafePointer<UInt8>, from start: Int, width: Int) -> Int {
        let fill = UInt64(row[start]) &* 0x0101_0101_0101_0101
        var x = start &+ 1
        while x &+ 8 <= width {
            let differs = UInt64(littleEndian: UnsafeRawPointer(row + x).loadUnaligned(as: UInt64.self)) ^ fill
            if differs != 0 { return x &+ differs.trailingZeroBitCount >> 3 }
            x &+= 8
        }
        while x < width && row[x] == row[start] { x &+= 1 }
        return x
    }

    private static func confirm(
        _ b: BinaryImage, cx: Double, cy: Double, total: Int, loose: Bool, into found: inout [FinderPattern]
    ) {
        let maxTotal = total * 3
        let ix = Int(cx), iy = Int(cy)
        guard let v = crossCheck(b, ix, iy, 0, 1, maxTotal: maxTotal, loose: loose) else { return }
        let ny = Double(iy) + v.centre
        guard let hz = crossCheck(b, ix, Int(ny), 1, 0, maxTotal: maxTotal, loose: loose) else { return }
        let nx = Double(ix) + hz.centre
        let ratio = Double(v.total) / Double(hz.total)
        guard ratio > 0.4, ratio < 2.5 else { return }
        // A diagonal check rejects most text and textures.
        guard let d = crossCheck(b, Int(nx), Int(ny), 1, 1, maxTotal: maxTotal * 2, loose: loose) else { return }
        _ = d
        let module = (v.module + hz.module) / 2
        let span = Double(v.total + hz.total) / 14
        for k in found.indices {
            let f = found[k]
            let dist = max(abs(f.x - nx), abs(f.y - ny))
            if dist <= max(f.module, module, span) * 2, max(f.module, module) / min(f.module, module) < 1.6 {
                let c = Double(f.count)
                found[k].x = (f.x * c + nx) / (c + 1)
                found[k].y = (f.y * c + ny) / (c + 1)
                found[k].module = (f.module * c + module) / (c + 1)
                found[k].moduleX = (f.moduleX * c + hz.module) / (c + 1)
                found[k].moduleY = (f.moduleY * c + v.module) / (c + 1)
                found[k].count += 1
                return
            }
        }
        found.append(FinderPattern(x: nx, y: ny, module: module, count: 1, moduleX: hz.module, moduleY: v.module))
    }

    /// Triples of patterns that look like one code (a right angle at the top-left, two equal sides,
    /// similar module sizes, a plausible version), best first.
    static func triples(_ patterns: [FinderPattern], limit: Int = 2000) -> [FinderTriple] {
        let p = patterns
        let n = p.count
        guard n >= 3 else { return [] }
        // Neighbours: patterns at a distance a code of some version could put them, similar in size.
        var neighbours = [[Int]](repeating: [], count: n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let mr = max(p[i].module, p[j].module) / min(p[i].module, p[j].module)
                if mr > 2.2 { continue }
                let dx = p[i].x - p[j].x, dy = p[i].y - p[j].y
                let d = (dx * dx + dy * dy).squareRoot() / ((p[i].module + p[j].module) / 2)
                if d < 9 || d > 260 { continue }
                neighbours[i].append(j)
                neighbours[j].append(i)
            }
        }
        // Keep each pattern's nearest neighbours: a code's other two finders are among them.
        for i in 0..<n where neighbours[i].count > 12 {
            let d = { (j: Int) in (p[j].x - p[i].x) * (p[j].x - p[i].x) + (p[j].y - p[i].y) * (p[j].y - p[i].y) }
            neighbours[i] = Array(neighbours[i].sorted { d($0) < d($1) }.prefix(12))
        }
        var out: [FinderTriple] = []
        for c in 0..<n {
            let nb = neighbours[c]
            guard nb.count >= 2 else { continue }
            let o = p[c]
            for x in 0..<(nb.count - 1) {
                for y in (x + 1)..<nb.count {
                    let ia = nb[x], ib = nb[y]
                    let a = p[ia], bb = p[ib]
                    let mratio = max(o.module, a.module, bb.module) / min(o.module, a.module, bb.module)
                    if mratio > 2.2 { continue }
                    let ax = a.x - o.x, ay = a.y - o.y, bx = bb.x - o.x, by = bb.y - o.y
                    let la = (ax * ax + ay * ay).squareRoot(), lb = (bx * bx + by * by).squareRoot()
                    guard la > 0, lb > 0 else { continue }
                    let cosine = (ax * bx + ay * by) / (la * lb)
                    let sideRatio = max(la, lb) / min(la, lb)
                    guard abs(cosine) < 0.6, sideRatio < 2.5 else { continue }
                    // Modules between centres along each side, with each side's own module size.
                    let ma = (o.module(along: ax, ay) + a.module(along: ax, ay)) / 2
                    let mb = (o.module(along: bx, by) + bb.module(along: bx, by)) / 2
                    let modules = (la / ma + lb / mb) / 2 + 7
                    guard modules >= 10, modules <= 200 else { continue }
                    let version = max(1, min(40, Int(((modules - 17) / 4).rounded())))
                    let dimension = 17 + 4 * version
                    // Patterns confirmed on few scan lines are more often texture inside a code.
                    let weak = [o, a, bb].filter { $0.count < 3 }.count
                    let score = abs(cosine) * 2 + (sideRatio - 1) + (mratio - 1) + 0.4 * Double(weak)
                    let cross = ax * by - ay * bx
                    let (tr, bl, ti, bi) = cross > 0 ? (a, bb, ia, ib) : (bb, a, ib, ia)
                    out.append(
                        FinderTriple(
                            topLeft: o, topRight: tr, bottomLeft: bl, dimension: dimension, score: score,
                            members: [c, ti, bi]))
                }
            }
        }
        out.sort { $0.score < $1.score }
        return Array(out.prefix(limit))
    }

    /// Looks for the bottom-right alignment pattern (version ≥ 2) near where the finder geometry
    /// predicts it; returns its centre in image coordinates.
    static func alignment(_ b: BinaryImage, _ t: FinderTriple) -> Point? {
        let dim = Double(t.dimension)
        guard t.dimension >= 25 else { return nil }
        let span = dim - 7
        let ex = Point(x: (t.topRight.x - t.topLeft.x) / span, y: (t.topRight.y - t.topLeft.y) / span)
        let ey = Point(x: (t.bottomLeft.x - t.topLeft.x) / span, y: (t.bottomLeft.y - t.topLeft.y) / span)
        let u = dim - 6.5 - 3.5
        let px = t.topLeft.x + ex.x * u + ey.x * u, py = t.topLeft.y + ex.y * u + ey.y * u
        let module = (ex.x * ex.x + ex.y * ex.y).squareRoot()
        let radius = max(4 * module, dim * module * 0.08)
        let step = max(1, module / 2)
        var best = 0, bestPoints: [Point] = []
        var yy = py - radius
        while yy <= py + radius {
            var xx = px - radius
            while xx <= px + radius {
                var score = 0
                for j in -2...2 {
                    for i in -2...2 {
                        let sx = Int(xx + ex.x * Double(i) + ey.x * Double(j))
                        let sy = Int(yy + ex.y * Double(i) + ey.y * Double(j))
                        guard sx >= 0, sy >= 0, sx < b.width, sy < b.height else { continue }
                        let ring = max(abs(i), abs(j))
                        if b.isDark(sx, sy) == (ring != 1) { score += 1 }
                    }
                }
                if score > best {
                    best = score
                    bestPoints = [Point(x: xx, y: yy)]
                } else if score == best {
                    bestPoints.append(Point(x: xx, y: yy))
                }
                xx += step
            }
            yy += step
        }
        guard best >= 23, !bestPoints.isEmpty else { return nil }
        let n = Double(bestPoints.count)
        return Point(x: bestPoints.map(\.x).reduce(0, +) / n, y: bestPoints.map(\.y).reduce(0, +) / n)
    }
}

extension FinderLocator {
    /// The finder pattern's width along the line from `p` towards `q`, in pixels of `b`: from the
    /// centre out both ways through stone, light ring and dark ring to the light beyond (seven modules
    /// on a code seen square-on). Measuring along the line between two finders, not along the image
    /// axes, keeps the module size right on rotated codes.
    static func widthAlong(_ b: BinaryImage, from p: FinderPattern, toward q: FinderPattern) -> Double? {
        let dx = q.x - p.x, dy = q.y - p.y
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0 else { return nil }
        let ux = dx / length, uy = dy / length
        let limit = p.module * 7
        func reach(_ sx: Double, _ sy: Double) -> Double? {
            // Transitions: stone (dark) → light ring → dark ring → outside (light).
            var state = 0
            var t = 0.0
            while t < limit {
                let x = Int(p.x + sx * t), y = Int(p.y + sy * t)
                guard x >= 0, y >= 0, x < b.width, y < b.height else { return nil }
                let dark = b.isDark(x, y)
                switch state {
                case 0: if !dark { state = 1 }
                case 1: if dark { state = 2 }
                default: if !dark { return t }
                }
                t += 0.5
            }
            return nil
        }
        guard let forward = reach(ux, uy), let backward = reach(-ux, -uy) else { return nil }
        let width = forward + backward
        // A width far from the pattern's own size is a neighbouring module merged in.
        guard width > 0.5 * 7 * p.module / 1.5, width < 1.5 * 7 * p.module * 1.5 else { return nil }
        return width
    }

    /// The code's modules per side from the finder spacing, with module sizes measured along the
    /// lines joining the finders; nil when a width cannot be measured.
    static func measuredDimension(_ b: BinaryImage, _ t: FinderTriple) -> Double? {
        guard let a1 = widthAlong(b, from: t.topLeft, toward: t.topRight),
            let a2 = widthAlong(b, from: t.topRight, toward: t.topLeft),
            let b1 = widthAlong(b, from: t.topLeft, toward: t.bottomLeft),
            let b2 = widthAlong(b, from: t.bottomLeft, toward: t.topLeft)
        else { return nil }
        func d(_ p: FinderPattern, _ q: FinderPattern) -> Double { ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot() }
        let across = d(t.topLeft, t.topRight) / ((a1 + a2) / 14)
        let down = d(t.topLeft, t.bottomLeft) / ((b1 + b2) / 14)
        return (across + down) / 2 + 7
    }
}
