/// An 8-bit luminance image: the currency every recogniser works in.
///
/// Pixels are stored row by row, top to bottom, with no padding (`pixels.count == width * height`).
/// 0 is black and 255 is white.
public struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Luminance samples, row-major, `width * height` of them.
    public var pixels: [UInt8]

    /// Wraps existing samples. `pixels.count` must equal `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A uniform image of one grey value.
    public init(width: Int, height: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }

    /// Builds an image from a function of each pixel's position.
    public init(width: Int, height: Int, _ value: (_ x: Int, _ y: Int) -> UInt8) {
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width { out[y * width + x] = value(x, y) }
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The sample at column `x`, row `y`.
    @inlinable
    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// The number of pixels.
    public var count: Int { width * height }
}

/// An 8-bit RGB image, 3 bytes a pixel (R, G, B), row-major with no padding.
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Samples `R, G, B` for each pixel, row-major, `width * height * 3` of them.
    public var pixels: [UInt8]

    /// Wraps existing samples. `pixels.count` must equal `width * height * 3`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "sample count does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A grey image expanded to RGB.
    public init(_ gray: GrayImage) {
        var out = [UInt8](repeating: 0, count: gray.count * 3)
        out.withUnsafeMutableBufferPointer { o in
            gray.pixels.withUnsafeBufferPointer { g in
                for i in 0..<g.count {
                    let v = g[i]
                    o[3 * i] = v
                    o[3 * i + 1] = v
                    o[3 * i + 2] = v
                }
            }
        }
        self.init(width: gray.width, height: gray.height, pixels: out)
    }

    /// The pixel at column `x`, row `y` as `(r, g, b)`.
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        get {
            let i = (y * width + x) * 3
            return (pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
        }
    }

    /// Luminance by ITU-R BT.601 weights (the JPEG `Y`): `0.299 R + 0.587 G + 0.114 B`, rounded.
    public var gray: GrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        out.withUnsafeMutableBufferPointer { o in
            pixels.withUnsafeBufferPointer { p in
                for i in 0..<o.count {
                    o[i] = Luma.bt601(p[3 * i], p[3 * i + 1], p[3 * i + 2])
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

/// Luminance formulas.
public enum Luma {
    /// ITU-R BT.601 luma in fixed point (16-bit fractions), the weights libjpeg uses for `Y`.
    @inlinable
    public static func bt601(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let y = 19595 * UInt32(r) + 38470 * UInt32(g) + 7471 * UInt32(b) + 32768
        return UInt8(truncatingIfNeeded: y >> 16)
    }
}
