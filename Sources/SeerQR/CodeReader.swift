import SeerImage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads QR codes and barcodes from grey images: zbar as the decoder, with Seer's own image work
/// around it (a scale pyramid, local binarisation, inversion, and a finder-pattern locator that
/// straightens each QR code before zbar reads it).
///
/// Configure once and share: `read` may be called from any number of threads at once; each call
/// borrows a zbar scanner from a pool.
public final class CodeReader: Sendable {
    /// How hard to look.
    public enum Preset: String, Sendable, CaseIterable, Codable {
        /// One reduced level (long side 1024), the locator on it, no retries: for live scanning.
        case fast
        /// The default: the reduced level, then full detail where codes may be small, inversion,
        /// and retries on codes located but not yet read; stops when nothing is left to explain.
        case balanced
        /// Everything the balanced preset does plus more scales, binarisation windows and upscaling
        /// for tiny codes, within a larger time budget.
        case thorough
    }

    /// What to read and how hard.
    public struct Options: Sendable, Equatable {
        /// The symbologies to look for (QR by default).
        public var symbologies: Set<Symbology>
        /// The effort preset.
        public var preset: Preset
        /// An upper bound on the processor time spent on one image, in milliseconds (checked between
        /// passes and attempts; the calling thread's CPU time, so the result does not depend on load).
        public var timeBudgetMilliseconds: Int

        /// Creates options; the time budget defaults by preset (fast 250, balanced 2500, thorough 5000 ms).
        public init(symbologies: Set<Symbology> = [.qr], preset: Preset = .balanced, timeBudgetMilliseconds: Int? = nil) {
            self.symbologies = symbologies.isEmpty ? [.qr] : symbologies
            self.preset = preset
            self.timeBudgetMilliseconds = timeBudgetMilliseconds
                ?? (preset == .fast ? 250 : preset == .balanced ? 2500 : 5000)
        }
    }

    /// The options this reader was made with.
    public let options: Options
    private let pool: Mutex<[ZBarScanner]>

    /// Creates a reader.
    public init(options: Options = Options()) {
        self.options = options
        self.pool = Mutex([])
    }

    /// The JPEG reduction (1, 2, 4 or 8) worth decoding a photo of this size at for this preset:
    /// the long side is kept at about 1024 (fast), 2048 (balanced) or in full (thorough).
    public static func decodeScale(width: Int, height: Int, preset: Preset) -> Int {
        let side = max(width, height)
        let target = preset == .fast ? 2100 : preset == .balanced ? 2100 : Int.max
        var s = 1
        while s < 8 && side / s > target { s *= 2 }
        return s
    }

    private func borrow() -> ZBarScanner {
        let s = pool.withLock { $0.popLast() }
        return s ?? ZBarScanner(symbologies: options.symbologies)
    }

    private func giveBack(_ s: ZBarScanner) {
        pool.withLock { $0.append(s) }
    }

    /// Reads every code in `image`. Corners come back in `image`'s pixel coordinates multiplied by
    /// (`scaleX`, `scaleY`), so a photo decoded at a reduced scale reports full-size coordinates.
    public func read(_ image: GrayImage, scaleX: Double = 1, scaleY: Double = 1) -> [Symbol] {
        let scanner = borrow()
        defer { giveBack(scanner) }
        var session = ReadSession(image: image, scanner: scanner, options: options)
        session.run()
        return session.found.map { f in
            let corners = f.corners.map { Point(x: $0.x * scaleX, y: $0.y * scaleY) }
            let decoded = TextDecoding.decode(f.raw.bytes)
            return Symbol(
                symbology: f.raw.symbology, bytes: f.raw.bytes, text: decoded?.text, charset: decoded?.charset,
                corners: corners, quality: f.raw.quality, isGS1: f.raw.isGS1)
        }
    }
}

extension ZBarScanner: @unchecked Sendable {}  // used by one thread at a time through the pool

