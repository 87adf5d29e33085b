import SeerImage
#if canImport(Glibc)
import Glibc
#endif

extension Homography {
    /// The transform that best takes each `from` point to the matching `to` point in the least-squares
    /// sense (four or more pairs), or `nil` when the points are degenerate. Both sets are first
    /// centred and scaled to unit mean distance, so the equations stay well conditioned.
    init?(leastSquaresFrom from: [Point], to: [Point]) {
        precondition(from.count == to.count)
        guard from.count >= 4 else { return nil }
        func normalising(_ points: [Point]) -> (cx: Double, cy: Double, s: Double) {
            let n = Double(points.count)
            let cx = points.reduce(0) { $0 + $1.x } / n, cy = points.reduce(0) { $0 + $1.y } / n
            let mean = points.reduce(0) { $0 + ((($1.x - cx) * ($1.x - cx) + ($1.y - cy) * ($1.y - cy)).squareRoot()) } / n
            return (cx, cy, mean > 1e-9 ? 1 / mean : 1)
        }
        let nf = normalising(from), nt = normalising(to)
        // Normal equations AᵀA m = Aᵀb of the eight unknowns (the ninth coefficient is 1).
        var ata = [Double](repeating: 0, count: 64), atb = [Double](repeating: 0, count: 8)
        for (p, q) in zip(from, to) {
            let x = (p.x - nf.cx) * nf.s, y = (p.y - nf.cy) * nf.s
            let u = (q.x - nt.cx) * nt.s, v = (q.y - nt.cy) * nt.s
            for (row, rhs) in [([x, y, 1, 0, 0, 0, -u * x, -u * y], u), ([0, 0, 0, x, y, 1, -v * x, -v * y], v)] {
                for i in 0..<8 {
                    atb[i] += row[i] * rhs
                    for j in 0..<8 { ata[i * 8 + j] += row[i] * row[j] }
                }
            }
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..<8 {
            var pivot = col
            for r in col..<8 where abs(ata[r * 8 + col]) > abs(ata[pivot * 8 + col]) { pivot = r }
            guard abs(ata[pivot * 8 + col]) > 1e-12 else { return nil }
            if pivot != col {
                for k in 0..<8 { ata.swapAt(col * 8 + k, pivot * 8 + k) }
                atb.swapAt(col, pivot)
            }
            for r in (col + 1)..<8 {
                let f = ata[r * 8 + col] / ata[col * 8 + col]
                if f == 0 { continue }
                for k in col..<8 { ata[r * 8 + k] -= f * ata[col * 8 + k] }
                atb[r] -= f * atb[col]
            }
        }
        var m = [Double](repeating: 0, count: 8)
        for r in stride(from: 7, through: 0, by: -1) {
            var acc = atb[r]
            for k in (r + 1)..<8 { acc -= ata[r * 8 + k] * m[k] }
            m[r] = acc / ata[r * 8 + r]
        }
        // Undo the normalisations: H = T_to⁻¹ · Hn · T_from, then scale so the last coefficient is 1.
        let hn = [m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], 1.0]
        let tf = [nf.s, 0, -nf.s * nf.cx, 0, nf.s, -nf.s * nf.cy, 0, 0, 1]
        let ti = [1 / nt.s, 0, nt.cx, 0, 1 / nt.s, nt.cy, 0, 0, 1]
        func product(_ a: [Double], _ b: [Double]) -> [Double] {
            var out = [Double](repeating: 0, count: 9)
            for row in 0..<3 {
                for column in 0..<3 {
                    var acc = 0.0
                    for k in 0..<3 { acc += a[row * 3 + k] * b[k * 3 + column] }
                    out[row * 3 + column] = acc
                }
            }
            return out
        }
        let full = product(ti, product(hn, tf))
        guard abs(full[8]) > 1e-12 else { return nil }
        let scaled = full.map { $0 / full[8] }
        guard scaled.allSatisfy(\.isFinite) else { return nil }
        self.init(Array(scaled.prefix(8)))
    }
}

extension GridFit {
    /// The code's transform from the outlines of its three finder patterns, starting from `h`.
    ///
    /// Each finder is a 7×7-module square whose outer edge meets light modules all round (the quiet
    /// zone or the separator), so its four sides can be found where the grey level crosses between
    /// the light outside and the dark ring, six points a side. Lines through them meet at the finder's
    /// corners: twelve points, three per corner region of the code, which fix the perspective a
    /// transform from the three centres alone cannot (a version-1 code seen at a low angle has no
    /// alignment pattern to fix it). `nil` when any side shows no clear edge.
    func fromFinderOutlines(_ h: Homography, dimension n: Int) -> Homography? {
        // Once more from the first answer: the sides are found where the better transform puts them.
        guard let first = outlines(h, dimension: n) else { return nil }
        return outlines(first, dimension: n) ?? first
    }

