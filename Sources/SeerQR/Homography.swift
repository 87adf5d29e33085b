/// A plane projective transform: `(x, y) ↦ ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1))`.
struct Homography: Sendable {
    var a, b, c, d, e, f, g, h: Double

    /// The eight coefficients a b c d e f g h.
    var m: [Double] {
        get { [a, b, c, d, e, f, g, h] }
        set { (a, b, c, d, e, f, g, h) = (newValue[0], newValue[1], newValue[2], newValue[3], newValue[4], newValue[5], newValue[6], newValue[7]) }
    }

    init(_ m: [Double]) {
        (a, b, c, d, e, f, g, h) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7])
    }

    init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double, g: Double, h: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h) = (a, b, c, d, e, f, g, h)
    }

    /// The transform taking each `from` point to the matching `to` point (four pairs), or `nil`
    /// when the points are degenerate.
    init?(from: [Point], to: [Point]) {
        precondition(from.count == 4 && to.count == 4)
        // The 8 × 9 augmented system, row by row, in a buffer on the stack (no allocation: it is
        // solved for every corner tried while outlines are refined).
        let solved = withUnsafeTemporaryAllocation(of: Double.self, capacity: 72) { a -> Homography? in
            for i in 0..<4 {
                let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y)
                let r = 18 * i
                (a[r], a[r + 1], a[r + 2], a[r + 3], a[r + 4], a[r + 5], a[r + 6], a[r + 7], a[r + 8]) = (x, y, 1, 0, 0, 0, -u * x, -u * y, u)
                (a[r + 9], a[r + 10], a[r + 11], a[r + 12], a[r + 13], a[r + 14], a[r + 15], a[r + 16], a[r + 17]) = (0, 0, 0, x, y, 1, -v * x, -v * y, v)
            }
            // Gaussian elimination with partial pivoting.
            for col in 0..<8 {
                var pivot = col
                for r in col..<8 where abs(a[9 * r + col]) > abs(a[9 * pivot + col]) { pivot = r }
                guard abs(a[9 * pivot + col]) > 1e-12 else { return nil }
                if pivot != col { for k in 0..<9 { a.swapAt(9 * col + k, 9 * pivot + k) } }
                let d = a[9 * col + col]
                for k in col..<9 { a[9 * col + k] /= d }
                for r in 0..<8 where r != col {
                    let f = a[9 * r + col]
                    if f != 0 { for k in col..<9 { a[9 * r + k] -= f * a[9 * col + k] } }
                }
            }
            let h = Homography(a: a[8], b: a[17], c: a[26], d: a[35], e: a[44], f: a[53], g: a[62], h: a[71])
            let finite = h.a.isFinite && h.b.isFinite && h.c.isFinite && h.d.isFinite && h.e.isFinite && h.f.isFinite && h.g.isFinite && h.h.isFinite
            return finite ? h : nil
        }
        guard let solved else { return nil }
        self = solved
    }

    /// An affine transform from three pairs (the fourth completes the parallelogram).
    init?(affineFrom from: [Point], to: [Point]) {
        let f4 = Point(x: from[1].x + from[2].x - from[0].x, y: from[1].y + from[2].y - from[0].y)
        let t4 = Point(x: to[1].x + to[2].x - to[0].x, y: to[1].y + to[2].y - to[0].y)
        self.init(from: [from[0], from[1], from[2], f4], to: [to[0], to[1], to[2], t4])
    }

    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> Point {
        let w = g * x + h * y + 1
        return Point(x: (a * x + b * y + c) / w, y: (d * x + e * y + f) / w)
    }

    func apply(_ p: Point) -> Point { apply(p.x, p.y) }
}