/// A symbol found, with its corners in the work image's coordinates (TL, TR, BR, BL).
struct FoundSymbol {
    var raw: RawSymbol
    var corners: [Point]
    /// Pixels per module (QR) or 0.
    var module: Double

    var center: Point {
        Point(x: corners.map(\.x).reduce(0, +) / 4, y: corners.map(\.y).reduce(0, +) / 4)
    }

    func contains(_ p: Point, grow: Double = 1.15) -> Bool {
        p.isInside(corners, grownBy: grow)
    }
}

/// One image's multi-pass read.
struct ReadSession {
    static let debug = getenv("SEER_QR_DEBUG") != nil
    func debugLog(_ s: String) {
        let line = Array("[qr \(Int(elapsedMs)) ms, \(found.count) found] \(s)\n".utf8)
        _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
    }

    let work: GrayImage
    let scanner: ZBarScanner
    let options: CodeReader.Options
    let start = ReadSession.cpuMilliseconds()
    var found: [FoundSymbol] = []
    var wantsQR: Bool { options.symbologies.contains(.qr) }

    init(image: GrayImage, scanner: ZBarScanner, options: CodeReader.Options) {
        self.work = image
        self.scanner = scanner
        self.options = options
    }

    /// The calling thread's CPU time: the budget counts work done, not time spent waiting for a
    /// core on a loaded machine, so results do not depend on the load.
    static func cpuMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    var elapsedMs: Double { Self.cpuMilliseconds() - start }
    var outOfTime: Bool { elapsedMs > Double(options.timeBudgetMilliseconds) }

    // MARK: Passes

