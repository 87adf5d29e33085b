import Foundation
import Logging
import SeerImage

/// Finds MaxiCode bull's-eyes and reads the symbols around them (ISO/IEC 16023).
///
/// The bull's-eye is three dark rings around a light centre: a row through its centre crosses
/// eleven runs (dark, light, …, the light centre, …, dark) of about one ring's width each, the centre
/// wider. Such a row is confirmed down its column. Rays from the centre find the rings' five inner
/// edges, whose radii (in modules) fix the module pitch, and an ellipse fitted to them the symbol's
/// tilt. The orientation modules (six clusters of three around the bull's-eye) give the rotation,
/// and the hexagonal grid is sampled through the centre, pitch, tilt and rotation.
struct MaxiCodeReader {
    let bin: BinaryImage
    /// Receives the reading's steps (for tracing).
    var log: ((String) -> Void)? = nil

    /// The radius of the bull's-eye's outer edge, in module pitches: 4.46–4.5 on symbols of two
    /// writers (zint's, and those of zxing-cpp's samples), whose rings inside it differ (zint's
    /// light centre is 1.1 pitches across, the other's 2.25; their rings 0.78 and 0.69 pitches wide).
    static let outerRadius = 4.47
    /// A ring's width in module pitches (about).
    static let ringWidth = 0.74

    // MARK: Finding bull's-eyes

    /// The mean ring width when the eight runs between the outer ring and the centre are each
    /// within half of it of the mean, the centre is 1–2.6 of them wide, and the outer ring's runs
    /// (which may run on into dark modules) are long enough.
    static func evenRings(_ runs: [Int], centre: Int, outer: (Int, Int)) -> Double? {
        let total = runs.reduce(0, +)
        guard total >= 12 else { return nil }
        let m = Double(total) / 8
        let tolerance = max(0.5 * m, 1)
        for r in runs where abs(Double(r) - m) > tolerance { return nil }
        guard Double(centre) >= 0.9 * m, Double(centre) <= 4 * m + 2 else { return nil }
        guard Double(outer.0) >= 0.5 * m, Double(outer.1) >= 0.5 * m else { return nil }
        return m
    }

    /// The column through a row's centre holds the same runs: the centre, refined.
    func confirm(_ x: Double, _ y: Double, ring: Double) -> BullsEye? {
        let xi = Int(x), yi = Int(y)
        guard xi >= 0, xi < bin.width, yi >= 0, yi < bin.height, !bin.isDark(xi, yi) else { return nil }
        // The centre's part, then four runs, then the outer ring's start, each way.
        func runs(_ step: Int) -> [Int]? {
            bin.columnRuns(x: xi, y: yi, step: step, colour: false, runs: 5, close: 0.5 * ring, limit: Int(ring * 8) + 6)
        }
        guard let up = runs(-1), let down = runs(1) else { return nil }
        let centre = up[0] + down[0] - 1
        let rings = Array(up[1..<5].reversed()) + Array(down[1..<5])
        guard let m = Self.evenRings(rings, centre: centre, outer: (up[5], down[5])), m < 2 * ring, ring < 2 * m else { return nil }
        let cy = Double(yi - up[0] + 1) + Double(centre) / 2
        // The centre's width again on its own row.
        let row = min(bin.height - 1, max(0, Int(cy)))
        guard !bin.isDark(xi, row) else { return nil }
        var left = xi, right = xi
        while left > 0 && !bin.isDark(left - 1, row) && xi - left < Int(3 * m) + 2 { left -= 1 }
        while right < bin.width - 1 && !bin.isDark(right + 1, row) && right - xi < Int(3 * m) + 2 { right += 1 }
        let width = Double(right - left + 1)
        guard width <= 4 * m + 2, width >= 0.9 * m else { return nil }
        return BullsEye(x: Double(left) + width / 2, y: cy, ring: (m + ring) / 2, hits: 1)
    }

    // MARK: Geometry

    /// How module coordinates map to pixels: `pixel = centre + M · (u, v)`, (u, v) in module
    /// pitches about the bull's-eye, M = the symbol's shape (pitch and tilt, from the rings) turned by
    /// the rotation.
    struct Frame {
        var cx: Double, cy: Double
        var a: Double, b: Double, c: Double, d: Double

