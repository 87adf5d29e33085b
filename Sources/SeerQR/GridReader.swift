import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// Reads a located QR Code straight from the photo: samples each module's centre through a
/// homography (module coordinates → image pixels), decides dark or light in a few ways, and hands
/// each module grid to ``QRDecoder``. No image is redrawn and no other decoder is involved.
struct GridReader {
    let image: GrayImage
    /// Light modules on a dark ground: greys are read inverted.
    var inverted = false

    /// The mean grey of each module's centre region (five samples: the centre and four points a
    /// fifth of a module around it), row-major, `dimension` × `dimension`.
    func values(_ h: Homography, dimension n: Int) -> [Float] {
        var out = [Float](repeating: 0, count: n * n)
        let w = image.width, hgt = image.height
        image.pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for j in 0..<n {
                    for i in 0..<n {
                        var sum = 0.0
                        for (du, dv) in Self.offsets {
                            let q = h.apply(Double(i) + du, Double(j) + dv)
                            sum += Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                        }
                        let mean = Float(sum) / Float(Self.offsets.count)
                        o[j * n + i] = inverted ? 255 - mean : mean
                    }
                }
            }
        }
        return out
    }

    static let offsets: [(Double, Double)] = [(0.5, 0.5), (0.3, 0.5), (0.7, 0.5), (0.5, 0.3), (0.5, 0.7)]

    /// Dark where a module is darker than the mean of the modules around it (a window of about a
    /// quarter of the code): uneven light, shadows and glare gradients cancel out.
    static func localThreshold(_ v: [Float], _ n: Int, radius: Int? = nil) -> QRModules {
        let r = radius ?? max(3, n / 8)
        var integral = [Float](repeating: 0, count: (n + 1) * (n + 1))
        for j in 0..<n {
            var row: Float = 0
            for i in 0..<n {
                row += v[j * n + i]
                integral[(j + 1) * (n + 1) + i + 1] = integral[j * (n + 1) + i + 1] + row
            }
        }
        var dark = [Bool](repeating: false, count: n * n)
        var sure = [Float](repeating: 0, count: n * n)
        for j in 0..<n {
            let j0 = max(0, j - r), j1 = min(n, j + r + 1)
            for i in 0..<n {
                let i0 = max(0, i - r), i1 = min(n, i + r + 1)
                let sum = integral[j1 * (n + 1) + i1] - integral[j0 * (n + 1) + i1] - integral[j1 * (n + 1) + i0]
                    + integral[j0 * (n + 1) + i0]
                let mean = sum / Float((j1 - j0) * (i1 - i0))
                dark[j * n + i] = v[j * n + i] < mean
                sure[j * n + i] = abs(v[j * n + i] - mean)
            }
        }
        return QRModules(size: n, dark: dark, certainty: sure)
    }

    /// Dark below one level for the whole code: the level that best separates the modules' greys
    /// (Otsu's method over the module values).
    static func globalThreshold(_ v: [Float], _ n: Int) -> QRModules {
        let level = Float(Threshold.otsu(v.map { UInt8(max(0, min(255, $0.rounded()))) })) + 0.5
        return QRModules(size: n, dark: v.map { $0 <= level }, certainty: v.map { abs($0 - level) })
    }

    /// How well the timing patterns (row and column 6 between the finders) alternate in `v`: the
    /// share of timing modules on the right side of the mean of their two neighbours' contrast.
    static func timingScore(_ v: [Float], _ n: Int) -> Double {
        guard n >= 21 else { return 0 }
        var good = 0, total = 0
        for k in 8..<(n - 8) {
            let a = v[6 * n + k], b = v[k * n + 6]
            let pa = v[6 * n + k - 1], na = v[6 * n + k + 1]
            let pb = v[(k - 1) * n + 6], nb = v[(k + 1) * n + 6]
            let wantDark = k % 2 == 0
            if (a < (pa + na) / 2) == wantDark { good += 1 }
            if (b < (pb + nb) / 2) == wantDark { good += 1 }
            total += 2
        }
        return Double(good) / Double(total)
    }

    /// Decodes the code `h` maps (module coordinates of a `dimension`-module code → image), trying the
    /// module decisions in turn. Returns the first grid that decodes, or the failure of the last try
    /// (a version named by the version information, when one was).
    func read(_ h: Homography, dimension n: Int, anchored: Bool? = nil) -> Result<DecodedQR, QRDecodeFailure> {
        // By default only large codes (version 7 and up) are worth sampling between alignment patterns.
        let anchored = anchored ?? (n >= QRSpec.dimension(version: 7))
        var failure = QRDecodeFailure.format
        var sources: [() -> [Float]?] = [{ values(h, dimension: n) }]
        if anchored { sources.append { anchoredValues(h, dimension: n) } }
        for (k, source) in sources.enumerated() {
            // Sampling between the alignment patterns is worth its cost only for a grid whose format
            // information read: a code whose modules drifted, not a candidate that is no code.
            if k > 0 && failure != .errorCorrection && failure != .dataStream { break }
            guard let v = source() else { continue }
            for grid in [Self.localThreshold(v, n), Self.globalThreshold(v, n)] {
                switch QRDecoder.decode(grid) {
                case .success(let d): return .success(d)
                case .failure(.version(let named)): return .failure(.version(named))
                case .failure(let f): failure = f
                }
            }
        }
        return .failure(failure)
    }
}