    mutating func run() {
        guard work.width >= 8, work.height >= 8 else { return }
        let preset = options.preset
        let l0Side = preset == .fast ? 1024 : 1024
        let l0 = Imaging.fit(work, maxSide: l0Side)
        let f0 = (Double(work.width) / Double(l0.width), Double(work.height) / Double(l0.height))

        if !wantsQR {
            zbarPass(l0, scale: f0)
            linearPasses(l0, f0)
            return
        }
        let window0 = max(24, max(l0.width, l0.height) / 12)
        if preset == .fast {
            // The locator first (cheap, and it reads most codes); zbar on the whole level only for
            // what it leaves unexplained.
            let bin0 = Imaging.binarize(l0, window: window0)
            var unexplained = locatorPass(bin0, scale: f0, retries: false)
            if unexplained > 0 && !outOfTime { unexplained = locatorPass(bin0, scale: f0, retries: true) }
            if (found.isEmpty || unexplained > 0) && !outOfTime { zbarPass(l0, scale: f0, density: 2) }
            // Codes too small for the reduced level: the locator once more at full detail.
            let small = found.contains { $0.module > 0 && $0.module / f0.0 < 3 }
            if work.width > l0.width && (small || unexplained > 0) && !outOfTime {
                let b1 = Imaging.binarize(work, window: max(24, max(work.width, work.height) / 16))
                _ = locatorPass(b1, scale: (1, 1), retries: false)
            }
            if found.isEmpty && !outOfTime { zbarPass(bin0.gray, scale: f0) }
            if found.isEmpty && !outOfTime && max(l0.width, l0.height) >= 600 {
                let half = l0.downscaled(by: 2)
                let f = (f0.0 * Double(l0.width) / Double(half.width), f0.1 * Double(l0.height) / Double(half.height))
                let b = Imaging.binarize(half, window: max(24, max(half.width, half.height) / 6))
                _ = locatorPass(b, scale: f, retries: true)
            }
            return
        }
        // 1. zbar as it comes on the reduced level.
        zbarPass(l0, scale: f0)
        // 2. The locator on a locally binarised reduced level.
        let bin0 = Imaging.binarize(l0, window: window0)
        if Self.debug { debugLog("binarised") }
        var unexplained = locatorPass(bin0, scale: f0, retries: true)
        // 3. zbar on the binarised level (glare, shadows) when something may be left.
        if (found.isEmpty || unexplained > 0) && !outOfTime { zbarPass(bin0.gray, scale: f0) }
        // 4. Coarser level for close-ups whose modules are too big for the window.
        if found.isEmpty && !outOfTime && max(l0.width, l0.height) >= 600 {
            let half = l0.downscaled(by: 2)
            let f = (f0.0 * Double(l0.width) / Double(half.width), f0.1 * Double(l0.height) / Double(half.height))
            let b = Imaging.binarize(half, window: max(24, max(half.width, half.height) / 6))
            unexplained += locatorPass(b, scale: f, retries: true)
        }
        // 5. Full detail, where small codes may hide (many codes, high versions, far away).
        let smallCodes = found.contains { $0.module > 0 && $0.module / f0.0 < 3 }
        if work.width > l0.width && !outOfTime && (found.isEmpty || unexplained > 0 || smallCodes || preset == .thorough) {
            let b1 = Imaging.binarize(work, window: max(24, max(work.width, work.height) / 16))
            unexplained = locatorPass(b1, scale: (1, 1), retries: true)
            if (found.isEmpty || preset == .thorough) && !outOfTime { zbarPass(work, scale: (1, 1)) }
        }
        // 6. Light-on-dark codes.
        if found.isEmpty && !outOfTime {
            zbarPass(l0.inverted(), scale: f0)
            if !outOfTime { _ = locatorPass(bin0.inverted(), scale: f0, retries: true) }
        }
        // 7. A global threshold, for codes textured or tinted so that local means mislead.
        if found.isEmpty && !outOfTime {
            let g = Imaging.otsu(l0)
            zbarPass(g.gray, scale: f0)
            if found.isEmpty && !outOfTime { _ = locatorPass(g, scale: f0, retries: true) }
            // Still nothing: accept finder patterns of looser shape (textured, outlined modules).
            if found.isEmpty && !outOfTime { _ = locatorPass(g, scale: f0, retries: true, loose: true) }
            if found.isEmpty && !outOfTime { _ = locatorPass(bin0, scale: f0, retries: true, loose: true) }
        }
        // 8. Textured or speckled modules: a median filter, then zbar and the locator again.
        if found.isEmpty && !outOfTime {
            let smooth = Imaging.median3(l0)
            zbarPass(smooth, scale: f0)
            if found.isEmpty && !outOfTime {
                let b = Imaging.binarize(smooth, window: window0)
                _ = locatorPass(b, scale: f0, retries: true)
            }
        }
        // 9. Tiny images and tiny codes: enlarge.
        if (found.isEmpty || preset == .thorough) && !outOfTime && max(work.width, work.height) <= 1400 {
            let factor = max(work.width, work.height) < 300 ? 4 : 2
            let up = Imaging.upscaled(work, by: factor)
            let inv = 1 / Double(factor)
            zbarPass(up, scale: (inv, inv))
            if found.isEmpty && !outOfTime {
                zbarPass(Imaging.otsu(up).gray, scale: (inv, inv))
            }
            if found.isEmpty && !outOfTime {
                let b = Imaging.binarize(up, window: max(24, max(up.width, up.height) / 8))
                _ = locatorPass(b, scale: (inv, inv), retries: true)
            }
        }
        // 10. Thorough: other binarisation windows on the reduced level.
        if preset == .thorough && !outOfTime {
            for div in [6, 24] where !outOfTime {
                let b = Imaging.binarize(l0, window: max(16, max(l0.width, l0.height) / div))
                _ = locatorPass(b, scale: f0, retries: true)
                if !outOfTime { zbarPass(b.gray, scale: f0) }
            }
        }
    }

    mutating func linearPasses(_ l0: GrayImage, _ f0: (Double, Double)) {
        if work.width > l0.width && !outOfTime { zbarPass(work, scale: (1, 1)) }
        if found.isEmpty && !outOfTime {
            zbarPass(Imaging.normalized(work), scale: (1, 1))
        }
        if found.isEmpty && !outOfTime && max(work.width, work.height) <= 1400 {
            zbarPass(Imaging.upscaled(work, by: 2), scale: (0.5, 0.5))
        }
    }

