import Foundation
import Logging
import SeerImage

/// Finds Aztec bull's-eyes and reads the symbols around them (ISO/IEC 24778).
///
/// A bull's-eye is found as nine runs of about one module each (dark, light, … dark) across a row,
/// confirmed down its column. Rays cast from its centre give the inner edge of the dark square ring
/// at 3.5 modules (and at 5.5 for full-range symbols; the outer edges run on into the mode
/// message's dark modules), whose sides are fitted as lines; their corners fix a homography. The orientation marks at the corners of the mode message ring give the
/// rotation and mirroring, the mode message (Reed–Solomon over GF(16)) the size, and the data layers
/// are sampled through the homography and corrected with Reed–Solomon over GF(2^m).
struct AztecReader {
    let bin: BinaryImage
    /// Receives the reading's steps (for tracing).
    var log: ((String) -> Void)? = nil

    // MARK: Finding bull's-eyes

    /// The mean run when nine runs (dark first) are each within half of it of the mean; the outer
    /// two, which may run on into the dark modules of the mode message, need only be long enough.
    static func evenRuns(_ runs: [Int]) -> Double? {
        evenRuns(runs[0], runs[1], runs[2], runs[3], runs[4], runs[5], runs[6], runs[7], runs[8])
    }

    @inline(__always)
    static func evenRuns(_ r0: Int, _ r1: Int, _ r2: Int, _ r3: Int, _ r4: Int, _ r5: Int, _ r6: Int, _ r7: Int, _ r8: Int) -> Double? {
        let total = r1 + r2 + r3 + r4 + r5 + r6 + r7
        guard total >= 11 else { return nil }  // 7 runs of at least 1.5 pixels on average
        let m = Double(total) / 7
        let tolerance = max(0.5 * m, 1)
        for r in [r1, r2, r3, r4, r5, r6, r7] where abs(Double(r) - m) > tolerance { return nil }
        guard Double(r0) >= 0.5 * m, Double(r8) >= 0.5 * m else { return nil }
        return m
    }

    /// The column through a row's centre holds the same nine runs: the centre, refined. With
    /// `light`, the bull's-eye of a light-on-dark symbol (a light centre, every ring the other way).
    func confirm(_ x: Double, _ y: Double, module: Double, light: Bool = false) -> BullsEye? {
        let xi = Int(x)
        // Dark, in the symbol's own colours.
        func isDark(_ x: Int, _ y: Int) -> Bool { bin.isDark(x, y) != light }
        guard xi >= 0, xi < bin.width, isDark(xi, Int(y)) else { return nil }
        // The centre run's part and three runs each way, then the start of the fourth (the dark
        // ring at four modules, which may run on into the mode message).
        func runs(_ step: Int) -> [Int]? {
            bin.columnRuns(x: xi, y: Int(y), step: step, colour: !light, runs: 4, close: 0.5 * module, limit: Int(module * 7) + 4)
        }
        guard let up = runs(-1), let down = runs(1) else { return nil }
        // The centre run is up[0] + down[0] - 1 long; the others four each way.
        let centre = up[0] + down[0] - 1
        var all = Array(up[1..<5].reversed()) + [centre] + Array(down[1..<5])
        // The outer two runs were followed only until half a row's module long: lower bounds,
        // and the column's module may be longer than the row's, so they are not measured again.
        (all[0], all[8]) = (Int(4 * module) + 1, Int(4 * module) + 1)
        guard let m = Self.evenRuns(all), m < 2 * module, module < 2 * m else { return nil }
        let cy = Double(Int(y) - up[0] + 1) + Double(centre) / 2
        // The centre run again on the centre's own row.
        let row = min(bin.height - 1, max(0, Int(cy)))
        guard isDark(xi, row) else { return nil }
        var left = xi, right = xi
        while left > 0 && isDark(left - 1, row) && xi - left < Int(2 * m) + 2 { left -= 1 }
        while right < bin.width - 1 && isDark(right + 1, row) && right - xi < Int(2 * m) + 2 { right += 1 }
        let width = Double(right - left + 1)
        guard width < 2 * m, 2 * width > m else { return nil }
        return BullsEye(x: Double(left) + width / 2, y: cy, ring: (m + module) / 2, hits: 1)
    }