extension GridReader {
    /// How well a `dimension`-module grid through `h` fits the code's timing patterns (see
    /// ``timingScore(_:_:)``), sampling only the modules it needs.
    func timingFit(_ h: Homography, dimension n: Int) -> Double {
        guard n >= 21 else { return 0 }
        var good = 0, total = 0
        image.pixels.withUnsafeBufferPointer { p in
            func at(_ i: Int, _ j: Int) -> Int {
                let q = h.apply(Double(i) + 0.5, Double(j) + 0.5)
                return Int(Imaging.sample(p, image.width, image.height, q.x - 0.5, q.y - 0.5))
            }
            var row = (0..<n).map { at($0, 6) }
            var column = (0..<n).map { at(6, $0) }
            for k in 8..<(n - 8) {
                let wantDark = k % 2 == 0
                if (row[k] * 2 < row[k - 1] + row[k + 1]) == wantDark { good += 1 }
                if (column[k] * 2 < column[k - 1] + column[k + 1]) == wantDark { good += 1 }
                total += 2
            }
            row = []
            column = []
        }
        return Double(good) / Double(max(1, total))
    }

    /// Decodes a code whose four outer corners (top-left, top-right, bottom-right, bottom-left as the
    /// code reads) are known but whose version is not: the versions whose timing patterns fit best
    /// are read in turn.
    func read(corners c: [Point], tries: Int = 3) -> DecodedQR? {
        guard c.count == 4 else { return nil }
        var fits: [(dimension: Int, score: Double)] = []
        for version in 1...40 {
            let n = QRSpec.dimension(version: version)
            let d = Double(n)
            guard let h = Homography(from: [Point(x: 0, y: 0), Point(x: d, y: 0), Point(x: d, y: d), Point(x: 0, y: d)], to: c)
            else { return nil }
            // Modules under a pixel wide cannot be read: stop at the versions the code's size allows.
            let side = (dist(c[0], c[1]) + dist(c[0], c[3])) / 2
            if side / d < 1.0 { break }
            fits.append((n, timingFit(h, dimension: n)))
        }
        var tried = Set<Int>()
        var queue = fits.sorted { $0.score > $1.score }.prefix(tries).map(\.dimension)
        while let n = queue.first {
            queue.removeFirst()
            guard tried.insert(n).inserted else { continue }
            let d = Double(n)
            guard let h = Homography(from: [Point(x: 0, y: 0), Point(x: d, y: 0), Point(x: d, y: d), Point(x: 0, y: d)], to: c)
            else { continue }
            switch read(h, dimension: n) {
            case .success(let decoded): return decoded
            case .failure(.version(let v)): queue.insert(QRSpec.dimension(version: v), at: 0)
            case .failure: continue
            }
        }
        return nil
    }

