import SeerImage

/// A two-level image: 1 for dark, 0 for light, row-major like ``GrayImage``.
struct BinaryImage: Sendable {
    let width: Int
    let height: Int
    var bits: [UInt8]

    @inline(__always) func isDark(_ x: Int, _ y: Int) -> Bool { bits[y * width + x] != 0 }

    /// The runs met walking column `x` from row `y` by `step` rows, starting in `colour` (dark:
    /// true): each run's length in rows walked (the first from `y` to the first change). After
    /// `runs` changes, the next run is cut once it is `close` rows long and the walk ends. Nil when the image's edge or `limit` rows come first. The bull's-eye
    /// locators (Aztec, MaxiCode) measure their rings with it.
    func columnRuns(x: Int, y: Int, step: Int, colour: Bool, runs: Int, close: Double, limit: Int) -> [Int]? {
        var out: [Int] = []
        var yy = y
        var current = colour
        var length = 0
        var travelled = 0
        while travelled <= limit {
            yy += step
            travelled += 1
            guard yy >= 0, yy < height else { return nil }
            let c = isDark(x, yy)
            length += 1
            if c != current {
                out.append(length)
                length = 0
                current = c
            } else if out.count == runs && Double(length) >= close {
                out.append(length)
                return out
            }
        }
        return nil
    }

    /// Light and dark swapped (for light-on-dark codes).
    func inverted() -> BinaryImage {
        BinaryImage(width: width, height: height, bits: bits.map { 1 &- $0 })
    }

    /// As a grey image (dark 0, light 255), for zbar.
    var gray: GrayImage {
        GrayImage(width: width, height: height, pixels: bits.map { $0 != 0 ? 0 : 255 })
    }
}

/// A bull's-eye (Aztec's, MaxiCode's) seen in a binary image: its centre, the width of one of its
/// rings in pixels, and how many scan rows found it.
struct BullsEye {
    var x: Double
    var y: Double
    var ring: Double
    var hits: Int

    /// `c` averaged into the bull's-eye already found within two rings of it, or added.
    static func merge(_ c: BullsEye, into found: inout [BullsEye]) {
        for i in found.indices where abs(found[i].x - c.x) < 2 * c.ring && abs(found[i].y - c.y) < 2 * c.ring {
            let n = Double(found[i].hits)
            found[i].x = (found[i].x * n + c.x) / (n + 1)
            found[i].y = (found[i].y * n + c.y) / (n + 1)
            found[i].ring = (found[i].ring * n + c.ring) / (n + 1)
            found[i].hits += 1
            return
        }
        found.append(c)
    }
}

