/// Geometry shared by ``GrayImage`` and ``RGBImage``: both are interleaved 8-bit samples.
protocol InterleavedImage {
    static var channels: Int { get }
    var width: Int { get }
    var height: Int { get }
    var pixels: [UInt8] { get }
    init(width: Int, height: Int, pixels: [UInt8])
}

extension GrayImage: InterleavedImage { static var channels: Int { 1 } }
extension RGBImage: InterleavedImage { static var channels: Int { 3 } }

extension InterleavedImage {
    /// Copies pixels to a `w`×`h` grid where target pixel (x, y) comes from source pixel index
    /// `origin + x * stepX + y * stepY`. Walks 64×64 tiles so that turns by 90° stay cache-friendly.
    fileprivate func remapped(width w: Int, height h: Int, origin: Int, stepX: Int, stepY: Int) -> Self {
        let c = Self.channels
        var out = [UInt8](repeating: 0, count: w * h * c)
        let tile = 64
        out.withUnsafeMutableBufferPointer { o in
            pixels.withUnsafeBufferPointer { p in
                for ty in stride(from: 0, to: h, by: tile) {
                    for tx in stride(from: 0, to: w, by: tile) {
                        for y in ty..<min(ty + tile, h) {
                            var s = origin + tx * stepX + y * stepY
                            var t = y * w + tx
                            if c == 1 {
                                for _ in tx..<min(tx + tile, w) {
                                    o[t] = p[s]
                                    s += stepX
                                    t += 1
                                }
                            } else {
                                for _ in tx..<min(tx + tile, w) {
                                    for k in 0..<c { o[t * c + k] = p[s * c + k] }
                                    s += stepX
                                    t += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return Self(width: w, height: h, pixels: out)
    }

    fileprivate func applying(_ orientation: Orientation) -> Self {
        let (w, h) = (width, height)
        // For each orientation: where the target's first pixel comes from, and the source steps
        // (in pixels) for one step right and one step down in the target.
        switch orientation {
        case .up: return self
        case .upMirrored: return remapped(width: w, height: h, origin: w - 1, stepX: -1, stepY: w)
        case .down: return remapped(width: w, height: h, origin: w * h - 1, stepX: -1, stepY: -w)
        case .downMirrored: return remapped(width: w, height: h, origin: (h - 1) * w, stepX: 1, stepY: -w)
        case .leftMirrored: return remapped(width: h, height: w, origin: 0, stepX: w, stepY: 1)
        case .right: return remapped(width: h, height: w, origin: (h - 1) * w, stepX: -w, stepY: 1)
        case .rightMirrored: return remapped(width: h, height: w, origin: w * h - 1, stepX: -w, stepY: -1)
        case .left: return remapped(width: h, height: w, origin: w - 1, stepX: w, stepY: -1)
        }
    }

    fileprivate func croppedImage(x: Int, y: Int, width cw: Int, height ch: Int) -> Self {
        let x0 = max(0, min(x, width)), y0 = max(0, min(y, height))
        let x1 = max(x0, min(x + cw, width)), y1 = max(y0, min(y + ch, height))
        let w = x1 - x0, h = y1 - y0, c = Self.channels
        var out = [UInt8](repeating: 0, count: w * h * c)
        out.withUnsafeMutableBufferPointer { o in
            pixels.withUnsafeBufferPointer { p in
                for row in 0..<h {
                    let s = ((y0 + row) * width + x0) * c
                    let t = row * w * c
                    for i in 0..<(w * c) { o[t + i] = p[s + i] }
                }
            }
        }
        return Self(width: w, height: h, pixels: out)
    }

    /// Area averaging by an integer factor: each output pixel is the mean of a `factor`×`factor` block
    /// (blocks on the right and bottom edge are partial and averaged over what they cover).
    fileprivate func boxDownscaled(_ factor: Int) -> Self {
        guard factor > 1 else { return self }
        let c = Self.channels
        let w = (width + factor - 1) / factor, h = (height + factor - 1) / factor
        var sums = [UInt32](repeating: 0, count: w * c)
        var out = [UInt8](repeating: 0, count: w * h * c)
        let sw = width
        out.withUnsafeMutableBufferPointer { o in
            pixels.withUnsafeBufferPointer { p in
                sums.withUnsafeMutableBufferPointer { acc in
                    for oy in 0..<h {
                        for i in 0..<acc.count { acc[i] = 0 }
                        let y0 = oy * factor, y1 = min(y0 + factor, height)
                        for y in y0..<y1 {
                            let row = y * sw * c
                            if c == 1 {
                                // Whole blocks without a division per pixel, then the partial edge block.
                                let full = sw / factor
                                var x = 0
                                for ox in 0..<full {
                                    var s: UInt32 = 0
                                    for _ in 0..<factor {
                                        s &+= UInt32(p[row + x])
                                        x += 1
                                    }
                                    acc[ox] &+= s
                                }
                                while x < sw {
                                    acc[full] &+= UInt32(p[row + x])
                                    x += 1
                                }
                            } else {
                                for x in 0..<sw {
                                    let ox = x / factor
                                    for k in 0..<c { acc[ox * c + k] &+= UInt32(p[row + x * c + k]) }
                                }
                            }
                        }
                        let rows = UInt32(y1 - y0)
                        for ox in 0..<w {
                            let cols = UInt32(min((ox + 1) * factor, sw) - ox * factor)
                            let n = rows * cols
                            for k in 0..<c { o[(oy * w + ox) * c + k] = UInt8((acc[ox * c + k] + n / 2) / n) }
                        }
                    }
                }
            }
        }
        return Self(width: w, height: h, pixels: out)
    }

    /// Area-averaging resample to any smaller (or equal) size: each output pixel is the
    /// coverage-weighted mean of the source pixels under it. Separable: rows, then columns.
    fileprivate func areaResized(width tw: Int, height th: Int) -> Self {
        precondition(tw > 0 && th > 0, "target size must be positive")
        if tw == width && th == height { return self }
        let c = Self.channels
        // Weights for one axis: for each output index, the (source index, weight) pairs covering it.
        func weights(_ n: Int, _ m: Int) -> [[(Int, Float)]] {
            let ratio = Double(n) / Double(m)
            return (0..<m).map { o in
                let a = Double(o) * ratio, b = Double(o + 1) * ratio
                if ratio <= 1 {  // enlarging along this axis: nearest-neighbour on centres
                    return [(min(n - 1, Int((a + b) / 2)), 1)]
                }
                var list: [(Int, Float)] = []
                var i = Int(a)
                while Double(i) < b && i < n {
                    let cover = min(b, Double(i + 1)) - max(a, Double(i))
                    if cover > 0 { list.append((i, Float(cover / ratio))) }
                    i += 1
                }
                return list
            }
        }
        let wx = weights(width, tw), wy = weights(height, th)
        var mid = [Float](repeating: 0, count: tw * height * c)
        pixels.withUnsafeBufferPointer { p in
            mid.withUnsafeMutableBufferPointer { m in
                for y in 0..<height {
                    for ox in 0..<tw {
                        for k in 0..<c {
                            var s: Float = 0
                            for (i, wt) in wx[ox] { s += Float(p[(y * width + i) * c + k]) * wt }
                            m[(y * tw + ox) * c + k] = s
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: tw * th * c)
        out.withUnsafeMutableBufferPointer { o in
            mid.withUnsafeBufferPointer { m in
                for oy in 0..<th {
                    for ox in 0..<tw {
                        for k in 0..<c {
                            var s: Float = 0
                            for (j, wt) in wy[oy] { s += m[(j * tw + ox) * c + k] * wt }
                            o[(oy * tw + ox) * c + k] = UInt8(max(0, min(255, s.rounded())))
                        }
                    }
                }
            }
        }
        return Self(width: tw, height: th, pixels: out)
    }
}

extension GrayImage {
    /// The picture as a person sees it when stored with `orientation`.
    public func oriented(_ orientation: Orientation) -> GrayImage { applying(orientation) }
    /// Rotated 90° clockwise.
    public func rotatedClockwise() -> GrayImage { applying(.right) }
    /// Rotated 180°.
    public func rotated180() -> GrayImage { applying(.down) }
    /// Rotated 90° counter-clockwise.
    public func rotatedCounterClockwise() -> GrayImage { applying(.left) }
    /// The part inside the rectangle, clipped to the image.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> GrayImage {
        croppedImage(x: x, y: y, width: width, height: height)
    }
    /// Area-averaged reduction by an integer factor (sides rounded up).
    public func downscaled(by factor: Int) -> GrayImage { boxDownscaled(factor) }
    /// Area-averaged resample to the given size (nearest-neighbour along an axis that grows).
    public func resized(width: Int, height: Int) -> GrayImage { areaResized(width: width, height: height) }
    /// Light and dark swapped.
    public func inverted() -> GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }
}

extension RGBImage {
    /// The picture as a person sees it when stored with `orientation`.
    public func oriented(_ orientation: Orientation) -> RGBImage { applying(orientation) }
    /// Rotated 90° clockwise.
    public func rotatedClockwise() -> RGBImage { applying(.right) }
    /// Rotated 180°.
    public func rotated180() -> RGBImage { applying(.down) }
    /// Rotated 90° counter-clockwise.
    public func rotatedCounterClockwise() -> RGBImage { applying(.left) }
    /// The part inside the rectangle, clipped to the image.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> RGBImage {
        croppedImage(x: x, y: y, width: width, height: height)
    }
    /// Area-averaged reduction by an integer factor (sides rounded up).
    public func downscaled(by factor: Int) -> RGBImage { boxDownscaled(factor) }
    /// Area-averaged resample to the given size (nearest-neighbour along an axis that grows).
    public func resized(width: Int, height: Int) -> RGBImage { areaResized(width: width, height: height) }
}
