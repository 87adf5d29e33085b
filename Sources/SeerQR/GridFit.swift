import SeerImage

/// A QR Code's position as the image points of its four outer corners (module coordinates (0, 0),
/// (n, 0), (n, n), (0, n)), and the projective map they define.
struct CodeQuad: Sendable {
    /// Top-left, top-right, bottom-right, bottom-left as the code reads.
    var corners: [Point]
    let dimension: Int

    /// The map from module coordinates to image pixels (the square's closed-form projective map,
    /// scaled by the dimension).
    var homography: Homography? {
        Homography(squareTo: corners, side: Double(dimension))
    }
}

extension Homography {
    /// The projective map taking the square (0, 0), (s, 0), (s, s), (0, s) to `q` (four points in
    /// that order), in closed form; nil when `q` is degenerate.
    init?(squareTo q: [Point], side s: Double) {
        let (x0, y0, x1, y1, x2, y2, x3, y3) = (q[0].x, q[0].y, q[1].x, q[1].y, q[2].x, q[2].y, q[3].x, q[3].y)
        let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
        let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
        let den = dx1 * dy2 - dx2 * dy1
        guard abs(den) > 1e-12 else { return nil }
        let g = (sx * dy2 - dx2 * sy) / den
        let h = (dx1 * sy - sx * dy1) / den
        let a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, c = x0
        let d = y1 - y0 + g * y1, e = y3 - y0 + h * y3, f = y0
        let inv = 1 / s
        guard a.isFinite, b.isFinite, d.isFinite, e.isFinite, g.isFinite, h.isFinite else { return nil }
        (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h) = (a * inv, b * inv, c, d * inv, e * inv, f, g * inv, h * inv)
    }
}

/// The function patterns of a version whose modules are known before decoding: the three finders
/// with their light separators, the timing patterns and the alignment patterns. Module centres, split
/// into those that must be dark and those that must be light.
struct FunctionPattern: Sendable {
    var dark: [(Double, Double)] = []
    var light: [(Double, Double)] = []
    /// Centres of data modules (a sample of at most `dataLimit`): whatever their colour, a grid in
    /// register puts them clearly on one side of the threshold.
    var data: [(Double, Double)] = []

    /// An empty pattern, to fill by hand.
    init() {}