    /// zbar over a whole image whose coordinates times `scale` are work coordinates.
    mutating func zbarPass(_ image: GrayImage, scale: (Double, Double), density: Int = 1) {
        if Self.debug { debugLog("zbar \(image.width)x\(image.height)") }
        for raw in scanner.scan(image, density: density) {
            let pts = raw.points.map { Point(x: ($0.x + 0.5) * scale.0, y: ($0.y + 0.5) * scale.1) }
            add(raw, corners: Self.corners(raw, pts), module: 0)
        }
    }

    /// Finds finder triples in `bin` (coordinates times `scale` are work coordinates), warps each
    /// candidate from the work image and reads it. Returns how many strong finder patterns are left
    /// that no read code explains.
    mutating func locatorPass(_ bin: BinaryImage, scale: (Double, Double), retries: Bool, loose: Bool = false) -> Int {
        let patterns = FinderLocator.find(bin, loose: loose)
        if Self.debug { debugLog("found patterns") }
        let toWork = { (p: FinderPattern) in Point(x: p.x * scale.0, y: p.y * scale.1) }
        func explained(_ p: FinderPattern) -> Bool {
            let q = toWork(p)
            return found.contains { $0.raw.symbology == .qr && $0.contains(q) }
        }
        var used = [Bool](repeating: false, count: patterns.count)
        for (i, p) in patterns.enumerated() where explained(p) { used[i] = true }
        if used.allSatisfy({ $0 }) { return 0 }
        let triples = FinderLocator.triples(patterns)
        if Self.debug {
            debugLog("locator \(bin.width)x\(bin.height): \(patterns.count) patterns, \(used.filter { $0 }.count) explained, \(triples.count) triples")
        }
        var attempts = 0
        for t in triples {
            if outOfTime || attempts >= 40 + 2 * patterns.count { break }
            if Self.debug && attempts % 20 == 0 { debugLog("attempt \(attempts)") }
            if t.members.contains(where: { used[$0] }) { continue }
            attempts += 1
            if decodeTriple(t, bin, scale: scale, retries: retries) {
                for (i, p) in patterns.enumerated() where !used[i] && explained(p) { used[i] = true }
                for m in t.members { used[m] = true }
            }
        }
        return zip(patterns, used).filter { !$1 && $0.count >= 3 }.count
    }

    /// Straightens one located code and reads it.
    mutating func decodeTriple(_ t: FinderTriple, _ bin: BinaryImage, scale: (Double, Double), retries: Bool) -> Bool {
        let s = (scale.0 + scale.1) / 2
        func w(_ x: Double, _ y: Double) -> Point { Point(x: x * scale.0, y: y * scale.1) }
        var dims = [t.dimension]
        if retries { dims += [t.dimension - 4, t.dimension + 4].filter { $0 >= 21 && $0 <= 177 } }
        for (k, dim) in dims.enumerated() {
            if k > 0 && outOfTime { break }
            var tt = t
            tt.dimension = dim
            let d = Double(dim)
            let from = [Point(x: 3.5, y: 3.5), Point(x: d - 3.5, y: 3.5), Point(x: 3.5, y: d - 3.5)]
            let to = [w(t.topLeft.x, t.topLeft.y), w(t.topRight.x, t.topRight.y), w(t.bottomLeft.x, t.bottomLeft.y)]
            var transforms: [Homography] = []
            if let a = FinderLocator.alignment(bin, tt),
                let h = Homography(from: from + [Point(x: d - 6.5, y: d - 6.5)], to: to + [w(a.x, a.y)])
            {
                transforms.append(h)
            }
            if let h = Homography(affineFrom: from, to: to) { transforms.append(h) }
            if let h = Self.perspectiveFromModuleSizes(t, dimension: d, from: from, to: to) {
                transforms.insert(h, at: min(1, transforms.count))
            }
            let module = t.topLeft.module * s
            for (j, h) in transforms.enumerated() {
                if j > 0 && (!retries || outOfTime) { break }
                if readWarp(h, dimension: dim, module: module, binarize: false) { return true }
                if retries && !outOfTime && readWarp(h, dimension: dim, module: module, binarize: true) { return true }
                if retries && !outOfTime && readGrid(h, dimension: dim, module: module) { return true }
            }
            if !retries { break }
        }
        return false
    }