    /// How many of the four diagonal rays from `c`'s centre cross its rings: the dark centre, then a
    /// light, a dark and a light run of about a module each (0.5 to 2.2 of the row's module, which
    /// takes both a diagonal across an upright symbol's square rings and one along a symbol turned
    /// 45°). A crossing of a full-range symbol's reference grid passes the row and column tests as a
    /// bull's-eye does, but its diagonals run through data modules, which alternate so by chance
    /// about once in eight. With `light`, for a light-on-dark symbol's bull's-eye.
    func diagonalRings(_ c: BullsEye, light: Bool = false) -> Int {
        let m = c.ring
        var passed = 0
        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            var x = Int(c.x), y = Int(c.y)
            guard x >= 0, y >= 0, x < bin.width, y < bin.height, bin.isDark(x, y) != light else { return 0 }
            var runs: [Double] = []
            var colour = true, length = 1
            // Steps of one pixel each way (√2 pixels long), until the fourth change.
            while runs.count < 4 {
                x += sx
                y += sy
                guard x >= 0, y >= 0, x < bin.width, y < bin.height, Double(length) * 1.414 <= 3 * m else { break }
                if (bin.isDark(x, y) != light) == colour {
                    length += 1
                } else {
                    runs.append(Double(length) * 1.414)
                    colour.toggle()
                    length = 1
                }
            }
            guard runs.count == 4, runs[0] <= 1.6 * m else { continue }
            if runs[1...].allSatisfy({ $0 >= 0.5 * m && $0 <= 2.2 * m }) { passed += 1 }
        }
        return passed
    }

    // MARK: Geometry

    /// The points where rays from the centre cross the `edge`-th colour change (1 = the centre's
    /// own edge), one per ray (nil where a ray does not reach it).
    func edgePoints(_ c: BullsEye, edges: [Int], rays: Int) -> [[Point?]] {
        var out = [[Point?]](repeating: [Point?](repeating: nil, count: rays), count: edges.count)
        let maxEdge = edges.max() ?? 1
        let limit = c.ring * (Double(maxEdge) + 2) * 1.6
        // A change counts only when the new colour holds for a quarter of a module (at least a
        // pixel): a speck of noise or a JPEG block's edge inside a ring does not.
        let hold = max(2, Int(0.25 * c.ring / 0.5))
        for r in 0..<rays {
            let angle = Double(r) * 2 * Double.pi / Double(rays)
            let dx = cos(angle), dy = sin(angle)
            var t = 0.0, changes = 0
            var colour = true
            var last = Point(x: c.x, y: c.y)
            func isDark(at t: Double) -> Bool? {
                let xi = Int((c.x + dx * t).rounded(.down)), yi = Int((c.y + dy * t).rounded(.down))
                guard xi >= 0, yi >= 0, xi < bin.width, yi < bin.height else { return nil }
                return bin.isDark(xi, yi)
            }
            while t < limit && changes < maxEdge {
                t += 0.5
                let px = c.x + dx * t, py = c.y + dy * t
                guard let dark = isDark(at: t) else { break }
                if dark != colour && (1..<hold).allSatisfy({ isDark(at: t + 0.5 * Double($0)) ?? dark == dark }) {
                    changes += 1
                    colour = dark
                    let edge = Point(x: c.x + dx * (t - 0.25), y: c.y + dy * (t - 0.25))
                    if let k = edges.firstIndex(of: changes) { out[k][r] = edge }
                }
                last = Point(x: px, y: py)
            }
            _ = last
        }
        return out
    }

    /// The middle of the dark centre module around (or next to) `c`: the centroid of the nearest
    /// dark patch of about a module that light surrounds, within a ring and a half of `c`; nil when
    /// there is none (rings merged by blur or a coarse threshold). Seen turned near 45°, the rings
    /// make even runs along rows and columns off the centre too, so `c` can lie a ring away from it.
    func centreModule(_ c: BullsEye) -> Point? {
        let reach = Int((1.3 * c.ring).rounded(.up)) + 1
        let cx = Int(c.x.rounded(.down)), cy = Int(c.y.rounded(.down))
        // Pixels of patches already followed that run on beyond a module's reach (rings).
        var merged = Set<Int>()
        for r in 0...max(1, Int(1.5 * c.ring)) {
            for dy in -r...r {
                for dx in -r...r where max(abs(dx), abs(dy)) == r {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, y >= 0, x < bin.width, y < bin.height, bin.isDark(x, y), !merged.contains(y * bin.width + x) else { continue }
                    switch patch(from: (x, y), reach: reach) {
                    case .small(let n, let sumX, let sumY):
                        // Too small to be the centre module (a speck of noise).
                        guard Double(n) >= 0.2 * c.ring * c.ring else { continue }
                        return Point(x: Double(sumX) / Double(n) + 0.5, y: Double(sumY) / Double(n) + 0.5)
                    case .large(let pixels): merged.formUnion(pixels)
                    case .outside: return nil
                    }
                }
            }
        }
        return nil
    }

    enum Patch {
        /// Its pixel count and the sums of their coordinates.
        case small(Int, Int, Int)
        /// It reaches the box's edge: its pixels so far.
        case large([Int])
        /// The box leaves the image.
        case outside
    }

    /// The dark pixels 4-connected to `start`, within `reach` of it.
    func patch(from start: (Int, Int), reach: Int) -> Patch {
        let (sx, sy) = start
        let x0 = sx - reach, x1 = sx + reach, y0 = sy - reach, y1 = sy + reach
        guard x0 >= 0, y0 >= 0, x1 < bin.width, y1 < bin.height else { return .outside }
        let side = 2 * reach + 1
        var seen = [Bool](repeating: false, count: side * side)
        var stack = [start], pixels: [Int] = []
        seen[(sy - y0) * side + (sx - x0)] = true
        var sumX = 0, sumY = 0
        while let (x, y) = stack.popLast() {
            pixels.append(y * bin.width + x)
            if x == x0 || x == x1 || y == y0 || y == y1 { return .large(pixels + stack.map { $0.1 * bin.width + $0.0 }) }
            sumX += x
            sumY += y
            for (nx, ny) in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                let k = (ny - y0) * side + (nx - x0)
                if !seen[k] && bin.isDark(nx, ny) {
                    seen[k] = true
                    stack.append((nx, ny))
                }
            }
        }
        return .small(pixels.count, sumX, sumY)
    }

    /// The line through two points.
    static func line(_ a: Point, _ b: Point) -> (p: Point, d: Point) {
        let l = max(hypot(b.x - a.x, b.y - a.y), 1e-9)
        return (a, Point(x: (b.x - a.x) / l, y: (b.y - a.y) / l))
    }

    /// The four corners (clockwise in the image) of the square whose edge the points trace.
    static func fitSquare(_ points: [Point?], centre: Point) -> [Point]? {
        let n = points.count
        guard points.filter({ $0 != nil }).count >= n * 3 / 4 else { return nil }
        func radius(_ i: Int) -> Double {
            guard let p = points[((i % n) + n) % n] else { return 0 }
            return hypot(p.x - centre.x, p.y - centre.y)
        }
        // The corners: where the distance peaks, about a quarter turn apart.
        var bestStart = 0, bestScore = -1.0
        for j in 0..<(n / 4) {
            let s = (0..<4).reduce(0.0) { $0 + radius(j + $1 * n / 4) }
            if s > bestScore { bestScore = s; bestStart = j }
        }
        var corners: [Int] = []
        for k in 0..<4 {
            let base = bestStart + k * n / 4
            var best = base
            for d in -(n / 16)...(n / 16) where radius(base + d) > radius(best) { best = base + d }
            corners.append(best)
        }
        // A line through each side's points, away from the corners.
        var lines: [(p: Point, d: Point)] = []
        let margin = max(1, n / 32)
        for k in 0..<4 {
            let a = corners[k], b = corners[(k + 1) % 4] + (k == 3 ? n : 0)
            var pts: [Point] = []
            if b - a > 2 * margin {
                for i in (a + margin)...(b - margin) { if let p = points[((i % n) + n) % n] { pts.append(p) } }
            }
            guard pts.count >= 3, let line = fitLine(pts) else { return nil }
            lines.append(line)
        }
        var out: [Point] = []
        for k in 0..<4 {
            guard let p = intersect(lines[(k + 3) % 4], lines[k]) else { return nil }
            out.append(p)
        }
        return out
    }

    /// The angle between the directions from `centre` to `a` and to `b`.
    static func angleBetween(_ a: Point, _ b: Point, _ centre: Point) -> Double {
        let d = abs(atan2(a.y - centre.y, a.x - centre.x) - atan2(b.y - centre.y, b.x - centre.x))
        return min(d, 2 * Double.pi - d)
    }

    static func fitLine(_ pts: [Point]) -> (p: Point, d: Point)? {
        let n = Double(pts.count)
        let mx = pts.map(\.x).reduce(0, +) / n, my = pts.map(\.y).reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in pts {
            sxx += (p.x - mx) * (p.x - mx)
            sxy += (p.x - mx) * (p.y - my)
            syy += (p.y - my) * (p.y - my)
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (Point(x: mx, y: my), Point(x: cos(angle), y: sin(angle)))
    }

    static func intersect(_ l1: (p: Point, d: Point), _ l2: (p: Point, d: Point)) -> Point? {
        let det = l1.d.x * l2.d.y - l1.d.y * l2.d.x
        guard abs(det) > 1e-6 else { return nil }
        let dx = l2.p.x - l1.p.x, dy = l2.p.y - l1.p.y
        let t = (dx * l2.d.y - dy * l2.d.x) / det
        return Point(x: l1.p.x + t * l1.d.x, y: l1.p.y + t * l1.d.y)
    }

    // MARK: Reading

    /// Whether the binary image is dark where module (x, y) of the centred grid `h` maps.
    func dark(_ h: Homography, _ x: Double, _ y: Double) -> Bool? {
        let p = h.apply(x, y)
        let xi = Int(p.x.rounded(.down)), yi = Int(p.y.rounded(.down))
        guard xi >= 0, yi >= 0, xi < bin.width, yi < bin.height else { return nil }
        return bin.isDark(xi, yi)
    }

    /// A decoded symbol and its corners in this image's pixels (TL, TR, BR, BL as it reads).
    func read(_ found: BullsEye) -> (DecodedAztec, [Point])? {
        // The rays count colour changes from a dark start: they must leave from inside the centre
        // module, so the centre is taken again as that module's middle (a row's and a column's
        // runs through a turned module can end off its middle by half a module).
        var c = found
        if let middle = centreModule(c) { (c.x, c.y) = (middle.x, middle.y) }
        var centre = Point(x: c.x, y: c.y)
        let rays = 64
        // Edges 3–6 lie on the squares at 2.5, 3.5, 4.5 and 5.5 modules (the last two in
        // full-range symbols only).
        var edges = edgePoints(c, edges: [3, 4, 5, 6], rays: rays)
        var square35 = Self.fitSquare(edges[1], centre: centre)
        // Where the square's diagonals cross a module or more away from where the rays left,
        // they are cast again from there.
        if let s = square35, let middle = Self.intersect(Self.line(s[0], s[2]), Self.line(s[1], s[3])),
            hypot(middle.x - c.x, middle.y - c.y) > 0.25 * c.ring,
            hypot(middle.x - c.x, middle.y - c.y) < 2 * c.ring
        {
            var moved = c
            (moved.x, moved.y) = (middle.x, middle.y)
            let again = edgePoints(moved, edges: [3, 4, 5, 6], rays: rays)
            if let s2 = Self.fitSquare(again[1], centre: middle) {
                (c, centre, edges, square35) = (moved, middle, again, s2)
            }
        }
        guard let inner = square35 else {
            log?("aztec: no square at 3.5 modules")
            return nil
        }
        let square = [Point(x: -3.5, y: -3.5), Point(x: 3.5, y: -3.5), Point(x: 3.5, y: 3.5), Point(x: -3.5, y: 3.5)]
        guard let h = Homography(from: square, to: inner) else { return nil }
        // Full-range: ring 5 light and ring 6 dark all round.
        var light5 = 0, dark6 = 0, total5 = 0, total6 = 0
        for t in -5...5 {
            for (x, y) in [(t, -5), (5, t), (-t, 5), (-5, -t)] {
                total5 += 1
                if dark(h, Double(x), Double(y)) == false { light5 += 1 }
            }
        }
        for t in -6...6 {
            for (x, y) in [(t, -6), (6, t), (-t, 6), (-6, -t)] {
                total6 += 1
                if dark(h, Double(x), Double(y)) == true { dark6 += 1 }
            }
        }
        let likelyFull = light5 * 10 >= total5 * 9 && dark6 * 10 >= total6 * 9
        // Blur or a coarse threshold can hide a full-range core's rings: one nearly there is read
        // as compact first, then as full-range (the mode message's check decides).
        let nearlyFull = light5 * 10 >= total5 * 7 && dark6 * 10 >= total6 * 7
        let modes = likelyFull ? [true] : nearlyFull ? [false, true] : [false]
        var misses = Int.max
        for full in modes {
            // Every ring's corners, turned to match the inner square's, fitted together.
            let rings = [(edges[1], 3.5), (edges[0], 2.5)] + (full ? [(edges[2], 4.5), (edges[3], 5.5)] : [])
            if let (from, to) = Self.squares(rings, reference: inner, centre: centre),
                let read = readCore(full: full, start: h, from: from, to: to, misses: &misses)
            {
                return read
            }
        }
        // Blur and the threshold widen the dark rings (or the light ones) and so move each edge by
        // the same amount outwards or inwards, which scales the grid the edges give. The middles
        // of the rings between two edges do not move: the grid is fitted again on them (the light
        // ring at 3 and the dark one at 2; at 4 and 5 in a full-range core too). Only where the
        // first grid nearly found the orientation marks (a target that is no Aztec core misses
        // about half of them).
        guard misses <= 4 else { return nil }
        let more = edgePoints(c, edges: [2], rays: rays)[0]
        func middles(_ a: [Point?], _ b: [Point?]) -> [Point?] {
            zip(a, b).map { p, q in
                guard let p, let q else { return nil }
                return Point(x: (p.x + q.x) / 2, y: (p.y + q.y) / 2)
            }
        }
        let ring3 = middles(edges[0], edges[1]), ring2 = middles(more, edges[0])
        guard let square3 = Self.fitSquare(ring3, centre: centre) else { return nil }
        for full in modes {
            let rings = [(ring3, 3.0), (ring2, 2.0)] + (full ? [(middles(edges[1], edges[2]), 4.0), (middles(edges[2], edges[3]), 5.0)] : [])
            guard let (from, to) = Self.squares(rings, reference: square3, centre: centre),
                let start = Homography(leastSquaresFrom: from, to: to)
            else { continue }
            log?("aztec: grid fitted on the rings' middles")
            if let read = readCore(full: full, start: start, from: from, to: to, misses: &misses) { return read }
        }
        return nil
    }

    /// Module and image points of the corners of the squares the rings' points trace (`radius` in
    /// modules), each square turned to match `reference` (the first ring's): nil when the first
    /// ring gives no square.
    static func squares(_ rings: [([Point?], Double)], reference: [Point], centre: Point) -> ([Point], [Point])? {
        var from: [Point] = [], to: [Point] = []
        let unit = [Point(x: -1, y: -1), Point(x: 1, y: -1), Point(x: 1, y: 1), Point(x: -1, y: 1)]
        for (k, (points, radius)) in rings.enumerated() {
            guard var corners = Self.fitSquare(points, centre: centre) else {
                if k == 0 { return nil }
                continue
            }
            let turn = (0..<4).min { a, b in
                (0..<4).reduce(0.0) { $0 + Self.angleBetween(corners[($1 + a) % 4], reference[$1], centre) }
                    < (0..<4).reduce(0.0) { $0 + Self.angleBetween(corners[($1 + b) % 4], reference[$1], centre) }
            } ?? 0
            corners = (0..<4).map { corners[($0 + turn) % 4] }
            from += unit.map { Point(x: $0.x * radius, y: $0.y * radius) }
            to += corners
        }
        return (from, to)
    }

    /// The symbol around a core read as compact or full-range, from the grid `start` the inner
    /// square gives, fitted again (least squares) to the rings' corners `from` → `to`.
    /// `misses` is lowered to the fewest orientation marks any orientation missed.
    func readCore(full: Bool, start: Homography, from: [Point], to: [Point], misses: inout Int) -> (DecodedAztec, [Point])? {
        var h = start
        if from.count > 4, let fitted = Homography(leastSquaresFrom: from, to: to) { h = fitted }
        let r = full ? 7 : 5
        log?("aztec: \(full ? "full-range" : "compact") core, corners \(to.prefix(4).map { "(\(Int($0.x)),\(Int($0.y)))" })")
        // The orientation marks: before, at and after each corner, clockwise.
        let marks: [[(Int, Int)]] = [
            [(-r, -r + 1), (-r, -r), (-r + 1, -r)],
            [(r - 1, -r), (r, -r), (r, -r + 1)],
            [(r, r - 1), (r, r), (r - 1, r)],
            [(-r + 1, r), (-r, r), (-r, r - 1)],
        ]
        let expected: [[Bool]] = [[true, true, true], [false, true, true], [true, false, false], [false, false, false]]
        let modeUpright = AztecLayout.modePositions(compact: !full)
        // Orientations by how well the marks fit, best first; the mode message decides.
        var orientations: [(rotation: Int, mirrored: Bool, misses: Int)] = []
        for mirrored in [false, true] {
            for rotation in 0..<4 {
                var misses = 0
                for (corner, three) in marks.enumerated() {
                    for (k, (x, y)) in three.enumerated() {
                        let (ix, iy) = Self.orient(x, y, rotation: rotation, mirrored: mirrored)
                        _ = corner
                        if dark(h, Double(ix), Double(iy)) != expected[corner][k] { misses += 1 }
                    }
                }
                orientations.append((rotation, mirrored, misses))
            }
        }
        orientations.sort { $0.misses < $1.misses }
        misses = min(misses, orientations.first?.misses ?? misses)
        log?("aztec: orientation marks \(orientations.prefix(3).map { "\($0.rotation)\($0.mirrored ? "m" : "") misses \($0.misses)" })")
        for o in orientations where o.misses <= 2 {
            var bits: [Bool] = []
            for (x, y) in modeUpright {
                let (ix, iy) = Self.orient(x, y, rotation: o.rotation, mirrored: o.mirrored)
                guard let d = dark(h, Double(ix), Double(iy)) else { return nil }
                bits.append(d)
            }
            if let log { log("decoder input \(DecoderInput.aztecMode(bits: bits, compact: !full).hex)") }
            guard let mode = AztecLayout.mode(bits, compact: !full) else {
                log?("aztec: mode message \(bits.map { $0 ? "1" : "0" }.joined()) not corrected")
                continue
            }
            log?("aztec: mode \(mode)")
            if !mode.compact && mode.size / 2 > 12 {
                h = refinedOnGrid(h, half: mode.size / 2, from: from, to: to)
            }
            let half = Double(mode.size / 2)
            func corners() -> [Point] {
                let e = half + 0.5
                return [(-e, -e), (e, -e), (e, e), (-e, e)].map { (x, y) in
                    let q = Self.orient(x, y, rotation: o.rotation, mirrored: o.mirrored)
                    return h.apply(q.0, q.1)
                }
            }
            if mode.rune {
                // A rune is the core alone: its mode message checks with only five words of four
                // bits, so it is taken only where light surrounds it (the two rings outside it
                // mostly light), never from a larger symbol's core.
                guard Self.quiet(outside: 5, in: { dark(h, $0, $1) }) else {
                    log?("aztec: a rune's mode message, but no quiet zone round it")
                    continue
                }
                let text = String(format: "%03d", mode.dataCodewords)
                return (DecodedAztec(bytes: Array(text.utf8), gs1: false, eci: nil, compact: true, layers: 0, mirrored: o.mirrored), corners())
            }
            let positions = AztecLayout.dataPositions(mode)
            let mid = mode.size / 2
            func sample(_ shift: ((Double, Double) -> (Double, Double))?) -> [Bool]? {
                var raw: [Bool] = []
                raw.reserveCapacity(positions.count)
                for (col, row) in positions {
                    var (ix, iy) = Self.orient(Double(col - mid), Double(row - mid), rotation: o.rotation, mirrored: o.mirrored)
                    if let shift { (ix, iy) = shift(ix, iy) }
                    guard let d = dark(h, ix, iy) else { return nil }
                    raw.append(d)
                }
                return raw
            }
            guard let raw = sample(nil) else { return nil }
            if let log {
                log("decoder input \(DecoderInput.aztecData(bits: raw, compact: mode.compact, layers: mode.layers, dataCodewords: mode.dataCodewords).hex)")
            }
            var corrected = AztecLayout.correctedData(raw, mode)
            // A large symbol bends away from any one homography: sampled again with each module
            // moved as the reference grid's nearest stretches are.
            if corrected == nil && !mode.compact && mid > 12, let field = displacements(h, half: mid), let moved = sample(field) {
                corrected = AztecLayout.correctedData(moved, mode)
                log?("aztec: sampled again along the reference grid: \(corrected == nil ? "not corrected" : "corrected")")
            }
            guard let data = corrected else {
                log?("aztec: data not corrected")
                return nil
            }
            if let log { log("decoder input \(DecoderInput.aztecText(bits: data).hex)") }
            guard let text = AztecText.decode(data) else {
                log?("aztec: data stream invalid")
                return nil
            }
            return (DecodedAztec(bytes: text.bytes, gs1: text.gs1, eci: text.eci, compact: mode.compact, layers: mode.layers, mirrored: o.mirrored), corners())
        }
        return nil
    }

    /// `h` fitted again to a full-range symbol's reference grid: its lines every 16 modules from the
    /// centre alternate dark and light (dark on even coordinates), so each crossing is found near
    /// where `h` puts it as the offset at which a cross of nine modules each way matches best. The
    /// crossings are taken ring by ring outwards, `h` refitted (least squares, with the core's
    /// corners) after each ring, so each ring is looked for where the inner ones put it.
    func refinedOnGrid(_ start: Homography, half: Int, from: [Point], to: [Point]) -> Homography {
        var h = start, from = from, to = to
        // First the centre lines, which run across the whole symbol: followed outwards two
        // modules at a time, each stretch of five modules placed where it alternates best along
        // the line and across it.
        let steps = stride(from: -0.6, through: 0.61, by: 0.15).map { $0 }
        for reach in stride(from: 10, through: half - 2, by: 2) {
            var added = 0
            for (ax, ay) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let px = Double(ax * reach), py = Double(ay * reach)
                var best = (score: -1.0, along: 0.0, across: 0.0)
                for along in steps {
                    for across in steps {
                        // Contrast: the mean of the modules that should be dark less the light ones.
                        var score = 0.0
                        for t in -2...2 {
                            let x = px + Double(ax * t) + Double(ax) * along + Double(ay) * across
                            let y = py + Double(ay * t) + Double(ay) * along + Double(ax) * across
                            guard let d = dark(h, x, y) else { continue }
                            score += (d == ((reach + t) % 2 == 0)) ? 1 : 0
                        }
                        let penalty = (along * along + across * across) * 0.01
                        if score - penalty > best.score { best = (score - penalty, along, across) }
                    }
                }
                guard best.score >= 4.9 else { continue }
                from.append(Point(x: px, y: py))
                to.append(h.apply(px + Double(ax) * best.along + Double(ay) * best.across, py + Double(ay) * best.along + Double(ax) * best.across))
                added += 1
            }
            if added >= 2, let fitted = Homography(leastSquaresFrom: from, to: to) { h = fitted }
        }
        let rings = (half - 1) / 16
        guard rings >= 1 else { return h }
        let offsets = stride(from: -1.2, through: 1.21, by: 0.2).map { $0 }
        for ring in 1...rings {
            var added = 0
            for i in -ring...ring {
                for j in -ring...ring where max(abs(i), abs(j)) == ring {
                    let gx = Double(16 * i), gy = Double(16 * j)
                    var best = (score: -1, samples: 1, dx: 0.0, dy: 0.0)
                    for ox in offsets {
                        for oy in offsets {
                            var score = 0, samples = 0
                            for t in -4...4 {
                                let expected = t % 2 == 0
                                if abs(16 * i + t) <= half {
                                    samples += 1
                                    if dark(h, gx + Double(t) + ox, gy + oy) == expected { score += 1 }
                                }
                                if t != 0 && abs(16 * j + t) <= half {
                                    samples += 1
                                    if dark(h, gx + ox, gy + Double(t) + oy) == expected { score += 1 }
                                }
                            }
                            if score > best.score || (score == best.score && ox * ox + oy * oy < best.dx * best.dx + best.dy * best.dy) {
                                best = (score, samples, ox, oy)
                            }
                        }
                    }
                    guard best.score * 10 >= best.samples * 8 else { continue }
                    from.append(Point(x: gx, y: gy))
                    to.append(h.apply(gx + best.dx, gy + best.dy))
                    added += 1
                }
            }
            log?("aztec: reference grid ring \(ring): \(added) crossings found")
            if added >= 3, let fitted = Homography(leastSquaresFrom: from, to: to) { h = fitted }
        }
        return h
    }

    /// How far each stretch of five modules of the reference grid's lines lies from where `h` puts
    /// it (in modules, along and across its line), as a map moving any grid point by the mean of
    /// the shifts of the stretches within four modules of it (weighted by nearness; unmoved where
    /// there is none). Nil when too few stretches are found.
    func displacements(_ h: Homography, half: Int) -> ((Double, Double) -> (Double, Double))? {
        var anchors: [(x: Double, y: Double, dx: Double, dy: Double)] = []
        let steps = stride(from: -0.5, through: 0.51, by: 0.25).map { $0 }
        let lines = stride(from: -(half / 16) * 16, through: half, by: 16).map { $0 }
        for a in lines {
            for t in stride(from: -half + 2, through: half - 2, by: 2) where abs(t) > 8 || abs(a) > 8 {
                for vertical in [false, true] {
                    // The stretch centred on (a, t) of a vertical line, or (t, a) of a horizontal one.
                    let (px, py) = vertical ? (Double(a), Double(t)) : (Double(t), Double(a))
                    var best = (score: -1.0, dx: 0.0, dy: 0.0)
                    for along in steps {
                        for across in steps {
                            let (dx, dy) = vertical ? (across, along) : (along, across)
                            var score = 0.0
                            for k in -2...2 {
                                let (x, y) = vertical ? (px + dx, py + Double(k) + dy) : (px + Double(k) + dx, py + dy)
                                if dark(h, x, y) == ((t + k) % 2 == 0) { score += 1 }
                            }
                            score -= (dx * dx + dy * dy) * 0.01
                            if score > best.score { best = (score, dx, dy) }
                        }
                    }
                    if best.score >= 4.9 { anchors.append((px, py, best.dx, best.dy)) }
                }
            }
        }
        guard anchors.count >= 8 else { return nil }
        return { x, y in
            var sx = 0.0, sy = 0.0, sw = 0.0
            for a in anchors {
                let d2 = (a.x - x) * (a.x - x) + (a.y - y) * (a.y - y)
                guard d2 <= 16 else { continue }
                let w = 1 / (1 + d2)
                sx += w * a.dx
                sy += w * a.dy
                sw += w
            }
            return sw > 0 ? (x + sx / sw, y + sy / sw) : (x, y)
        }
    }

    /// Whether the two square rings of modules just outside the square of half-side `half` are
    /// nine tenths light (`dark` gives a module's colour, nil outside the image: a symbol filling
    /// its picture has no dark there).
    static func quiet(outside half: Int, in dark: (Double, Double) -> Bool?) -> Bool {
        var darkCount = 0, total = 0
        for r in (half + 1)...(half + 2) {
            for t in -r..<r {
                for (x, y) in [(t, -r), (r, t), (-t, r), (-r, -t)] {
                    total += 1
                    if dark(Double(x), Double(y)) == true { darkCount += 1 }
                }
            }
        }
        return darkCount * 10 <= total
    }

    /// Upright symbol coordinates to the image grid's: mirrored (transposed) first, then turned a
    /// quarter clockwise `rotation` times.
    static func orient<T: SignedNumeric>(_ x: T, _ y: T, rotation: Int, mirrored: Bool) -> (T, T) {
        var (a, b) = mirrored ? (y, x) : (x, y)
        for _ in 0..<rotation { (a, b) = (-b, a) }
        return (a, b)
    }
}

extension ReadSession {
    var wantsAztec: Bool { options.symbologies.contains(.aztec) }

    /// Aztec symbols: bull's-eyes looked for on the reduced level (``readBullsEyes(_:first:read:)``).
    mutating func readAztec() {
        guard wantsAztec else { return }
        let logger: Logger? = debug ? self.logger : nil
        readBullsEyes(.aztec, first: 12) { bin, c in
            var reader = AztecReader(bin: bin)
            if let logger { reader.log = { logger.trace("\($0)") } }
            guard let (decoded, corners) = reader.read(c) else { return nil }
            let raw = RawSymbol(symbology: .aztec, bytes: decoded.bytes, points: [], quality: 1, isGS1: decoded.gs1)
            return (raw, corners, c.ring)
        }
    }
}