        func apply(_ u: Double, _ v: Double) -> (Double, Double) { (cx + a * u + b * v, cy + c * u + d * v) }

        /// Module (row, column)'s centre, the rows `rowPitch` apart.
        func module(_ row: Int, _ column: Int, rowPitch: Double) -> (Double, Double) {
            apply(Double(column) + (row & 1 == 1 ? 0.5 : 0) - 14, Double(row - 16) * rowPitch)
        }
    }

    /// The shape of the bull's-eye: the matrix taking a circle of one pitch to its ellipse in the
    /// image (symmetric; a multiple of the identity when the symbol faces the camera), fitted to its
    /// outer edge along 64 rays. A ray whose outer ring is much thicker than its inner rings ran into
    /// a dark module touching the ring, and is dropped.
    func shape(_ c: BullsEye) -> (Double, Double, Double)? {
        let rays = 64
        // Least squares for Q (x·Q·x = R² on the edge of radius R pitches): rows (cos², 2cs, sin²).
        var s11 = 0.0, s12 = 0.0, s13 = 0.0, s22 = 0.0, s23 = 0.0, s33 = 0.0
        var t1 = 0.0, t2 = 0.0, t3 = 0.0
        var points = 0
        let limit = c.ring * 9
        for k in 0..<rays {
            let angle = Double(k) * 2 * Double.pi / Double(rays)
            let dx = cos(angle), dy = sin(angle)
            var t = 0.0, changes = 0
            var colour = false
            var edges: [Double] = []
            while t < limit && changes < 6 {
                t += 0.25
                let xi = Int((c.x + dx * t).rounded(.down)), yi = Int((c.y + dy * t).rounded(.down))
                guard xi >= 0, yi >= 0, xi < bin.width, yi < bin.height else { break }
                let dark = bin.isDark(xi, yi)
                if dark != colour {
                    changes += 1
                    colour = dark
                    edges.append(t - 0.125)
                }
            }
            guard edges.count == 6 else { continue }
            let inner = max(edges[1] - edges[0], edges[3] - edges[2])
            guard edges[5] - edges[4] <= 1.6 * inner + 0.5 else { continue }
            let r = edges[5]
            let y = Self.outerRadius * Self.outerRadius / (r * r)
            let x1 = dx * dx, x2 = 2 * dx * dy, x3 = dy * dy
            s11 += x1 * x1; s12 += x1 * x2; s13 += x1 * x3; s22 += x2 * x2; s23 += x2 * x3; s33 += x3 * x3
            t1 += x1 * y; t2 += x2 * y; t3 += x3 * y
            points += 1
        }
        guard points >= rays / 2 else { return nil }
        // Solve the 3×3 normal equations (Cramer).
        let det = s11 * (s22 * s33 - s23 * s23) - s12 * (s12 * s33 - s23 * s13) + s13 * (s12 * s23 - s22 * s13)
        guard abs(det) > 1e-12 else { return nil }
        let qa = (t1 * (s22 * s33 - s23 * s23) - s12 * (t2 * s33 - s23 * t3) + s13 * (t2 * s23 - s22 * t3)) / det
        let qb = (s11 * (t2 * s33 - s23 * t3) - t1 * (s12 * s33 - s23 * s13) + s13 * (s12 * t3 - t2 * s13)) / det
        let qc = (s11 * (s22 * t3 - t2 * s23) - s12 * (s12 * t3 - t2 * s13) + t1 * (s12 * s23 - s22 * s13)) / det
        // Q positive definite, its axes at most 1:2.
        guard qa > 0, qc > 0, qa * qc - qb * qb > 0 else { return nil }
        // M = Q^(−1/2) by Q's eigenvectors.
        let mean = (qa + qc) / 2, diff = ((qa - qc) * (qa - qc) / 4 + qb * qb).squareRoot()
        let l1 = mean + diff, l2 = mean - diff
        guard l2 > 0, l1 / l2 <= 4 else { return nil }
        let theta = 0.5 * atan2(2 * qb, qa - qc)
        let e1 = (cos(theta), sin(theta)), e2 = (-sin(theta), cos(theta))
        let s1 = 1 / l1.squareRoot(), s2 = 1 / l2.squareRoot()
        return (s1 * e1.0 * e1.0 + s2 * e2.0 * e2.0, s1 * e1.0 * e1.1 + s2 * e2.0 * e2.1, s1 * e1.1 * e1.1 + s2 * e2.1 * e2.1)
    }