    private func dist(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
}

extension GridReader {
    /// Contrast of an alignment pattern (5×5: dark centre and outer ring, light ring between) centred
    /// at module coordinates (`cx`, `cy`) of `h`, the whole pattern shifted by (`dx`, `dy`) pixels.
    func alignmentContrast(_ h: Homography, _ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double) -> Double {
        let w = image.width, hgt = image.height
        return image.pixels.withUnsafeBufferPointer { p -> Double in
            var sd = 0.0, sd2 = 0.0, sl = 0.0, sl2 = 0.0, nd = 0.0, nl = 0.0
            for j in -2...2 {
                for i in -2...2 {
                    let q = h.apply(cx + Double(i), cy + Double(j))
                    var g = Imaging.sampleFloat(p, w, hgt, q.x + dx - 0.5, q.y + dy - 0.5)
                    if inverted { g = 255 - g }
                    if max(abs(i), abs(j)) == 1 {
                        sl += g; sl2 += g * g; nl += 1
                    } else {
                        sd += g; sd2 += g * g; nd += 1
                    }
                }
            }
            let md = sd / nd, ml = sl / nl
            return (ml - md) / (max(0, sd2 / nd - md * md) + max(0, sl2 / nl - ml * ml) + 25).squareRoot()
        }
    }

    /// Module greys sampled cell by cell between the alignment patterns, each found near where `h`
    /// puts it (and where its already-found neighbours' displacement suggests): codes on curved or
    /// uneven paper, and large codes whose one projective map drifts by a module or more far from the
    /// finders. Nil for versions without a grid of alignment patterns.
    func anchoredValues(_ h: Homography, dimension n: Int) -> [Float]? {
        guard let version = QRSpec.version(dimension: n), version >= 2 else { return nil }
        let positions = QRSpec.alignmentPositions(version: version).map { Double($0) + 0.5 }
        let k = positions.count
        let last = k - 1
        // Anchor image points, row-major over the positions (index j * k + i for column i, row j).
        var anchors = [Point](repeating: Point(x: 0, y: 0), count: k * k)
        var found = [Bool](repeating: false, count: k * k)
        let module = dist(h.apply(0, 0), h.apply(Double(n), 0)) / Double(n)
        let order = (0..<(k * k)).sorted { a, b in (a % k + a / k, a) < (b % k + b / k, b) }
        for index in order {
            let i = index % k, j = index / k
            let predicted = h.apply(positions[i], positions[j])
            let isFinderCorner = (i == 0 && j == 0) || (i == last && j == 0) || (i == 0 && j == last)
            if isFinderCorner {
                anchors[index] = predicted
                found[index] = true
                continue
            }
            // The displacement of the nearest found neighbours carries over (curvature is smooth).
            var shift = (0.0, 0.0)
            var count = 0.0
            for (ni, nj) in [(i - 1, j), (i, j - 1), (i - 1, j - 1)] where ni >= 0 && nj >= 0 && found[nj * k + ni] {
                let a = anchors[nj * k + ni], pa = h.apply(positions[ni], positions[nj])
                shift.0 += a.x - pa.x
                shift.1 += a.y - pa.y
                count += 1
            }
            if count > 0 { shift = (shift.0 / count, shift.1 / count) }
            var best = (alignmentContrast(h, positions[i], positions[j], shift.0, shift.1), shift.0, shift.1)
            let step = max(0.5, module * 0.25)
            for dy in stride(from: -1.5 * module, through: 1.5 * module, by: step) {
                for dx in stride(from: -1.5 * module, through: 1.5 * module, by: step) {
                    let c = alignmentContrast(h, positions[i], positions[j], shift.0 + dx, shift.1 + dy)
                    if c > best.0 { best = (c, shift.0 + dx, shift.1 + dy) }
                }
            }
            if best.0 > 1.5 {
                anchors[index] = Point(x: predicted.x + best.1, y: predicted.y + best.2)
                found[index] = true
            } else {
                anchors[index] = Point(x: predicted.x + shift.0, y: predicted.y + shift.1)
            }
        }
        // One projective map per cell between four anchors.
        var cells: [Homography?] = []
        for j in 0..<last {
            for i in 0..<last {
                let from = [
                    Point(x: positions[i], y: positions[j]), Point(x: positions[i + 1], y: positions[j]),
                    Point(x: positions[i + 1], y: positions[j + 1]), Point(x: positions[i], y: positions[j + 1]),
                ]
                let to = [anchors[j * k + i], anchors[j * k + i + 1], anchors[(j + 1) * k + i + 1], anchors[(j + 1) * k + i]]
                cells.append(Homography(from: from, to: to))
            }
        }
        func cell(_ c: Int) -> Int {
            let x = Double(c) + 0.5
            var index = 0
            while index < last - 1 && x >= positions[index + 1] { index += 1 }
            return index
        }
        let cellOf = (0..<n).map(cell)
        var out = [Float](repeating: 0, count: n * n)
        let w = image.width, hgt = image.height
        image.pixels.withUnsafeBufferPointer { p in
            for j in 0..<n {
                for i in 0..<n {
                    let map = cells[cellOf[j] * last + cellOf[i]] ?? h
                    var sum = 0.0
                    for (du, dv) in Self.offsets {
                        let q = map.apply(Double(i) + du, Double(j) + dv)
                        sum += Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                    }
                    let mean = Float(sum) / Float(Self.offsets.count)
                    out[j * n + i] = inverted ? 255 - mean : mean
                }
            }
        }
        return out
    }
}

extension GridReader {
    /// Reads only the version information (versions 7 and up), in the two 6×3 blocks beside the
    /// top-right and bottom-left finders, thresholded halfway between those finders' dark and light
    /// modules. Near the finders a grid placed from their centres is in register even when its
    /// size is a few modules off, so this names the size before the whole grid is sampled.
    /// - Returns: the version, and whether both copies named it.
    func probeVersion(_ h: Homography, dimension n: Int) -> (version: Int, agreed: Bool)? {
        guard n >= 45 else { return nil }
        let w = image.width, hgt = image.height
        return image.pixels.withUnsafeBufferPointer { p -> (version: Int, agreed: Bool)? in
            func at(_ x: Int, _ y: Int) -> Double {
                let q = h.apply(Double(x) + 0.5, Double(y) + 0.5)
                let g = Imaging.sampleFloat(p, w, hgt, q.x - 0.5, q.y - 0.5)
                return inverted ? 255 - g : g
            }
            let positions = QRSpec.versionPositions(size: n)
            var votes: [(version: Int, distance: Int)] = []
            for (copy, finder) in [(positions.first, (n - 4, 3)), (positions.second, (3, n - 4))] {
                // The finder's stone (dark) and its light ring set the threshold.
                let dark = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)].map { at(finder.0 + $0.0, finder.1 + $0.1) }
                let light = [(2, 0), (-2, 0), (0, 2), (0, -2)].map { at(finder.0 + $0.0, finder.1 + $0.1) }
                let level = (dark.reduce(0, +) / 5 + light.reduce(0, +) / 4) / 2
                var bits = 0
                for (i, (x, y)) in copy.enumerated() where at(x, y) < level { bits |= 1 << i }
                let v = QRSpec.decodeVersion(bits)
                if v.distance <= 3 { votes.append(v) }
            }
            guard let best = votes.min(by: { $0.distance < $1.distance }) else { return nil }
            return (best.version, votes.count == 2 && votes[0].version == votes[1].version)
        }
    }
}