    private func outlines(_ h: Homography, dimension n: Int) -> Homography? {
        let w = image.width, hgt = image.height
        let d = Double(n)
        let origins = [(0.0, 0.0), (d - 7, 0.0), (0.0, d - 7)]
        var from: [Point] = [], to: [Point] = []
        return image.pixels.withUnsafeBufferPointer { p -> Homography? in
            func grey(_ u: Double, _ v: Double) -> Double {
                let q = h.apply(u, v)
                let g = Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                return inverted ? 255 - g : g
            }
            /// The edge along a side: points (u, v) on it, the inward normal (nu, nv), in modules.
            func edgeLine(_ points: [(Double, Double)], _ nu: Double, _ nv: Double) -> (Point, Point)? {
                var found: [Point] = []
                for (u, v) in points {
                    let outside = grey(u - 0.5 * nu, v - 0.5 * nv), inside = grey(u + 0.5 * nu, v + 0.5 * nv)
                    guard outside - inside >= 24 else { continue }
                    let threshold = (outside + inside) / 2
                    // Walk inwards from outside to the first crossing into the dark ring.
                    var previous = grey(u - 0.9 * nu, v - 0.9 * nv), s = -0.9
                    var crossing: Double?
                    while s < 0.9 {
                        let next = grey(u + (s + 0.05) * nu, v + (s + 0.05) * nv)
                        if previous >= threshold && next < threshold {
                            crossing = s + 0.05 * (previous - threshold) / max(previous - next, 1e-9)
                            break
                        }
                        previous = next
                        s += 0.05
                    }
                    if let c = crossing { found.append(h.apply(u + c * nu, v + c * nv)) }
                }
                guard found.count >= 4 else { return nil }
                // The line through them: centroid and principal direction.
                let k = Double(found.count)
                let cx = found.reduce(0) { $0 + $1.x } / k, cy = found.reduce(0) { $0 + $1.y } / k
                var sxx = 0.0, sxy = 0.0, syy = 0.0
                for q in found {
                    sxx += (q.x - cx) * (q.x - cx)
                    sxy += (q.x - cx) * (q.y - cy)
                    syy += (q.y - cy) * (q.y - cy)
                }
                let angle = 0.5 * atan2(2 * sxy, sxx - syy)
                let direction = Point(x: cos(angle), y: sin(angle))
                // The points must lie on it: a side crossed by another pattern is not an edge.
                let spread = found.map { q in abs((q.x - cx) * direction.y - (q.y - cy) * direction.x) }.max() ?? 0
                let a = h.apply(0, 0), b = h.apply(1, 0)
                let module = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                guard spread <= max(1, 0.25 * module) else { return nil }
                return (Point(x: cx, y: cy), direction)
            }
            func meet(_ l: (Point, Point), _ m: (Point, Point)) -> Point? {
                let (p0, r) = l, (q0, s) = m
                let denominator = r.x * s.y - r.y * s.x
                guard abs(denominator) > 1e-6 else { return nil }
                let t = ((q0.x - p0.x) * s.y - (q0.y - p0.y) * s.x) / denominator
                return Point(x: p0.x + t * r.x, y: p0.y + t * r.y)
            }
            let along = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
            for (ox, oy) in origins {
                guard let top = edgeLine(along.map { (ox + $0, oy) }, 0, 1),
                    let bottom = edgeLine(along.map { (ox + $0, oy + 7) }, 0, -1),
                    let left = edgeLine(along.map { (ox, oy + $0) }, 1, 0),
                    let right = edgeLine(along.map { (ox + 7, oy + $0) }, -1, 0)
                else { return nil }
                let corners = [(top, left, 0.0, 0.0), (top, right, 7.0, 0.0), (bottom, right, 7.0, 7.0), (bottom, left, 0.0, 7.0)]
                for (l, m, du, dv) in corners {
                    guard let q = meet(l, m) else { return nil }
                    from.append(Point(x: ox + du, y: oy + dv))
                    to.append(q)
                }
            }
            return Homography(leastSquaresFrom: from, to: to)
        }
    }
}
