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

    /// The transform taking each `from` point to the matching `to` point (four pairs), or `nil`
    /// when the points are degenerate.
    init?(from: [Point], to: [Point]) {
        precondition(from.count == 4 && to.count == 4)
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y)
            a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..<8 {
            var pivot = col
            for r in col..<8 where abs(a[r][col]) > abs(a[pivot][col]) { pivot = r }
            guard abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            let d = a[col][col]
            for k in col..<9 { a[col][k] /= d }
            for r in 0..<8 where r != col {
                let f = a[r][col]
                if f != 0 { for k in col..<9 { a[r][k] -= f * a[col][k] } }
            }
        }
        let m = (0..<8).map { a[$0][8] }
        guard m.allSatisfy(\.isFinite) else { return nil }
        self.init(m)
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