    /// A fourth corner from how the module size changes between the three finders: under a
    /// projective map the local scale goes as 1/w, and w is affine in module coordinates.
    static func perspectiveFromModuleSizes(_ t: FinderTriple, dimension d: Double, from: [Point], to: [Point]) -> Homography? {
        let mTL = t.topLeft.module, mTR = t.topRight.module, mBL = t.bottomLeft.module
        guard mTL > 0, mTR > 0, mBL > 0 else { return nil }
        let wTR = mTL / mTR, wBL = mTL / mBL
        // Only worth it when the sizes really differ; otherwise this is the affine guess again.
        guard abs(wTR - 1) > 0.08 || abs(wBL - 1) > 0.08 else { return nil }
        let wBR = wTR + wBL - 1
        guard wBR > 0.2 else { return nil }
        let x = (to[1].x * wTR + to[2].x * wBL - to[0].x) / wBR
        let y = (to[1].y * wTR + to[2].y * wBL - to[0].y) / wBR
        return Homography(from: from + [Point(x: d - 3.5, y: d - 3.5)], to: to + [Point(x: x, y: y)])
    }

    /// Samples the code through `h` (module coordinates → work pixels) onto an upright grid with a
    /// quiet zone, and hands it to zbar.
    mutating func readWarp(_ h: Homography, dimension: Int, module: Double, binarize: Bool) -> Bool {
        // Enough output pixels per module to keep the detail the photo has (at least 4, at most 6).
        let sourceSide = dist(h.apply(0, 0), h.apply(Double(dimension), 0))
        let px = max(4, min(6, Int((sourceSide * 1.0 / Double(dimension)).rounded(.up))))
        let quiet = 5
        let side = (dimension + 2 * quiet) * px
        let inv = 1.0 / Double(px)
        var pixels = [UInt8](repeating: 255, count: side * side)
        let img = work
        img.pixels.withUnsafeBufferPointer { p in
            pixels.withUnsafeMutableBufferPointer { o in
                for y in 0..<side {
                    let v = (Double(y) + 0.5) * inv - Double(quiet)
                    for x in 0..<side {
                        let u = (Double(x) + 0.5) * inv - Double(quiet)
                        let q = h.apply(u, v)
                        o[y * side + x] = Imaging.sample(p, img.width, img.height, q.x - 0.5, q.y - 0.5)
                    }
                }
            }
        }
        var warped = GrayImage(width: side, height: side, pixels: pixels)
        if binarize { warped = Imaging.binarize(warped, window: px * 9, offset: 3).gray }
        if Self.debug, let dir = getenv("SEER_QR_DEBUG_DIR") {
            let path = String(cString: dir) + "/warp-\(Int(elapsedMs * 1000)).png"
            try? PNGWriter.write(warped, to: path)
            debugLog("warp dim \(dimension) -> \(path)")
        }
        var ok = false
        for raw in scanner.scan(warped) where raw.symbology == .qr {
            let pts = raw.points.map { h.apply(($0.x + 0.5) * inv - Double(quiet), ($0.y + 0.5) * inv - Double(quiet)) }
            // A read counts even when it repeats a code already found: the candidate is explained.
            add(raw, corners: Self.corners(raw, pts), module: module)
            ok = true
        }
        return ok
    }