enum Imaging {
    /// Local-mean binarisation: a pixel is dark when it is darker than the mean of the
    /// `window`×`window` square around it by more than `offset` (and a thirty-second of the local
    /// level), so uneven light, shadows and glare gradients cancel out.
    ///
    /// The mean is taken over whole blocks of 8×8 pixels (4×4 for windows under 64): each block's threshold comes from the block
    /// means in the window around it (an integral over the small grid of block means), and every pixel
    /// of a block is compared with its block's threshold. That is a few operations a pixel, against a
    /// window sum per pixel, and differs from the per-pixel mean only by where the window's edge falls.
    static func binarize(_ image: GrayImage, window: Int, offset: Int = 6) -> BinaryImage {
        let w = image.width, h = image.height
        var bits = [UInt8](repeating: 0, count: w * h)
        guard w > 0, h > 0 else { return BinaryImage(width: w, height: h, bits: bits) }
        // Blocks of 8 pixels, or 4 for small windows (small images), so the window stays near its size.
        let block = window >= 64 ? 8 : 4
        let bw = (w + block - 1) / block, bh = (h + block - 1) / block
        // Block sums and pixel counts. Whole blocks of a row are summed in a fixed-length inner
        // loop, the row's last, partial block apart (wrapping arithmetic: a block of 8×8 pixels sums
        // to at most 16 320).
        var sums = [Int32](repeating: 0, count: bw * bh)
        let whole = w / block
        image.pixels.withUnsafeBufferPointer { p in
            sums.withUnsafeMutableBufferPointer { s in
                guard let p = p.baseAddress, let s = s.baseAddress else { return }
                for y in 0..<h {
                    let line = UnsafeRawPointer(p + y &* w), out = s + (y / block) &* bw
                    // A block's pixels summed as one word: neighbouring bytes added into 16-bit
                    // lanes, then the lanes into the top one by a multiplication (no lane exceeds
                    // 2 040, so none carries into the next).
                    if block == 8 {
                        for bx in 0..<whole {
                            let v = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: bx &* 8, as: UInt64.self))
                            let pairs = (v & 0x00FF_00FF_00FF_00FF) &+ ((v >> 8) & 0x00FF_00FF_00FF_00FF)
                            out[bx] &+= Int32(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) >> 48)
                        }
                    } else {
                        for bx in 0..<whole {
                            let v = UInt32(littleEndian: line.loadUnaligned(fromByteOffset: bx &* 4, as: UInt32.self))
                            let pairs = (v & 0x00FF_00FF) &+ ((v >> 8) & 0x00FF_00FF)
                            out[bx] &+= Int32(truncatingIfNeeded: (pairs &* 0x0001_0001) >> 16)
                        }
                    }
                    if whole < bw {
                        var acc: Int32 = 0
                        for x in (whole &* block)..<w { acc &+= Int32(line.load(fromByteOffset: x, as: UInt8.self)) }
                        out[whole] &+= acc
                    }
                }
            }
        }
        // Integral over the block grid (sums and pixel counts).
        let iw = bw + 1
        var integral = [Int64](repeating: 0, count: iw * (bh + 1))
        var counts = [Int64](repeating: 0, count: iw * (bh + 1))
        for by in 0..<bh {
            var rowSum: Int64 = 0, rowCount: Int64 = 0
            let ph = Int64(min(block, h - by * block))
            for bx in 0..<bw {
                rowSum += Int64(sums[by * bw + bx])
                rowCount += Int64(min(block, w - bx * block)) * ph
                integral[(by + 1) * iw + bx + 1] = integral[by * iw + bx + 1] + rowSum
                counts[(by + 1) * iw + bx + 1] = counts[by * iw + bx + 1] + rowCount
            }
        }
        // Each block's threshold: v is dark when v < mean·31/32 − offset.
        let r = max(1, (window / 2 + block / 2) / block)
        var thresholds = [Int32](repeating: 0, count: bw * bh)
        for by in 0..<bh {
            let y0 = max(0, by - r), y1 = min(bh, by + r + 1)
            for bx in 0..<bw {
                let x0 = max(0, bx - r), x1 = min(bw, bx + r + 1)
                let sum = integral[y1 * iw + x1] - integral[y0 * iw + x1] - integral[y1 * iw + x0] + integral[y0 * iw + x0]
                let n = counts[y1 * iw + x1] - counts[y0 * iw + x1] - counts[y1 * iw + x0] + counts[y0 * iw + x0]
                // Smallest v that is not dark: (v + offset)·n·32 ≥ sum·31.
                let limit = (sum * 31 + n * 32 - 1) / (n * 32) - Int64(offset)
                thresholds[by * bw + bx] = Int32(max(0, min(256, limit)))
            }
        }
        // Each pixel against its block's threshold, a row's whole blocks in a fixed-length loop.
        image.pixels.withUnsafeBufferPointer { p in
            thresholds.withUnsafeBufferPointer { t in
                bits.withUnsafeMutableBufferPointer { b in
                    guard let p = p.baseAddress, let t = t.baseAddress, let b = b.baseAddress else { return }
                    for y in 0..<h {
                        let line = p + y &* w, dark = b + y &* w, limits = t + (y / block) &* bw
                        // Eight pixels at a time against the block's threshold t, as bytes of one
                        // word (SWAR): x ≥ t where x's top bit is set and t's is not, or the top
                        // bits are equal and x's low seven bits are at least t's (the top bit of
                        // (x | 0x80) − (t & 0x7F), which never borrows from the next byte). A
                        // threshold of 256 makes every pixel dark. Blocks of 4 pixels go one by one.
                        if block == 8 {
                            let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
                            let from = UnsafeRawPointer(line), to = UnsafeMutableRawPointer(dark)
                            for bx in 0..<whole {
                                let limit = limits[bx], start = bx &* 8
                                var result = ones
                                if limit <= 255 {
                                    let x = UInt64(littleEndian: from.loadUnaligned(fromByteOffset: start, as: UInt64.self))
                                    let t = UInt64(truncatingIfNeeded: limit) &* ones
                                    let low = (x | high) &- (t & ~high)
                                    let atLeast = ((x & ~t) | (~(x ^ t) & low)) & high
                                    result = (~atLeast & high) >> 7
                                }
                                to.storeBytes(of: result.littleEndian, toByteOffset: start, as: UInt64.self)
                            }
                        } else {
                            for bx in 0..<whole {
                                let limit = limits[bx], start = bx &* block
                                for i in start..<(start &+ block) { dark[i] = Int32(line[i]) < limit ? 1 : 0 }
                            }
                        }
                        if whole < bw {
                            let limit = limits[whole]
                            for x in (whole &* block)..<w { dark[x] = Int32(line[x]) < limit ? 1 : 0 }
                        }
                    }
                }
            }
        }
        return BinaryImage(width: w, height: h, bits: bits)
    }

    /// Area-averaged reduction so that the longer side is at most `maxSide` (unchanged if smaller).
    static func fit(_ image: GrayImage, maxSide: Int) -> GrayImage {
        let side = max(image.width, image.height)
        guard side > maxSide, maxSide > 0 else { return image }
        // An integer factor landing within 10 % of the target is much cheaper (box averaging).
        let factor = Int((Double(side) / Double(maxSide)).rounded())
        if factor >= 2, side % factor == 0, side / factor == maxSide {
            return image.downscaled(by: factor)
        }
        let f = Double(maxSide) / Double(side)
        let w = max(1, Int((Double(image.width) * f).rounded()))
        let h = max(1, Int((Double(image.height) * f).rounded()))
        if image.width % w == 0 && image.height % h == 0 && image.width / w == image.height / h {
            return image.downscaled(by: image.width / w)
        }
        return image.resized(width: w, height: h)
    }

    /// Bilinear enlargement by an integer factor: each pixel what ``sample(_:_:_:_:_:)`` gives at its
    /// centre, with the columns' source pixels and weights worked out once, and each source row
    /// blended across once.
    static func upscaled(_ image: GrayImage, by factor: Int) -> GrayImage {
        let sw = image.width, sh = image.height
        let w = sw * factor, h = sh * factor
        guard w > 0, h > 0 else { return GrayImage(width: w, height: h) }
        let inv = 1.0 / Double(factor)
        // Where an output position falls between two source positions (clamped at the borders) and
        // the weight of the second.
        func taps(_ count: Int, _ side: Int) -> [(Int, Int, Double)] {
            (0..<count).map { i in
                let x = (Double(i) + 0.5) * inv - 0.5
                let xf = x.rounded(.down)
                let x0 = Int(xf)
                return (min(max(x0, 0), side - 1), min(max(x0 + 1, 0), side - 1), x - xf)
            }
        }
        let columns = taps(w, sw), rows = taps(h, sh)
        var out = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { p in
            // The last two source rows blended across: output rows go down the source rows in order.
            var blended: [(row: Int, values: [Double])] = []
            func across(_ row: Int) -> [Double] {
                if let made = blended.first(where: { $0.row == row }) { return made.values }
                let base = row * sw
                let made = columns.map { c in Double(p[base + c.0]) * (1 - c.2) + Double(p[base + c.1]) * c.2 }
                blended = Array(blended.suffix(1)) + [(row, made)]
                return made
            }
            out.withUnsafeMutableBufferPointer { o in
                for (y, r) in rows.enumerated() {
                    let top = across(r.0), bottom = across(r.1)
                    let ay = r.2, base = y * w
                    for x in 0..<w {
                        let v = top[x] * (1 - ay) + bottom[x] * ay
                        o[base + x] = UInt8(max(0, min(255, v.rounded())))
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Bilinear sample; white outside the image.
    @inline(__always)
    static func sample(_ p: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> UInt8 {
        guard x > -1, y > -1, x < Double(w), y < Double(h) else { return 255 }
        let xf = x.rounded(.down), yf = y.rounded(.down)
        let x0 = Int(xf), y0 = Int(yf)
        let ax = x - xf, ay = y - yf
        func at(_ xx: Int, _ yy: Int) -> Double {
            let cx = min(max(xx, 0), w - 1), cy = min(max(yy, 0), h - 1)
            return Double(p[cy * w + cx])
        }
        let top = at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax
        let bottom = at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax
        let v = top * (1 - ay) + bottom * ay
        return UInt8(max(0, min(255, v.rounded())))
    }

    /// Bilinear sample as a float (no rounding); white outside the image.
    @inline(__always)
    static func sampleFloat(_ p: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> Double {
        guard x > -1, y > -1, x < Double(w), y < Double(h) else { return 255 }
        let xf = x.rounded(.down), yf = y.rounded(.down)
        let x0 = Int(xf), y0 = Int(yf)
        let ax = x - xf, ay = y - yf
        let cx0 = max(x0, 0), cx1 = min(x0 + 1, w - 1), cy0 = max(y0, 0), cy1 = min(y0 + 1, h - 1)
        let r0 = cy0 * w, r1 = cy1 * w
        let top = Double(p[r0 + cx0]) * (1 - ax) + Double(p[r0 + cx1]) * ax
        let bottom = Double(p[r1 + cx0]) * (1 - ax) + Double(p[r1 + cx1]) * ax
        return top * (1 - ay) + bottom * ay
    }

    /// Stretches the grey levels so the 1st and 99th percentiles become 0 and 255.
    static func normalized(_ image: GrayImage) -> GrayImage {
        var hist = [Int](repeating: 0, count: 256)
        for v in image.pixels { hist[Int(v)] += 1 }
        let n = image.pixels.count
        var lo = 0, hi = 255, acc = 0
        for i in 0..<256 {
            acc += hist[i]
            if acc > n / 100 { lo = i; break }
        }
        acc = 0
        for i in stride(from: 255, through: 0, by: -1) {
            acc += hist[i]
            if acc > n / 100 { hi = i; break }
        }
        guard hi - lo > 8, hi - lo < 230 else { return image }
        var lut = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 { lut[i] = UInt8(max(0, min(255, (i - lo) * 255 / (hi - lo)))) }
        return GrayImage(width: image.width, height: image.height, pixels: image.pixels.map { lut[Int($0)] })
    }

    /// Global two-level threshold by Otsu's method (the level that best separates the histogram).
    static func otsu(_ image: GrayImage) -> BinaryImage {
        let level = UInt8(clamping: Threshold.otsu(image.pixels))
        var bits = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { p in
            bits.withUnsafeMutableBufferPointer { b in
                for i in 0..<p.count { b[i] = p[i] <= level ? 1 : 0 }
            }
        }
        return BinaryImage(width: image.width, height: image.height, bits: bits)
    }

    /// 3×3 median filter (edges copied): removes texture and speckle inside modules while keeping
    /// module edges sharp. Each column of three is sorted once and shared by the three windows it
    /// belongs to; the median of nine is then the median of (the largest of the column minima, the
    /// median of the column medians, the smallest of the column maxima).
    static func median3(_ image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height
        guard w >= 3, h >= 3 else { return image }
        var out = image.pixels
        @inline(__always) func sort3(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> (UInt8, UInt8, UInt8) {
            let lo = min(a, b), hi = max(a, b)
            return (min(lo, c), max(lo, min(hi, c)), max(hi, c))
        }
        @inline(__always) func median(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 { max(min(a, b), min(max(a, b), c)) }
        image.pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                var lows = [UInt8](repeating: 0, count: w), mids = lows, highs = lows
                for y in 1..<(h - 1) {
                    let r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w
                    for x in 0..<w {
                        let s = sort3(p[r0 + x], p[r1 + x], p[r2 + x])
                        lows[x] = s.0
                        mids[x] = s.1
                        highs[x] = s.2
                    }
                    for x in 1..<(w - 1) {
                        let lo = max(lows[x - 1], lows[x], lows[x + 1])
                        let hi = min(highs[x - 1], highs[x], highs[x + 1])
                        let mid = median(mids[x - 1], mids[x], mids[x + 1])
                        o[r1 + x] = median(lo, mid, hi)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