    /// Whether the binary image is dark at (x, y), nil outside it.
    @inline(__always) func dark(_ p: (Double, Double)) -> Bool? {
        let xi = Int(p.0.rounded(.down)), yi = Int(p.1.rounded(.down))
        guard xi >= 0, yi >= 0, xi < bin.width, yi < bin.height else { return nil }
        return bin.isDark(xi, yi)
    }

    // MARK: Reading

    /// A decoded symbol and its corners in this image's pixels (TL, TR, BR, BL as it reads).
    func read(_ c: BullsEye) -> (DecodedMaxiCode, [Point])? {
        guard let (ma, mb, md) = shape(c) else {
            log?("maxicode: the rings' edges do not fit an ellipse")
            return nil
        }
        log?("maxicode: shape \(String(format: "%.2f %.2f %.2f", ma, mb, md)) pixels a pitch")
        // The rotation: each whole degree scored by the orientation modules, first on the standard's
        // grid. A symbol rastered at a few pixels a module has its rows rounded to whole pixels and
        // its bull's-eye drawn to scale (zint at five pixels a module: rows 0.8 of a module apart, the
        // outer ring 4.7 modules from the centre); on the standard's grid its orientation modules fall beside
        // their places, and a turn of a half scores best. Unless the standard's grid matches all
        // 18, the raster's grid is scored too, and taken only if it matches all 18: on photos with
        // no code, bull's-eye-like targets matched 17 on one grid or another.
        var geometry = Self.geometries[0]
        var scores = orientationScores(c, ma, mb, md, geometry)
        var best = scores.map(\.score).max() ?? 0
        if best < MaxiCode.orientation.count {
            for g in Self.geometries.dropFirst() {
                let other = orientationScores(c, ma, mb, md, g)
                if other.contains(where: { $0.score == MaxiCode.orientation.count }) {
                    (geometry, scores, best) = (g, other, MaxiCode.orientation.count)
                    break
                }
            }
        }
        guard best >= 15 else {
            log?("maxicode: orientation modules match at most \(best) of 18")
            return nil
        }
        // The middle of each run of best-scoring angles.
        var angles: [Double] = []
        for s in scores where s.score == best && scores[(s.degrees + 359) % 360].score != best {
            var end = s.degrees
            while scores[(end + 1) % 360].score == best && (end + 1) % 360 != s.degrees { end += 1 }
            angles.append(Double(s.degrees + end) / 2)
        }
        log?("maxicode: orientation \(best)/18 at \(angles.map { Int($0) })°, grid scale \(geometry.scale), row pitch \(geometry.rowPitch)")
        // The grid as the rings' ellipse gives it, then, when that is near a circle, as a circle of
        // the same area: a symbol turned by resampling has ragged rings whose ellipse can be a few
        // per cent off in one direction, which carries over 16 rows.
        var shapes = [(ma, mb, md)]
        let mean = (ma + md) / 2, spread = ((ma - md) * (ma - md) / 4 + mb * mb).squareRoot()
        if spread > 0.005 * mean, spread < 0.06 * mean {
            let round = (ma * md - mb * mb).squareRoot()
            shapes.append((round, 0, round))
        }
        for (ma, mb, md) in shapes {
            if let found = read(c, ma, mb, md, angles: angles, geometry: geometry) { return found }
        }
        log?("maxicode: not corrected")
        return nil
    }