    init(dimension n: Int, alignmentLimit: Int = 64, dataLimit: Int = 0) {
        func add(_ x: Int, _ y: Int, _ isDark: Bool) {
            guard x >= 0, y >= 0, x < n, y < n else { return }
            if isDark { dark.append((Double(x) + 0.5, Double(y) + 0.5)) } else { light.append((Double(x) + 0.5, Double(y) + 0.5)) }
        }
        for (cx, cy) in [(3, 3), (n - 4, 3), (3, n - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let ring = max(abs(dx), abs(dy))
                    add(cx + dx, cy + dy, ring != 2 && ring != 4)
                }
            }
        }
        for k in 8..<(n - 8) {
            add(k, 6, k % 2 == 0)
            add(6, k, k % 2 == 0)
        }
        if let version = QRSpec.version(dimension: n) {
            let positions = QRSpec.alignmentPositions(version: version)
            var centres: [(Int, Int)] = []
            for (i, cy) in positions.enumerated() {
                for (j, cx) in positions.enumerated() {
                    let last = positions.count - 1
                    if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                    centres.append((cx, cy))
                }
            }
            // Large versions: the outermost alignment patterns constrain the map most.
            if centres.count > alignmentLimit {
                centres.sort { max($0.0, $0.1) > max($1.0, $1.1) }
                centres = Array(centres.prefix(alignmentLimit))
            }
            for (cx, cy) in centres {
                for dy in -2...2 {
                    for dx in -2...2 { add(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
            if dataLimit > 0 {
                let layout = QRSpec.layout(version: version)
                let stride = max(1, layout.dataOrder.count / dataLimit)
                for k in Swift.stride(from: 0, to: layout.dataOrder.count, by: stride) {
                    let index = Int(layout.dataOrder[k])
                    data.append((Double(index % n) + 0.5, Double(index / n) + 0.5))
                }
            }
        }
    }
}

/// Refines a code's quad so that its function patterns fit the image best: each corner coordinate in
/// turn is moved by a step while that raises the separation between the greys where modules must be
/// dark and where they must be light (difference of means over the pooled deviation); the step halves
/// when no move helps. This finds perspective the three finder centres cannot give, and corrects
/// finder centres that blur or a coarse locator placed off by a fraction of a module.
struct GridFit {
    let image: GrayImage
    /// Light modules on a dark ground: the contrast is measured the other way round.
    var inverted = false

    func fitness(_ h: Homography, _ pattern: FunctionPattern) -> Double {
        let w = image.width, hgt = image.height
        return image.pixels.withUnsafeBufferPointer { p -> Double in
            var sd = 0.0, sd2 = 0.0, sl = 0.0, sl2 = 0.0
            for (u, v) in pattern.dark {
                let q = h.apply(u, v)
                let g = Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                sd += g
                sd2 += g * g
            }
            for (u, v) in pattern.light {
                let q = h.apply(u, v)
                let g = Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                sl += g
                sl2 += g * g
            }
            let nd = Double(pattern.dark.count), nl = Double(pattern.light.count)
            let md = sd / nd, ml = sl / nl
            let variance = max(0, sd2 / nd - md * md) + max(0, sl2 / nl - ml * ml)
            let separation = (inverted ? md - ml : ml - md) / (variance + 25).squareRoot()
            guard !pattern.data.isEmpty, separation > 0 else { return separation }
            // Data modules in register sit near one of the two levels, not between them.
            let half = abs(ml - md) / 2, middle = (ml + md) / 2
            var off = 0.0
            for (u, v) in pattern.data {
                let q = h.apply(u, v)
                let g = Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                off += max(0, 1 - abs(g - middle) / max(half, 1))
            }
            let sharpness = 1 - off / Double(pattern.data.count)
            return separation * (0.5 + sharpness)
        }
    }

    /// Separation of the timing patterns' dark and light modules alone (row and column 6 between the
    /// finders): finders of three different codes can line up like one code's, but only a real code
    /// has the alternating timing modules between them.
    func timingContrast(_ h: Homography, dimension n: Int) -> Double {
        guard n >= 21 else { return 0 }
        var pattern = FunctionPattern()
        for k in 8..<(n - 8) {
            let on = k % 2 == 0
            let a = (Double(k) + 0.5, 6.5), b = (6.5, Double(k) + 0.5)
            if on { pattern.dark += [a, b] } else { pattern.light += [a, b] }
        }
        return fitness(h, pattern)
    }

    /// The refined quad and its fitness.
    func refine(_ start: CodeQuad, module: Double, pattern: FunctionPattern? = nil) -> (quad: CodeQuad, fitness: Double) {
        let pattern = pattern ?? FunctionPattern(dimension: start.dimension, alignmentLimit: 12, dataLimit: 150)
        var quad = start
        guard let h0 = quad.homography else { return (start, -.infinity) }
        var best = fitness(h0, pattern)
        var step = max(0.5, module * 0.5)
        let minimum = max(0.1, module * 0.06)
        var rounds = 0
        while step >= minimum && rounds < 40 {
            rounds += 1
            // Nothing that looks like a code after a few rounds: give up early (most candidates are not codes).
            if rounds == 6 && best < 1.5 { break }
            var improved = false
            for k in 0..<8 {
                for sign in [1.0, -1.0] {
                    var trial = quad
                    if k % 2 == 0 { trial.corners[k / 2].x += sign * step } else { trial.corners[k / 2].y += sign * step }
                    guard let h = trial.homography else { continue }
                    let f = fitness(h, pattern)
                    if f > best {
                        best = f
                        quad = trial
                        improved = true
                        break
                    }
                }
            }
            if !improved { step /= 2 }
        }
        return (quad, best)
    }
}
