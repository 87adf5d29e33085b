import SeerImage

/// A two-level image: 1 for dark, 0 for light, row-major like ``GrayImage``.
struct BinaryImage: Sendable {
    let width: Int
    let height: Int
    var bits: [UInt8]

    @inline(__always) func isDark(_ x: Int, _ y: Int) -> Bool { bits[y * width + x] != 0 }

    /// Light and dark swapped (for light-on-dark codes).
    func inverted() -> BinaryImage {
        BinaryImage(width: width, height: height, bits: bits.map { 1 &- $0 })
    }

    /// As a grey image (dark 0, light 255), for zbar.
    var gray: GrayImage {
        GrayImage(width: width, height: height, pixels: bits.map { $0 != 0 ? 0 : 255 })
    }
}

enum Imaging {
    /// Local-mean binarisation with an integral image: a pixel is dark when it is darker than the
    /// mean of the `window`×`window` square around it by more than `offset` (and a fraction of the
    /// local level), so uneven light, shadows and glare gradients cancel out.
    static func binarize(_ image: GrayImage, window: Int, offset: Int = 6) -> BinaryImage {
        let w = image.width, h = image.height
        var bits = [UInt8](repeating: 0, count: w * h)
        guard w > 0, h > 0 else { return BinaryImage(width: w, height: h, bits: bits) }
        let iw = w + 1
        var integral = [UInt32](repeating: 0, count: iw * (h + 1))
        image.pixels.withUnsafeBufferPointer { p in
            integral.withUnsafeMutableBufferPointer { s in
                for y in 0..<h {
                    var row: UInt32 = 0
                    for x in 0..<w {
                        row &+= UInt32(p[y * w + x])
                        s[(y + 1) * iw + x + 1] = s[y * iw + x + 1] &+ row
                    }
                }
            }
        }
        let r = max(1, window / 2)
        image.pixels.withUnsafeBufferPointer { p in
            integral.withUnsafeBufferPointer { s in
                bits.withUnsafeMutableBufferPointer { b in
                    for y in 0..<h {
                        let y0 = max(0, y - r), y1 = min(h, y + r + 1)
                        let top = y0 * iw, bottom = y1 * iw, row = y * w
                        for x in 0..<w {
                            let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                            let sum = Int(s[bottom + x1] &- s[top + x1] &- s[bottom + x0] &+ s[top + x0])
                            let n = (y1 - y0) * (x1 - x0)
                            let v = Int(p[row + x])
                            // v < mean - offset - mean/32
                            if (v + offset) * n * 32 < sum * 31 { b[row + x] = 1 }
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

    /// Bilinear enlargement by an integer factor.
    static func upscaled(_ image: GrayImage, by factor: Int) -> GrayImage {
        let w = image.width * factor, h = image.height * factor
        let inv = 1.0 / Double(factor)
        return image.pixels.withUnsafeBufferPointer { p in
            GrayImage(width: w, height: h) { x, y in
                sample(p, image.width, image.height, (Double(x) + 0.5) * inv - 0.5, (Double(y) + 0.5) * inv - 0.5)
            }
        }
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
        let level = Threshold.otsu(image.pixels)
        return BinaryImage(width: image.width, height: image.height, bits: image.pixels.map { Int($0) <= level ? 1 : 0 })
    }

    /// 3×3 median filter (edges copied): removes texture and speckle inside modules while keeping
    /// module edges sharp.
    static func median3(_ image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height
        guard w >= 3, h >= 3 else { return image }
        var out = image.pixels
        image.pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                var v = [UInt8](repeating: 0, count: 9)
                for y in 1..<(h - 1) {
                    for x in 1..<(w - 1) {
                        var k = 0
                        for dy in -1...1 {
                            let row = (y + dy) * w + x
                            v[k] = p[row - 1]; v[k + 1] = p[row]; v[k + 2] = p[row + 1]
                            k += 3
                        }
                        // Partial selection: the 5th smallest of 9.
                        for i in 0..<5 {
                            var m = i
                            for j in (i + 1)..<9 where v[j] < v[m] { m = j }
                            if m != i { v.swapAt(i, m) }
                        }
                        o[y * w + x] = v[4]
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