    /// The symbol sampled and decoded through the shape `ma mb; mb md`, at the angles the orientation
    /// modules gave, on the `geometry`'s grid and grids close to it.
    func read(_ c: BullsEye, _ ma: Double, _ mb: Double, _ md: Double, angles: [Double], geometry: Grid) -> (DecodedMaxiCode, [Point])? {
        for degrees in angles.prefix(3) {
            for scale in [1, 0.985, 1.015, 0.97, 1.03] {
                for turn in [0, -0.6, 0.6] {
                    let frame = Self.frame(c, ma, mb, md, degrees: degrees + turn, scale: scale * geometry.scale)
                    for rowPitch in [geometry.rowPitch, geometry.rowPitch - 0.016, geometry.rowPitch + 0.009] {
                        guard let modules = sample(frame, rowPitch: rowPitch) else { continue }
                        if let log { log("decoder input \(DecoderInput.maxiCode(modules: modules).hex)") }
                        guard let decoded = MaxiCode.decode(modules) else { continue }
                        log?("maxicode: mode \(decoded.mode), \(decoded.corrected) codewords corrected")
                        let top = -16 * rowPitch - 0.6, bottom = 16 * rowPitch + 0.6
                        let corners = [(-14.5, top), (15.5, top), (15.5, bottom), (-14.5, bottom)].map { frame.apply($0.0, $0.1) }
                        return (decoded, corners.map { Point(x: $0.0, y: $0.1) })
                    }
                }
            }
        }
        return nil
    }

    /// A module grid: the pitch the bull's-eye gives times `scale`, the rows `rowPitch` modules apart.
    typealias Grid = (scale: Double, rowPitch: Double)

    /// Module grids, as the pitch the bull's-eye gives times `scale` and the rows `rowPitch` modules
    /// apart: the standard's (a hexagonal grid, rows √3/2 apart), then that of zint's raster at five
    /// pixels a module (rows four pixels apart, the bull's-eye to scale). Each grid more costs every
    /// bull's-eye-like target of a photo another orientation search (0.1 ms).
    static let geometries: [Grid] = [(1, 0.866), (0.96, 0.8)]

    /// How many of the orientation modules each whole degree's turn of the grid finds in place.
    func orientationScores(_ c: BullsEye, _ ma: Double, _ mb: Double, _ md: Double, _ geometry: Grid) -> [(score: Int, degrees: Int)] {
        var scores: [(score: Int, degrees: Int)] = []
        scores.reserveCapacity(360)
        for degrees in 0..<360 {
            let frame = Self.frame(c, ma, mb, md, degrees: Double(degrees), scale: geometry.scale)
            var score = 0
            for o in MaxiCode.orientation where dark(frame.module(o.row, o.column, rowPitch: geometry.rowPitch)) == o.dark { score += 1 }
            scores.append((score, degrees))
        }
        return scores
    }

    static func frame(_ c: BullsEye, _ ma: Double, _ mb: Double, _ md: Double, degrees: Double, scale: Double) -> Frame {
        let t = degrees * Double.pi / 180
        let ct = cos(t) * scale, st = sin(t) * scale
        // M · R(t): the shape after the turn.
        return Frame(cx: c.x, cy: c.y, a: ma * ct + mb * st, b: -ma * st + mb * ct, c: mb * ct + md * st, d: -mb * st + md * ct)
    }

    /// The module grid under `frame` (nil when part of it falls outside the image).
    func sample(_ frame: Frame, rowPitch: Double) -> [Bool]? {
        var modules = [Bool](repeating: false, count: MaxiCode.rows * MaxiCode.columns)
        for row in 0..<MaxiCode.rows {
            for column in 0..<MaxiCode.columns where MaxiCode.layout[row * MaxiCode.columns + column] >= 0 {
                guard let d = dark(frame.module(row, column, rowPitch: rowPitch)) else { return nil }
                modules[row * MaxiCode.columns + column] = d
            }
        }
        return modules
    }
}

extension ReadSession {
    /// MaxiCode symbols: bull's-eyes looked for on the reduced level (``readBullsEyes(_:first:read:)``).
    mutating func readMaxiCode() {
        guard wantsMaxiCode else { return }
        let logger: Logger? = debug ? self.logger : nil
        readBullsEyes(.maxicode, first: 8) { bin, c in
            var reader = MaxiCodeReader(bin: bin)
            if let logger { reader.log = { logger.trace("\($0)") } }
            guard let (decoded, corners) = reader.read(c) else { return nil }
            var raw = RawSymbol(symbology: .maxicode, bytes: decoded.bytes, points: [], quality: 1, isGS1: false)
            raw.maxiCode = decoded
            return (raw, corners, c.ring / MaxiCodeReader.ringWidth)
        }
    }
}