    /// Samples each module's centre through `h`, decides dark or light against the mean of the
    /// modules around it, and draws a crisp code (4 px modules, 4-module quiet zone) for zbar: for
    /// blurred, glared or unevenly lit codes whose warped image zbar cannot threshold.
    mutating func readGrid(_ h: Homography, dimension: Int, module: Double) -> Bool {
        let n = dimension
        var values = [Double](repeating: 0, count: n * n)
        let img = work
        img.pixels.withUnsafeBufferPointer { p in
            for j in 0..<n {
                for i in 0..<n {
                    var sum = 0.0
                    for (du, dv) in [(0.5, 0.5), (0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)] {
                        let q = h.apply(Double(i) + du, Double(j) + dv)
                        sum += Double(Imaging.sample(p, img.width, img.height, q.x - 0.5, q.y - 0.5))
                    }
                    values[j * n + i] = sum / 5
                }
            }
        }
        // Local mean over a window of modules (integral image on the module grid).
        let r = max(3, n / 8)
        var integral = [Double](repeating: 0, count: (n + 1) * (n + 1))
        for j in 0..<n {
            var row = 0.0
            for i in 0..<n {
                row += values[j * n + i]
                integral[(j + 1) * (n + 1) + i + 1] = integral[j * (n + 1) + i + 1] + row
            }
        }
        let px = 4, quiet = 4
        let side = (n + 2 * quiet) * px
        var pixels = [UInt8](repeating: 255, count: side * side)
        for j in 0..<n {
            let j0 = max(0, j - r), j1 = min(n, j + r + 1)
            for i in 0..<n {
                let i0 = max(0, i - r), i1 = min(n, i + r + 1)
                let sum = integral[j1 * (n + 1) + i1] - integral[j0 * (n + 1) + i1] - integral[j1 * (n + 1) + i0]
                    + integral[j0 * (n + 1) + i0]
                let mean = sum / Double((j1 - j0) * (i1 - i0))
                guard values[j * n + i] < mean else { continue }
                for y in 0..<px {
                    let base = ((j + quiet) * px + y) * side + (i + quiet) * px
                    for x in 0..<px { pixels[base + x] = 0 }
                }
            }
        }
        let grid = GrayImage(width: side, height: side, pixels: pixels)
        if Self.debug, let dir = getenv("SEER_QR_DEBUG_DIR") {
            try? PNGWriter.write(grid, to: String(cString: dir) + "/grid-\(Int(elapsedMs * 1000)).png")
        }
        var ok = false
        let inv = 1.0 / Double(px)
        for raw in scanner.scan(grid) where raw.symbology == .qr {
            let pts = raw.points.map { h.apply(Double($0.x) * inv - Double(quiet), Double($0.y) * inv - Double(quiet)) }
            add(raw, corners: Self.corners(raw, pts), module: module)
            ok = true
        }
        return ok
    }

    /// zbar's location points as TL, TR, BR, BL (QR: zbar gives TL, BL, BR, TR; linear codes: the
    /// bounding box of the scan points).
    static func corners(_ raw: RawSymbol, _ pts: [Point]) -> [Point] {
        if raw.symbology == .qr && pts.count == 4 {
            return [pts[0], pts[3], pts[2], pts[1]]
        }
        let xs = pts.map(\.x), ys = pts.map(\.y)
        let x0 = xs.min() ?? 0, x1 = xs.max() ?? 0, y0 = ys.min() ?? 0, y1 = ys.max() ?? 0
        return [Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1)]
    }

    /// Adds a symbol unless the same payload was already read at the same place. Returns whether new.
    @discardableResult
    mutating func add(_ raw: RawSymbol, corners: [Point], module: Double) -> Bool {
        var candidate = FoundSymbol(raw: raw, corners: corners, module: module)
        if module == 0 && raw.symbology == .qr {
            // Module size from the outline: side length over the dimension implied by the data.
            let side = (dist(corners[0], corners[1]) + dist(corners[0], corners[3])) / 2
            candidate.module = side / 25
        }
        for (i, f) in found.enumerated() where f.raw.symbology == raw.symbology && f.raw.bytes == raw.bytes {
            if f.contains(candidate.center) || candidate.contains(f.center) {
                if raw.symbology != .qr && raw.quality > f.raw.quality { found[i].raw.quality = raw.quality }
                return false
            }
        }
        found.append(candidate)
        return true
    }

    func dist(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
}
